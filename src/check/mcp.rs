//! Probes for MCP servers: the handshake, the schemas of the tools they list, a call
//! of each read-only tool with arguments its schema allows, then (over stdio, on a
//! connection of their own) what each revision asks and how the server ends once
//! that connection closes ([`super::revisions`]).

use std::time::Duration;

use tokio::time::Instant;

use crate::config::McpServer;
use crate::mcp::{Listing, McpClient, McpTool};
use crate::tools::{RestartPolicy, ToolStatus};

use super::fuzz::Fuzzer;
use super::subject::Options;
use super::verdict::{exercised_nothing, with_stderr};
use super::{Probe, ProbeResult};

/// A server that crashes on one input is started again at once for the next, so the
/// fuzzer can go on and shrink what crashed it.
const RESTART_ALWAYS: RestartPolicy = RestartPolicy {
    max_restarts: usize::MAX,
    window: Duration::from_secs(1),
    first_backoff: Duration::ZERO,
    max_backoff: Duration::ZERO,
    timeouts_before_restart: 1,
};

/// The probes, and the client and listing the fuzzer goes on with when the server
/// answered.
pub(super) async fn probe(
    server: &McpServer,
    options: &Options,
) -> (
    Vec<ProbeResult>,
    Option<(McpClient, std::sync::Arc<Listing>)>,
) {
    let mut results = Vec::new();
    let started = Instant::now();
    let client = McpClient::with_policy(server, RESTART_ALWAYS).with_revision(options.spec_version);
    let listing = match client.tools().await {
        Ok(listing) => listing,
        Err(failure) => {
            let why = with_stderr(failure.to_string(), failure.stderr_tail());
            results.push(
                ProbeResult::fail(
                    Probe::Initialize,
                    why,
                    "answer `initialize` and `tools/list` within timeout_ms",
                )
                .took(started.elapsed()),
            );
            client.shutdown().await;
            // The revision probes speak by hand, so they say what the server did answer.
            results.extend(super::revisions::probe(server, options).await);
            return (keep(results, options), None);
        }
    };
    results.push(
        ProbeResult::pass(
            Probe::Initialize,
            format!(
                "initialized and listed {} tools in {} ms",
                listing.tools.len() + listing.rejected.len(),
                started.elapsed().as_millis()
            ),
        )
        .took(started.elapsed()),
    );
    results.push(tool_schemas(&listing));
    results.extend(super::revisions::probe(server, options).await);
    if options.wants(Probe::CallsEachTool) {
        let started = Instant::now();
        results.push(
            calls_each_tool(&client, &listing, options)
                .await
                .took(started.elapsed()),
        );
    }
    (keep(results, options), Some((client, listing)))
}

/// Why `tool` is not called with generated arguments, when it is not: only a tool
/// its server calls read-only (`readOnlyHint: true`, not `destructiveHint: true`)
/// is, unless writes are allowed. Annotations left out mean MCP's defaults, which
/// assume a tool writes.
pub(super) fn withheld(tool: &McpTool, options: &Options) -> Option<String> {
    if options.allow_writes {
        return None;
    }
    let hint = |name: &str| {
        tool.annotations
            .as_ref()
            .and_then(|a| a.get(name))
            .and_then(serde_json::Value::as_bool)
    };
    match (hint("readOnlyHint"), hint("destructiveHint")) {
        (Some(true), Some(true)) => Some("annotated `destructiveHint: true`".into()),
        (Some(true), _) => None,
        _ => Some("not annotated `readOnlyHint: true`".into()),
    }
}

fn keep(results: Vec<ProbeResult>, options: &Options) -> Vec<ProbeResult> {
    results
        .into_iter()
        .filter(|r| options.wants(r.probe))
        .collect()
}

