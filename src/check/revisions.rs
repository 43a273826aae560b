//! Probes of what each MCP revision asks of a server, over a connection of their own
//! spoken by hand (so that nothing is smoothed over): the revision the handshake
//! settles on, then the answers that revision requires. A probe of a capability the
//! server does not declare is skipped, never failed; each verdict names the revision
//! it held the server to. The connection then ends as every stdio connection does,
//! by closing stdin, and the server is judged on how it ends (`exits_on_eof`,
//! `no_leftover_processes`), having spoken the revision it speaks.

use indexmap::IndexMap;
use serde_json::{Value as Json, json};
use tokio::time::Instant;

use crate::config::{ExecSpec, McpEndpoint, McpServer};
use crate::exec::CallKind;
use crate::mcp::Revision;

use super::ending;
use super::line_process::LineProcess;
use super::subject::Options;
use super::{Probe, ProbeResult};

mod wire;

use wire::{Answer, Spoken, Wire, handshake};

/// Every probe here, in the order they run.
const PROBES: [Probe; 7] = [
    Probe::SpeaksRevision,
    Probe::UnknownMethod,
    Probe::ListOrder,
    Probe::CacheFields,
    Probe::UnknownTool,
    Probe::InputValidation,
    Probe::RequestMeta,
];

/// A tool name no server has.
const NO_SUCH_TOOL: &str = "promptexec-check-no-such-tool";

/// JSON-RPC's "method not found" and "invalid params".
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// The revision probes of `server`, as `options` asks (`--spec-version` holds the
/// server to that revision alone).
pub(super) async fn probe(server: &McpServer, options: &Options) -> Vec<ProbeResult> {
    let wanted = |probe: &Probe| options.wants(*probe);
    let ending = [Probe::ExitsOnEof, Probe::NoLeftoverProcesses];
    if !PROBES.iter().chain(&ending).any(wanted) {
        return Vec::new();
    }
    let results = match &server.endpoint {
        McpEndpoint::Stdio { exec, env } => over_stdio(server, exec, env, options).await,
        McpEndpoint::Http { .. } => PROBES
            .iter()
            .map(|p| ProbeResult::skip(*p, "revision probes speak to servers over stdio only"))
            .collect(),
    };
    results.into_iter().filter(|r| wanted(&r.probe)).collect()
}

async fn over_stdio(
    server: &McpServer,
    exec: &ExecSpec,
    env: &IndexMap<String, String>,
    options: &Options,
) -> Vec<ProbeResult> {
    let extra: Vec<(String, String)> = env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let limit = server
        .timeout
        .unwrap_or_else(|| CallKind::Mcp.default_timeout());
    let process = match LineProcess::start(&server.name, CallKind::Mcp, exec, &extra) {
        Ok(process) => process,
        Err(err) => {
            let why = format!("could not start: {err}");
            let hint = "fix the server's command first";
            let mut results = skip_after(ProbeResult::fail(Probe::SpeaksRevision, &why, hint));
            results.extend([
                ProbeResult::fail(Probe::ExitsOnEof, &why, hint),
                ProbeResult::fail(Probe::NoLeftoverProcesses, &why, hint),
            ]);
            return results;
        }
    };
    let mut wire = Wire {
        process,
        limit,
        next_id: 1,
        revision: None,
    };
    let started = Instant::now();
    let mut results = match handshake(&mut wire, options.spec_version).await {
        Ok(spoken) => {
            let mut results = vec![spoken.verdict().took(started.elapsed())];
            results.extend(held_to(&mut wire, &spoken).await);
            results
        }
        Err(failed) => skip_after(failed.took(started.elapsed())),
    };
    wire.process.close_stdin();
    let ended = Instant::now();
    let (exits, leftovers) = ending::after_eof(&mut wire.process).await;
    results.extend([exits.took(ended.elapsed()), leftovers.took(ended.elapsed())]);
    results
}

/// `failed`, then every other probe skipped for it.
fn skip_after(failed: ProbeResult) -> Vec<ProbeResult> {
    let why = "no handshake to hold the server to a revision";
    let mut results = vec![failed];
    results.extend(PROBES[1..].iter().map(|p| ProbeResult::skip(*p, why)));
    results
}

