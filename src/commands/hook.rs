use serde::Serialize;
use serde_json::{Map, Value as Json, json};
use tokio_util::sync::CancellationToken;

use crate::cli::args::HookTestArgs;
use crate::cli::output::{write_error, write_stderr};
use crate::cli::style::status;
use crate::cli::{Cli, CliError, Exit};
use crate::config::{Hook, HookKind, HookMode, HookPhase, RuntimeConfig};
use crate::doc::one_of;
use crate::exec::{CallKind, Outcome, last_lines};
use crate::hooks::{
    ProviderRequest, ProviderResponse, SessionInfo, Step, ToolCallInfo, ToolResultInfo, message,
    provider_payload, run_hook, session_payload, step_for, tool_payload,
};

use super::invoke::load_config;
use super::{interrupted, lookup, print_decisions, read_text, with_runtime};

/// How a hook's answer ends for the pipeline; decides `hook test`'s exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Decision {
    Allow,
    Deny,
    /// An observer answered; observers cannot block.
    Ack,
    Failed,
}

impl Decision {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Deny => "deny",
            Decision::Ack => "ack",
            Decision::Failed => "failed",
        }
    }

    pub(super) fn exit(self) -> Exit {
        match self {
            Decision::Allow | Decision::Ack => Exit::Success,
            Decision::Deny => Exit::No,
            Decision::Failed => Exit::ExtensionFailed,
        }
    }
}

/// What `hook test` prints for one phase or method, the same for exec and JSON-RPC
/// hooks so one script can read both.
#[derive(Debug, Serialize)]
pub(super) struct HookReport {
    pub hook: String,
    pub phase: String,
    pub decision: Decision,
    /// What the hook answered: an exec hook's decision again; a JSON-RPC hook's action
    /// (`continue`, `modify`, `respond`, `deny_tool`, `abort_turn`, `hard_abort`),
    /// `approved` or `denied`, or `failed`.
    pub action: &'static str,
    pub reason: Option<String>,
    pub metadata: Map<String, Json>,
    /// What the pipeline would go on with after `modify` or `respond`.
    pub output: Option<Json>,
    pub duration_ms: u64,
    pub stderr_tail: String,
}

/// `hook test NAME`: one event to one hook, its decision on stdout, the why on stderr.
pub fn test(cli: &Cli, args: &HookTestArgs) -> Result<Exit, CliError> {
    let config = load_config(cli)?;
    let hook = lookup(&config.hooks, &args.name, "hook", "the config")?;
    if let HookKind::Server(server) = &hook.kind {
        return super::hook_rpc::test(hook, server, args, &config);
    }
    let phases = phases_to_run(hook, args)?;
    let explicit = match &args.event {
        Some(event) => Some(read_event(event)?),
        None => None,
    };

    let reports = with_runtime(|| async {
        let cancel = CancellationToken::new();
        let mut reports = Vec::new();
        for phase in &phases {
            let payload = match &explicit {
                Some(event) => wrap_event(hook, *phase, event.clone())?,
                None => sample_payload(*phase, &config),
            };
            let run = run_hook(hook, call_kind(hook), &payload, &cancel);
            tokio::pin!(run);
            let run = tokio::select! {
                run = &mut run => run,
                () = interrupted() => {
                    cancel.cancel();
                    run.await;
                    return Err(CliError::Interrupted);
                }
            };
            reports.push(report(
                hook,
                *phase,
                &run.outcome,
                run.duration,
                run.stderr_tail,
            ));
        }
        Ok(reports)
    })?;

    print_decisions(&reports, |r| r.decision.exit(), |r| explain(hook, r))
}

fn call_kind(hook: &Hook) -> CallKind {
    match hook.kind {
        HookKind::Eval => CallKind::EvalHook,
        _ => CallKind::Hook,
    }
}

/// `None` stands for an eval hook's single, implicit phase.
fn phases_to_run(hook: &Hook, args: &HookTestArgs) -> Result<Vec<Option<HookPhase>>, CliError> {
    let configured: Vec<HookPhase> = match &hook.kind {
        HookKind::Provider { phases, .. }
        | HookKind::Tool { phases, .. }
        | HookKind::Session { phases } => phases.clone(),
        HookKind::Eval | HookKind::Server(_) => return Ok(vec![None]),
    };
    if args.all_phases {
        return Ok(configured.into_iter().map(Some).collect());
    }
    let Some(name) = &args.phase else {
        return Ok(configured
            .first()
            .map(|p| vec![Some(*p)])
            .unwrap_or_default());
    };
    let valid = phases_of_type(&hook.kind);
    let names: Vec<&str> = valid.iter().map(|p| p.as_str()).collect();
    let phase = valid.iter().find(|p| p.as_str() == name).ok_or_else(|| {
        CliError::Usage(format!(
            "`{name}` is not a phase of hook `{}`; it can take {}",
            hook.name,
            one_of(&names)
        ))
    })?;
    if !configured.contains(phase) {
        write_stderr(&format!(
            "note: hook `{}` is not configured for `{name}`, so in a run it would not see this event",
            hook.name
        ));
    }
    Ok(vec![Some(*phase)])
}

