//! promptexec runs LLM-agent extensions (exec tools, hooks and evals) for real, outside
//! any agent, and manages `{{slot}}` prompt templates.

pub mod atomic_file;
pub mod check;
pub mod cli;
pub mod commands;
pub mod config;
pub mod conversation;
pub mod doc;
pub mod evals;
pub mod exec;
pub mod hooks;
pub mod library;
pub mod mcp;
pub mod pack;
pub mod peer_text;
pub mod provider;
pub mod report;
pub mod secret;
pub mod session;
pub mod suite;
pub mod template;
pub mod tool_caller;
pub mod tools;
pub mod wire;
