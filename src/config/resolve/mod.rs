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