fn phases_of_type(kind: &HookKind) -> &'static [HookPhase] {
    match kind {
        HookKind::Provider { .. } => &[HookPhase::BeforeCall, HookPhase::AfterCall],
        HookKind::Tool { .. } => &[HookPhase::BeforeExecution, HookPhase::AfterExecution],
        HookKind::Session { .. } => &[
            HookPhase::SessionStart,
            HookPhase::SessionUpdate,
            HookPhase::SessionEnd,
        ],
        HookKind::Eval | HookKind::Server(_) => &[],
    }
}

pub(super) fn read_event(given: &str) -> Result<Json, CliError> {
    let text = match given.strip_prefix('@') {
        Some(file) => read_text(file)?,
        None if given == "-" => read_text("-")?,
        None => given.to_string(),
    };
    let value: Json = serde_json::from_str(&text)
        .map_err(|err| CliError::Usage(format!("--event is not valid JSON: {err}")))?;
    if !value.is_object() {
        return Err(CliError::Usage("--event must be a JSON object".into()));
    }
    Ok(value)
}

/// A whole payload (it has `hook`) goes as it is; a bare request or event is wrapped.
fn wrap_event(hook: &Hook, phase: Option<HookPhase>, event: Json) -> Result<Json, CliError> {
    if event.get("hook").is_some() {
        return Ok(event);
    }
    let Some(phase) = phase else {
        return Ok(event); // eval hooks receive the EvalResult itself
    };
    let (hook_type, section) = match (&hook.kind, phase) {
        (HookKind::Provider { .. }, HookPhase::BeforeCall) => ("provider", "request"),
        (HookKind::Tool { .. }, HookPhase::BeforeExecution) => ("tool", "request"),
        (HookKind::Session { .. }, _) => ("session", "event"),
        _ => {
            return Err(CliError::Usage(format!(
                "for `{}` give the whole payload (with `hook`, `phase`, `request` and `response`)",
                phase.as_str()
            )));
        }
    };
    Ok(json!({"hook": hook_type, "phase": phase.as_str(), section: event}))
}

/// A realistic payload: a short support conversation, a tool call with arguments, a
/// session with messages, or an eval result.
fn sample_payload(phase: Option<HookPhase>, config: &RuntimeConfig) -> Json {
    let provider = config.providers.first();
    let provider_id = provider
        .and_then(|p| p.id.clone())
        .unwrap_or_else(|| "mock".into());
    let model = provider
        .and_then(|p| p.model.clone())
        .unwrap_or_else(|| "mock-model".into());
    let messages = vec![
        message(
            "user",
            "Hi, where is my order A-1002? It was due last week.",
        ),
        message("assistant", "Let me look that order up for you."),
    ];
    let request = ProviderRequest {
        provider_id: provider_id.clone(),
        model: model.clone(),
        messages: messages.clone(),
        system_prompt: "You are the support assistant of Acme Outfitters.".into(),
        round: 1,
    };
    let tool = config
        .tools
        .keys()
        .next()
        .cloned()
        .unwrap_or_else(|| "lookup_order".into());
    let call = ToolCallInfo {
        name: tool.clone(),
        args: json!({"order_id": "A-1002"}),
        call_id: format!("call_1_{tool}"),
    };
    match phase {
        None => json!({
            "eval_id": "mentions-order",
            "type": "contains",
            "score": 1.0,
            "passed": true,
            "duration_ms": 3,
            "explanation": "the reply mentions A-1002",
            "details": {"patterns": ["A-"]},
        }),
        Some(p @ HookPhase::BeforeCall) => provider_payload(p, &request, None),
        Some(p @ HookPhase::AfterCall) => {
            let response = ProviderResponse {
                provider_id,
                model,
                message: message(
                    "assistant",
                    "Your order A-1002 is delayed; it should ship on Friday.",
                ),
                latency_ms: 420,
            };
            provider_payload(p, &request, Some(&response))
        }
        Some(p @ HookPhase::BeforeExecution) => tool_payload(p, &call, None),
        Some(p @ HookPhase::AfterExecution) => {
            let result = ToolResultInfo {
                name: tool.clone(),
                call_id: call.call_id.clone(),
                content: json!({"order_id": "A-1002", "status": "delayed"}).to_string(),
                latency_ms: 120,
                is_error: false,
            };
            tool_payload(p, &call, Some(&result))
        }
        Some(p @ (HookPhase::SessionStart | HookPhase::SessionUpdate | HookPhase::SessionEnd)) => {
            let turn_index = match p {
                HookPhase::SessionStart => 0,
                _ => 1,
            };
            let event = SessionInfo {
                session_id: "sess_1".into(),
                conversation_id: "conv_1".into(),
                messages: if turn_index == 0 {
                    Vec::new()
                } else {
                    messages
                },
                turn_index,
            };
            session_payload(p, &event)
        }
    }
}

