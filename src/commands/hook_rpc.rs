//! `hook test` for `runtime: server` hooks: the handshake, then one interceptor call
//! (or each, with `--all-phases`), with a generated or given payload.

use std::time::Instant;

use serde_json::{Map, Value as Json, json};

use crate::cli::args::HookTestArgs;
use crate::cli::output::{write_error, write_stderr};
use crate::cli::style::status;
use crate::cli::{CliError, Exit};
use crate::config::{Hook, Intercept, RuntimeConfig, ServerHook};
use crate::doc::one_of;
use crate::hooks::{
    Action, Approval, Intercepted, RpcHook, ToolResultInfo, on_failure, tool_result,
};

use super::hook::{Decision, HookReport, read_event};
use super::{interrupted, print_decisions, with_runtime};

const ALL: [Intercept; 5] = [
    Intercept::BeforeLlm,
    Intercept::AfterLlm,
    Intercept::BeforeTool,
    Intercept::AfterTool,
    Intercept::ApproveTool,
];

pub fn test(
    hook: &Hook,
    server: &ServerHook,
    args: &HookTestArgs,
    config: &RuntimeConfig,
) -> Result<Exit, CliError> {
    let methods = methods_to_run(hook, server, args)?;
    let explicit = match &args.event {
        Some(event) => Some(read_event(event)?),
        None => None,
    };
    let Some(rpc) = RpcHook::new(hook) else {
        return Err(CliError::Usage(format!(
            "hook `{}` is not a server hook",
            hook.name
        )));
    };
    let reports = with_runtime(|| async {
        let work = async {
            let started = Instant::now();
            if let Err(why) = rpc.start().await {
                return Ok(vec![failed_start(
                    hook,
                    why.to_string(),
                    started,
                    rpc.stderr_tail(),
                )]);
            }
            let mut reports = Vec::new();
            for intercept in &methods {
                let params = explicit
                    .clone()
                    .unwrap_or_else(|| sample_params(*intercept, config));
                let started = Instant::now();
                let answer = rpc.intercept(*intercept, params).await;
                let mut report = report(hook, server, *intercept, answer, started);
                report.stderr_tail = rpc.stderr_tail();
                reports.push(report);
            }
            Ok::<_, CliError>(reports)
        };
        let outcome = tokio::select! {
            reports = work => reports,
            () = interrupted() => Err(CliError::Interrupted),
        };
        rpc.shutdown().await;
        outcome
    })?;

    print_decisions(
        &reports,
        |r| r.decision.exit(),
        |r| {
            let mut line = format!("hook `{}` at {}: {}", r.hook, r.phase, status(r.action));
            if let Some(reason) = &r.reason {
                line.push_str(&format!(": {reason}"));
            }
            if r.decision == Decision::Failed {
                write_error(&line);
            } else {
                write_stderr(&line);
            }
        },
    )
}

fn methods_to_run(
    hook: &Hook,
    server: &ServerHook,
    args: &HookTestArgs,
) -> Result<Vec<Intercept>, CliError> {
    if args.all_phases {
        return Ok(server.intercept.clone());
    }
    let Some(name) = &args.phase else {
        return Ok(server.intercept.first().copied().into_iter().collect());
    };
    let names: Vec<&str> = ALL.iter().map(|i| i.as_str()).collect();
    let intercept = ALL
        .iter()
        .copied()
        .find(|i| i.as_str() == name)
        .ok_or_else(|| {
            CliError::Usage(format!(
                "`{name}` is not a JSON-RPC hook method; methods are {}",
                one_of(&names)
            ))
        })?;
    if !server.intercept.contains(&intercept) {
        write_stderr(&format!(
            "note: hook `{}` does not intercept `{name}`, so in a run it would not be asked",
            hook.name
        ));
    }
    Ok(vec![intercept])
}

