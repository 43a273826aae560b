//! Tool calls: arguments checked against the pack's JSON Schema before any process
//! starts, the request sent, and the answer read as result, error or pending; mock
//! tools answered from their binding and live tools over HTTP.

mod args;
mod call;
mod http;
mod mock;
mod name;
mod response;
mod server;

#[cfg(test)]
mod server_tests;

pub use crate::exec::rpc::RestartPolicy;
pub use args::{ArgsError, ArgsSchema, INVALID_ARGUMENTS, SchemaError, validate_args};
pub use call::{ToolMode, ToolReport, ToolRequest, ToolStatus, call_tool, tool_request};
pub use http::{DEFAULT_HTTP_TIMEOUT, call_http};
pub use mock::call_mock;
pub use name::{MAX_TOOL_NAME, ToolNameError, check_tool_name};
pub use response::{Pending, ToolAnswer, interpret, interpret_raw};
pub use server::ToolServer;