fn report(
    hook: &Hook,
    phase: Option<HookPhase>,
    outcome: &Outcome,
    duration: std::time::Duration,
    stderr_tail: String,
) -> HookReport {
    let mode = match &hook.kind {
        HookKind::Provider { mode, .. } | HookKind::Tool { mode, .. } => *mode,
        _ => HookMode::Observe,
    };
    let mut report = HookReport {
        hook: hook.name.clone(),
        phase: phase.map_or("eval", HookPhase::as_str).to_string(),
        decision: Decision::Ack,
        action: Decision::Ack.as_str(),
        reason: None,
        metadata: Map::new(),
        output: None,
        duration_ms: duration.as_millis() as u64,
        stderr_tail,
    };
    let failure = match outcome {
        Outcome::Answered(_) => None,
        // An eval hook's stdout is ignored, so only the process itself can fail.
        Outcome::InvalidOutput { .. } if matches!(hook.kind, HookKind::Eval) => None,
        other => Some(other.describe()),
    };
    match (mode, failure) {
        (HookMode::Filter, _) => match step_for(&hook.name, mode, outcome) {
            Step::Allow | Step::Observed => report.decision = Decision::Allow,
            Step::Deny {
                reason, metadata, ..
            } => {
                report.decision = Decision::Deny;
                report.reason = Some(reason);
                report.metadata = metadata;
            }
            Step::Failed { reason, .. } => {
                report.decision = Decision::Failed;
                report.reason = Some(format!("hook `{}` failed: {reason}", hook.name));
            }
        },
        (HookMode::Observe, None) => {}
        (HookMode::Observe, Some(reason)) => {
            report.decision = Decision::Failed;
            report.reason = Some(reason);
        }
    }
    report.action = report.decision.as_str();
    report
}

/// What ran and why it decided so, on stderr.
fn explain(hook: &Hook, r: &HookReport) {
    let mut command = vec![hook.exec.command.display().to_string()];
    command.extend(hook.exec.args.iter().cloned());
    let filter = matches!(
        hook.kind,
        HookKind::Provider {
            mode: HookMode::Filter,
            ..
        } | HookKind::Tool {
            mode: HookMode::Filter,
            ..
        }
    );
    let reason = r.reason.as_deref().unwrap_or_default();
    let verdict = match (r.decision, filter) {
        (Decision::Allow, _) => status("allowed"),
        (Decision::Deny, _) => format!("{}: {reason}", status("denied")),
        (Decision::Failed, true) => format!(
            "{}: {reason}; a filter hook that fails denies, so in a run this would deny",
            status("failed")
        ),
        (Decision::Failed, false) => format!(
            "{}: {reason}; in a run an observer's failure does not change the pipeline but fails the run",
            status("failed")
        ),
        (Decision::Ack, _) => format!("{} (observers cannot block)", status("observed")),
    };
    let mut lines = vec![format!("hook `{}` at {}: {verdict}", r.hook, r.phase)];
    lines.push(format!(
        "  command: {} (in {})",
        command.join(" "),
        hook.exec.working_dir.display()
    ));
    let tail = last_lines(&r.stderr_tail, 10);
    if r.decision == Decision::Failed && !tail.is_empty() {
        lines.push("  stderr (last lines):".into());
        lines.extend(tail.iter().map(|line| format!("    {line}")));
    }
    // A hook that failed is an error, which `-q` does not silence.
    if r.decision == Decision::Failed {
        write_error(&lines.join("\n"));
    } else {
        write_stderr(&lines.join("\n"));
    }
}