/// The probes after the handshake, each held to the revision spoken.
async fn held_to(wire: &mut Wire, spoken: &Spoken) -> Vec<ProbeResult> {
    let Some(revision) = spoken.revision else {
        let why = format!(
            "it speaks MCP {}, older than the revisions promptexec checks",
            spoken.answered
        );
        return PROBES[1..]
            .iter()
            .map(|p| ProbeResult::skip(*p, why.clone()))
            .collect();
    };
    let mut results = vec![timed(unknown_method(wire, revision)).await];
    if !spoken.declares("tools") {
        let why = format!("the server declares no `tools` capability (held to MCP {revision})");
        results.extend(
            PROBES[2..]
                .iter()
                .map(|p| ProbeResult::skip(*p, why.clone())),
        );
        return results;
    }
    let started = Instant::now();
    let (order, cache, tools) = listing(wire, revision).await;
    results.push(order.took(started.elapsed()));
    results.push(cache.took(started.elapsed()));
    results.push(timed(unknown_tool(wire, revision)).await);
    results.push(timed(input_validation(wire, revision, &tools)).await);
    results.push(timed(request_meta_required(wire, revision)).await);
    results
}

async fn timed(probe: impl Future<Output = ProbeResult>) -> ProbeResult {
    let started = Instant::now();
    probe.await.took(started.elapsed())
}

/// Every revision: an unknown method is answered -32601.
async fn unknown_method(wire: &mut Wire, revision: Revision) -> ProbeResult {
    let method = "promptexec/no-such-method";
    match wire.ask(method, json!({}), false).await {
        Answer::Error { code, .. } if code == METHOD_NOT_FOUND => ProbeResult::pass(
            Probe::UnknownMethod,
            format!("`{method}` answered -32601 (held to MCP {revision})"),
        ),
        other => ProbeResult::fail(
            Probe::UnknownMethod,
            format!(
                "`{method}` got {} (held to MCP {revision})",
                other.describe()
            ),
            "answer a method the server does not have with JSON-RPC error -32601",
        ),
    }
}

