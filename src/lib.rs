//! promptexec runs LLM-agent extensions (exec tools, hooks and evals) for real, outside
//! any agent, and manages `{{slot}}` prompt templates.
//!
//! # Module map
//!
//! Layers from the bottom up. A module imports only modules of lower layers; modules of
//! one layer do not import each other (`tests/cli/layers.rs` holds the same table and
//! checks every import). The user guide is in `docs/` (an mdBook).
//!
//! Beneath them all, `wire`: `wire_enum!`, each fixed word (phase, mode, status)
//! declared once, which the vocabulary at layer 0 uses.
//!
//! 0. `doc`: YAML and JSON read into trees with positions; diagnostics with their source
//!    lines. `peer_text`: text from peers escaped for the terminal. `secret`: the
//!    process-wide list of secrets and the writer that masks them. `conversation`: the
//!    words every layer shares (event kinds, PicoClaw's runtime names, hook actions, why a
//!    turn ended). `diff`: what changed between two values or texts, for replays,
//!    snapshots and evals. `watch`: waiting for a change to a set of files, for
//!    `--watch`.
//! 1. `atomic_file`: every file promptexec writes, whole or not at all, secrets masked.
//!    `template`: `{{slot}}` templates parsed and rendered. `dotprompt`: dotprompt's
//!    Handlebars subset rendered into chat messages. `config`: the RuntimeConfig
//!    walked into validated types, a resolver file per subject.
//! 2. `library`: PromptKind templates, the SQLite store, signatures, bundles and sync
//!    packets. `exec`: extension processes started, bounded and classified; JSON-RPC to
//!    long-running ones under a restart policy; the subreaper's sweep.
//! 3. `tools`: tool requests and answers, exec tools called. `hooks`: payloads, verdicts
//!    and actions, the hook chain at each phase.
//! 4. `provider`: model calls behind one trait: the scripted mock, the HTTP APIs,
//!    recordings and replay.
//! 5. `mcp`: MCP servers through rmcp's client, supervised and bounded.
//! 6. `tool_caller`: one tool called however it runs (one-shot, server, MCP). `pack`: the
//!    PromptPack walked into validated types.
//! 7. `evals`: exec evals and built-in checks at their triggers. `lock`: the tool
//!    surface pinned, its drift, and a run's fingerprint.
//! 8. `session`: the turn loop, emitting typed events; guardrails, injected failures and
//!    approvals beside it. `chain`: chain files of library prompts, played step by step
//!    on a provider with branches on each output.
//! 9. `report`: every record and its renderings (human, JSON, JUnit, Markdown, the
//!    HTML page, transcripts), suite reports read back and shards merged, the
//!    terminal's style and the exit code a record folds to.
//! 10. `suite`: scenario and case files read, planned and judged. `check`: conformance
//!     probes and the schema fuzzer. `compare`: two reports compared item by item and
//!     trial by trial, and the gate a CI job holds a change to; one item's history
//!     across many reports.
//! 11. `ui`: the local web page over the library, lint and reports: an HTTP layer,
//!     no second implementation of either.
//! 12. `cli`: the command line: clap's types, settings, logging, the console and
//!     errors, each mapped to a documented exit code.
//! 13. `commands`: parses and dispatches; one file or folder per command: arguments to
//!     a plan, one engine call, the record rendered. No command calls another.

#![warn(unreachable_pub)]

mod agents;
mod arena;
mod atomic_file;
mod chain;
mod check;
mod cli;
mod commands;
mod compare;
pub mod config;
mod conversation;
pub mod diff;
mod doc;
pub mod dotprompt;
mod evals;
pub mod exec;
pub mod go_template;
pub mod hooks;
pub mod library;
mod lock;
pub mod mcp;
pub mod pack;
mod peer_text;
pub mod provider;
mod report;
mod sarif;
mod secret;
pub mod session;
mod suite;
pub mod template;
mod tool_caller;
pub mod tools;
mod ui;
mod watch;
mod wire;

#[cfg(test)]
mod loader_tests;
#[cfg(test)]
mod test_support;

/// Runs promptexec with these arguments (the first is the program's name) on the
/// process's stdout and stderr, and returns its exit code.
pub fn run(args: Vec<std::ffi::OsString>) -> std::process::ExitCode {
    commands::run(args)
}