fn failed_start(hook: &Hook, why: String, started: Instant, stderr_tail: String) -> HookReport {
    HookReport {
        hook: hook.name.clone(),
        phase: "hook.hello".into(),
        decision: Decision::Failed,
        action: Decision::Failed.as_str(),
        reason: Some(why),
        metadata: Map::new(),
        output: None,
        duration_ms: started.elapsed().as_millis() as u64,
        stderr_tail,
    }
}

fn report(
    hook: &Hook,
    server: &ServerHook,
    intercept: Intercept,
    answer: Intercepted,
    started: Instant,
) -> HookReport {
    let mut report = HookReport {
        hook: hook.name.clone(),
        phase: intercept.as_str().into(),
        decision: Decision::Failed,
        action: Decision::Failed.as_str(),
        reason: None,
        metadata: Map::new(),
        output: None,
        duration_ms: started.elapsed().as_millis() as u64,
        stderr_tail: String::new(),
    };
    match answer {
        Intercepted::Approval(Approval::Approved) => {
            report.decision = Decision::Allow;
            report.action = "approved";
        }
        Intercepted::Approval(Approval::Denied { reason }) => {
            report.decision = Decision::Deny;
            report.action = "denied";
            report.reason = Some(reason);
        }
        Intercepted::Action(action) => {
            report.action = action.name();
            report.decision = Decision::Allow;
            match action {
                Action::Continue => {}
                Action::Modify(replacement) => report.output = Some(replacement),
                Action::Respond { result, .. } => report.output = Some(result),
                Action::DenyTool { reason }
                | Action::AbortTurn { reason }
                | Action::HardAbort { reason } => {
                    report.decision = Decision::Deny;
                    report.reason = Some(reason);
                }
            }
        }
        Intercepted::Failed { why, .. } => {
            let in_a_run = match on_failure(intercept, server.on_failure, &hook.name, &why) {
                Action::Continue => "skipped (and the run exits 3)",
                _ => "a denial (and the run exits 3)",
            };
            report.reason = Some(format!("{why}; in a run this is {in_a_run}"));
        }
    }
    report
}

/// Realistic params for each method, in the reference's shapes.
fn sample_params(intercept: Intercept, config: &RuntimeConfig) -> Json {
    let meta = json!({"AgentID": "promptexec", "TurnID": "turn-1", "SessionKey": "sess_1", "Iteration": 0});
    let model = config
        .providers
        .first()
        .and_then(|p| p.model.clone())
        .unwrap_or_else(|| "mock-model".into());
    let tool = config
        .tools
        .keys()
        .next()
        .cloned()
        .unwrap_or_else(|| "lookup_order".into());
    let arguments = json!({"order_id": "A-1002"});
    let messages = json!([{"role": "user", "content": "Hi, where is my order A-1002?"}]);
    match intercept {
        Intercept::BeforeLlm => {
            let tools: Vec<Json> = config
                .tools
                .keys()
                .map(|name| json!({"type": "function", "function": {"name": name, "description": "", "parameters": {"type": "object"}}}))
                .collect();
            json!({"meta": meta, "model": model, "messages": messages, "tools": tools, "options": {}, "channel": "cli", "chat_id": "chat-1"})
        }
        Intercept::AfterLlm => json!({"meta": meta, "model": model, "response": {
            "role": "assistant", "content": "Let me look that up.",
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": tool, "arguments": arguments.to_string()}}]
        }, "channel": "cli", "chat_id": "chat-1"}),
        Intercept::BeforeTool | Intercept::ApproveTool => {
            json!({"meta": meta, "tool": tool, "arguments": arguments, "channel": "cli", "chat_id": "chat-1"})
        }
        Intercept::AfterTool => {
            let result = tool_result(&ToolResultInfo {
                name: tool.to_string(),
                call_id: "call_1".into(),
                content: "{\"status\": \"delayed\"}".into(),
                latency_ms: 120,
                is_error: false,
            });
            json!({"meta": meta, "tool": tool, "arguments": arguments, "result": result,
                   "duration": 120_000_000, "channel": "cli", "chat_id": "chat-1"})
        }
    }
}