fn tool_schemas(listing: &Listing) -> ProbeResult {
    let invalid_output: Vec<String> = listing
        .tools
        .iter()
        .filter_map(|t| {
            let schema = t.output_schema.as_ref()?;
            let err = jsonschema::validator_for(schema).err()?;
            Some(format!(
                "tool `{}`: its output schema is not valid JSON Schema: {err}",
                t.tool
            ))
        })
        .collect();
    let problems: Vec<String> = listing
        .rejected
        .iter()
        .map(|r| format!("tool `{}`: {}", r.tool, r.reason))
        .chain(invalid_output)
        .collect();
    match problems.first() {
        None => ProbeResult::pass(
            Probe::ToolSchemas,
            format!(
                "{} tools, every schema valid JSON Schema",
                listing.tools.len()
            ),
        ),
        Some(_) => ProbeResult::fail(
            Probe::ToolSchemas,
            problems.join("; "),
            "list each tool once, under a name of letters, digits, `_` and `-`, with a valid JSON Schema",
        ),
    }
}

async fn calls_each_tool(client: &McpClient, listing: &Listing, options: &Options) -> ProbeResult {
    let mut answered = Vec::new();
    let mut errors = 0;
    let mut withheld_tools = Vec::new();
    for tool in &listing.tools {
        if let Some(why) = withheld(tool, options) {
            withheld_tools.push(format!("{} ({why})", tool.tool));
            continue;
        }
        let args = Fuzzer::new(&tool.input_schema, options.seed)
            .map(|f| f.example())
            .unwrap_or_else(|_| serde_json::json!({}));
        let report = client.call(&tool.tool, &tool.name, &args, None).await;
        match report.status {
            ToolStatus::Ok | ToolStatus::Error | ToolStatus::Pending => {
                errors += usize::from(report.status == ToolStatus::Error);
                answered.push(format!("{} ({})", tool.tool, report.status))
            }
            ToolStatus::Failed | ToolStatus::Timeout => {
                let why = report.error.unwrap_or_default();
                return ProbeResult::fail(
                    Probe::CallsEachTool,
                    with_stderr(
                        format!("tool `{}` with {args}: {why}", tool.tool),
                        &report.stderr_tail,
                    ),
                    "answer `tools/call` with a result, or with `isError` for a tool's own failure",
                );
            }
        }
    }
    let not_called = match withheld_tools.is_empty() {
        true => String::new(),
        false => format!(
            "not called: {} (--allow-writes calls them)",
            withheld_tools.join(", ")
        ),
    };
    if answered.is_empty() {
        return match withheld_tools.is_empty() {
            true => ProbeResult::pass(Probe::CallsEachTool, "no tools to call"),
            false => ProbeResult::skip(Probe::CallsEachTool, not_called),
        };
    }
    let mut reason = format!("answered {}", answered.join(", "));
    if !not_called.is_empty() {
        reason.push_str(&format!("; {not_called}"));
    }
    if options.allow_writes && looks_like_files(listing) {
        return ProbeResult::warn(
            Probe::CallsEachTool,
            format!("{reason}; --allow-writes let it call tools that write files"),
            "point the server at a scratch copy of its data: check calls its tools with generated arguments",
        );
    }
    if errors == answered.len() {
        return exercised_nothing(Probe::CallsEachTool, &format!("{errors} calls"), &reason);
    }
    ProbeResult::pass(Probe::CallsEachTool, reason)
}

/// Whether the server's tools read like a file system's: a tool that writes, moves
/// or deletes by name, or arguments that are paths.
fn looks_like_files(listing: &Listing) -> bool {
    const TOOL_WORDS: [&str; 6] = [
        "write",
        "move",
        "delete",
        "remove",
        "create_dir",
        "edit_file",
    ];
    const PATH_ARGS: [&str; 4] = ["path", "paths", "source", "destination"];
    listing.tools.iter().any(|tool| {
        let name = tool.tool.to_ascii_lowercase();
        TOOL_WORDS.iter().any(|w| name.contains(w))
            || tool.input_schema["properties"]
                .as_object()
                .is_some_and(|props| PATH_ARGS.iter().any(|p| props.contains_key(*p)))
    })
}
