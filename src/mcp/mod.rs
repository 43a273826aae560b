//! MCP servers as tools: each bound server started (or reached) through the official
//! SDK's client, its tools named `mcp__<server>__<tool>`, called with the same
//! deadlines, supervision and reports as every other tool.

mod answer;
mod capped;
mod catalog;
mod client;
#[cfg(test)]
mod client_tests;
mod error;
mod extras;
mod http;
mod lifecycle;
mod link;
mod names;
mod paging;
mod process;
mod revision;
mod survey;
mod toolset;

pub use catalog::{Catalog, Listing, McpTool, RejectedTool};
pub use client::McpClient;
pub use error::McpFailure;
pub use http::shown_url;
pub use names::{admitted, glob_matches, is_mcp, names_server, qualified, split};
pub use paging::{MAX_BYTES, MAX_ITEMS, MAX_PAGES, Overrun};
pub use revision::{Revision, UnknownRevision};
pub use survey::ask_all;
pub use toolset::McpToolSet;
