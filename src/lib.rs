//! promptexec runs LLM-agent extensions (exec tools, hooks and evals) for real, outside
//! any agent, and manages `{{slot}}` prompt templates.

#![warn(unreachable_pub)]

mod atomic_file;
mod check;
mod cli;
mod commands;
pub mod config;
mod conversation;
mod doc;
mod evals;
pub mod exec;
pub mod hooks;
pub mod library;
pub mod mcp;
pub mod pack;
mod peer_text;
pub mod provider;
mod report;
mod secret;
pub mod session;
mod suite;
pub mod template;
mod tool_caller;
pub mod tools;
mod wire;

/// Runs promptexec with these arguments (the first is the program's name) on the
/// process's stdout and stderr, and returns its exit code.
pub fn run(args: Vec<std::ffi::OsString>) -> std::process::ExitCode {
    cli::run(args)
}
