//! Probes for MCP servers: the handshake, the schemas of the tools they list, a call
//! of each tool with arguments its schema allows, and (over stdio) an exit once the
//! connection closes.

use std::time::Duration;

use tokio::time::Instant;

use crate::config::{McpEndpoint, McpServer};
use crate::exec::CallKind;
use crate::mcp::{Link, Listing, McpClient};
use crate::tools::ToolStatus;

use super::fuzz::Fuzzer;
use super::oneshot::with_stderr;
use super::subject::Options;
use super::{Probe, ProbeResult};

/// The probes, and the client and listing the fuzzer goes on with when the server
/// answered.
pub async fn probe(
    server: &McpServer,
    options: &Options,
) -> (
    Vec<ProbeResult>,
    Option<(McpClient, std::sync::Arc<Listing>)>,
) {
    let mut results = Vec::new();
    let started = Instant::now();
    let client = McpClient::new(server);
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
    if options.wants(Probe::CallsEachTool) {
        let started = Instant::now();
        results.push(
            calls_each_tool(&client, &listing, options)
                .await
                .took(started.elapsed()),
        );
    }
    if matches!(server.endpoint, McpEndpoint::Stdio { .. }) && options.wants(Probe::ExitsOnEof) {
        let started = Instant::now();
        results.push(exits_on_eof(server).await.took(started.elapsed()));
    }
    (keep(results, options), Some((client, listing)))
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
    for tool in &listing.tools {
        let args = Fuzzer::new(&tool.input_schema, options.seed)
            .map(|f| f.example())
            .unwrap_or_else(|_| serde_json::json!({}));
        let report = client.call(&tool.tool, &tool.name, &args, None).await;
        match report.status {
            ToolStatus::Ok | ToolStatus::Error | ToolStatus::Pending => {
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
    ProbeResult::pass(
        Probe::CallsEachTool,
        if answered.is_empty() {
            "no tools to call".to_string()
        } else {
            format!("answered {}", answered.join(", "))
        },
    )
}

async fn exits_on_eof(server: &McpServer) -> ProbeResult {
    let deadline = server
        .timeout
        .unwrap_or_else(|| CallKind::Mcp.default_timeout());
    let link = match Link::open(server, deadline).await {
        Ok(link) => link,
        Err(failure) => {
            return ProbeResult::fail(
                Probe::ExitsOnEof,
                failure.to_string(),
                "fix `initialize` first",
            );
        }
    };
    let started = Instant::now();
    match link.close_and_watch().await {
        Some(false) => ProbeResult::fail(
            Probe::ExitsOnEof,
            format!(
                "still running {} ms after its stdin closed",
                crate::exec::DEFAULT_GRACE.as_millis()
            ),
            "exit when a read from stdin returns EOF",
        ),
        _ => ProbeResult::pass(
            Probe::ExitsOnEof,
            format!("exited {} ms after its stdin closed", took_ms(started)),
        ),
    }
}

fn took_ms(started: Instant) -> u128 {
    Duration::from(started.elapsed()).as_millis()
}
