//! `hook test`: an exec hook is called once per phase, a JSON-RPC hook once per
//! method; both print their decisions the same way.

pub(super) mod exec;
pub(super) mod report;
pub(super) mod rpc;
