//! Integration tests: the real `promptexec` binary, run the way a user runs it.

mod builtin_checks;
mod chain;
mod evals;
mod examples;
mod help;
mod hooks;
mod invoke;
mod library;
mod output_files;
mod render;
mod robust;
mod rpc_hooks;
mod run;
mod run_flow;
mod run_rpc;
mod run_signals;
mod server;
mod session;
mod sync_key;
mod time_vars;
mod util;
mod validate;
