//! JSON-RPC 2.0 over a child's stdio, one JSON object per line: requests are
//! pipelined, replies matched by id in any order, and everything that is not a reply
//! to a waiting call (banners, notifications, unknown ids, broken lines) is logged
//! and skipped without disturbing the calls around it.

mod client;
mod envelope;
mod errors;
pub(crate) mod framing;
mod pending;
mod policy;
mod supervisor;
#[cfg(test)]
mod supervisor_tests;

pub use client::{NOT_FLUSHING_HINT, Overlong, Reply, RpcClient, RpcError, Timeout};
pub use errors::{HandshakeError, Refused, ServerError, Unavailable};
pub use framing::{Line, LineReader};
pub use policy::{Decision, ExitHistory, RestartPolicy};
pub use supervisor::{Handshake, Missed, NoReply, Supervisor};
