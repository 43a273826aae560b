//! RuntimeConfig resolution: one [`Resolver`](document::Resolver) walks the document,
//! each file adding the methods for its subject.

mod document;
mod exec;
mod hooks;
mod http;
mod mcp;
mod provider;
mod server_hook;

pub(super) use document::resolve;
pub(crate) use exec::{TOOL_RUN_KEYS, ToolWay, read_tool_run, template_at};