/// `tools/list` twice: the same tools in the same order (2026-07-28 requires it;
/// advice before), and on 2026-07-28 the cache fields. Also the first listing.
async fn listing(wire: &mut Wire, revision: Revision) -> (ProbeResult, ProbeResult, Vec<Json>) {
    let first = wire.ask("tools/list", json!({}), false).await;
    let second = wire.ask("tools/list", json!({}), false).await;
    let (first, second) = match (first, second) {
        (Answer::Result(a), Answer::Result(b)) => (a, b),
        (Answer::Result(_), other) | (other, _) => {
            let why = format!(
                "`tools/list` got {} (held to MCP {revision})",
                other.describe()
            );
            let hint = "answer `tools/list` with the tools";
            return (
                ProbeResult::fail(Probe::ListOrder, why.clone(), hint),
                ProbeResult::fail(Probe::CacheFields, why, hint),
                Vec::new(),
            );
        }
    };
    let names = |listed: &Json| -> Vec<String> {
        listed["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .map(|t| t["name"].as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let (a, b) = (names(&first), names(&second));
    let order = if a == b {
        ProbeResult::pass(
            Probe::ListOrder,
            format!(
                "two listings gave the same {} tools in the same order (held to MCP {revision})",
                a.len()
            ),
        )
    } else {
        let why = format!(
            "two listings differ: [{}] then [{}] (held to MCP {revision})",
            a.join(", "),
            b.join(", ")
        );
        let hint = "list tools in a stable order (sorted by name, say)";
        if revision == Revision::V2026_07_28 {
            ProbeResult::fail(Probe::ListOrder, why, hint)
        } else {
            ProbeResult::warn(Probe::ListOrder, why, hint)
        }
    };
    let tools = first["tools"].as_array().cloned().unwrap_or_default();
    (order, cache_fields(&first, revision), tools)
}

/// 2026-07-28: a list result says how long it may be kept (`ttlMs`) and by whom
/// (`cacheScope`).
fn cache_fields(listed: &Json, revision: Revision) -> ProbeResult {
    if revision != Revision::V2026_07_28 {
        return ProbeResult::skip(
            Probe::CacheFields,
            format!("cache fields came with MCP 2026-07-28 (held to MCP {revision})"),
        );
    }
    let ttl = &listed["ttlMs"];
    let scope = &listed["cacheScope"];
    let mut problems = Vec::new();
    if !ttl.is_u64() {
        problems.push(format!(
            "`ttlMs` is {ttl}, not a whole number of milliseconds"
        ));
    }
    if !matches!(scope.as_str(), Some("public" | "private")) {
        problems.push(format!(
            "`cacheScope` is {scope}, not \"public\" or \"private\""
        ));
    }
    if problems.is_empty() {
        ProbeResult::pass(
            Probe::CacheFields,
            format!(
                "`tools/list` gave ttlMs {ttl} and cacheScope {scope} (held to MCP {revision})"
            ),
        )
    } else {
        ProbeResult::fail(
            Probe::CacheFields,
            format!("{} (held to MCP {revision})", problems.join("; ")),
            "give every list result `ttlMs` and `cacheScope` (\"public\" or \"private\")",
        )
    }
}

/// Every revision: `tools/call` of a tool the server does not have is a protocol
/// error, -32602. Another error, or a tool error, is advice; a result is a failure.
async fn unknown_tool(wire: &mut Wire, revision: Revision) -> ProbeResult {
    let params = json!({"name": NO_SUCH_TOOL, "arguments": {}});
    let hint = "answer `tools/call` of an unknown tool with JSON-RPC error -32602";
    match wire.ask("tools/call", params, false).await {
        Answer::Error { code, .. } if code == INVALID_PARAMS => ProbeResult::pass(
            Probe::UnknownTool,
            format!("an unknown tool got -32602 (held to MCP {revision})"),
        ),
        Answer::Error { code, message } => ProbeResult::warn(
            Probe::UnknownTool,
            format!(
                "an unknown tool got JSON-RPC error {code} ({message}), not -32602 (held to MCP {revision})"
            ),
            hint,
        ),
        Answer::Result(result) if result["isError"] == json!(true) => ProbeResult::warn(
            Probe::UnknownTool,
            format!(
                "an unknown tool got a tool result with isError, not a protocol error (held to MCP {revision})"
            ),
            hint,
        ),
        other => ProbeResult::fail(
            Probe::UnknownTool,
            format!(
                "an unknown tool got {} (held to MCP {revision})",
                other.describe()
            ),
            hint,
        ),
    }
}

/// 2025-11-25 and later: arguments that break a tool's schema come back as a tool
/// error (`isError`), not a protocol error. Sent only to a tool annotated
/// `readOnlyHint: true`, with a required argument left out.
async fn input_validation(wire: &mut Wire, revision: Revision, tools: &[Json]) -> ProbeResult {
    if revision == Revision::V2025_06_18 {
        return ProbeResult::skip(
            Probe::InputValidation,
            "MCP 2025-06-18 leaves the form of an input-validation failure open (held to MCP 2025-06-18)",
        );
    }
    let target = tools.iter().find(|t| {
        t["annotations"]["readOnlyHint"] == json!(true)
            && t["inputSchema"]["required"]
                .as_array()
                .is_some_and(|r| !r.is_empty())
    });
    let Some(tool) = target else {
        return ProbeResult::skip(
            Probe::InputValidation,
            format!(
                "no tool is annotated readOnlyHint: true and has a required argument; arguments that break a schema go to read-only tools only (held to MCP {revision})"
            ),
        );
    };
    let name = tool["name"].as_str().unwrap_or_default();
    let params = json!({"name": name, "arguments": {}});
    let hint = "report arguments that break the input schema as a tool result with isError: true";
    match wire.ask("tools/call", params, false).await {
        Answer::Result(result) if result["isError"] == json!(true) => ProbeResult::pass(
            Probe::InputValidation,
            format!(
                "`{name}` without its required arguments answered a tool error (held to MCP {revision})"
            ),
        ),
        Answer::Result(_) => ProbeResult::warn(
            Probe::InputValidation,
            format!(
                "`{name}` without its required arguments answered a result, not a tool error (held to MCP {revision})"
            ),
            hint,
        ),
        Answer::Error { code, message } => ProbeResult::warn(
            Probe::InputValidation,
            format!(
                "`{name}` without its required arguments got JSON-RPC error {code} ({message}), not a tool error (held to MCP {revision})"
            ),
            hint,
        ),
        Answer::Nothing(why) => ProbeResult::fail(
            Probe::InputValidation,
            format!("`{name}` without its required arguments got {why} (held to MCP {revision})"),
            "answer a call with arguments that break the schema, with a tool error",
        ),
    }
}

/// 2026-07-28: every request carries its `_meta` (revision and client capabilities);
/// one without is turned down.
async fn request_meta_required(wire: &mut Wire, revision: Revision) -> ProbeResult {
    if revision != Revision::V2026_07_28 {
        return ProbeResult::skip(
            Probe::RequestMeta,
            format!(
                "requests carry their own `_meta` from MCP 2026-07-28 on (held to MCP {revision})"
            ),
        );
    }
    match wire.ask("tools/list", json!({}), true).await {
        Answer::Error { code, .. } => ProbeResult::pass(
            Probe::RequestMeta,
            format!(
                "`tools/list` without `_meta` got JSON-RPC error {code} (held to MCP {revision})"
            ),
        ),
        Answer::Result(_) => ProbeResult::warn(
            Probe::RequestMeta,
            format!(
                "`tools/list` without `_meta` was answered as if it had one (held to MCP {revision})"
            ),
            "turn down a request without the `_meta` 2026-07-28 requires (protocolVersion, clientCapabilities) with JSON-RPC error -32602",
        ),
        Answer::Nothing(why) => ProbeResult::fail(
            Probe::RequestMeta,
            format!("`tools/list` without `_meta` got {why} (held to MCP {revision})"),
            "answer a request without `_meta` with a JSON-RPC error",
        ),
    }
}
