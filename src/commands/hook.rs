//! `hook test NAME` for exec hooks: one event per phase to one hook, its decision on
//! stdout, the why on stderr.

use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use crate::cli::args::HookTestArgs;
use crate::cli::style::status;
use crate::cli::{CliError, Console, Exit};
use crate::config::{Hook, HookKind, HookMode, HookPhase, RuntimeConfig};
use crate::doc::one_of;
use crate::exec::last_lines;
use crate::hooks::{ExecHook, HookDecision};

use super::hook_call::{call_exec, wrap_event};
use super::hook_report::{HookReport, explain_line, print_decisions};
use super::hook_samples;
use super::load::read_event;
use super::runtime::{interrupted, with_runtime};

/// What `hook test` will send: one payload per phase, all built before any process
/// starts. `None` stands for an eval hook's single, implicit phase.
struct Plan<'h> {
    hook: &'h Hook,
    calls: Vec<(Option<HookPhase>, Json)>,
}

/// `hook test NAME` on an exec hook.
pub(super) fn test(
    hook: &Hook,
    args: &HookTestArgs,
    config: &RuntimeConfig,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let plan = plan(hook, args, config, console)?;
    let reports = execute(&plan)?;
    print_decisions(console, &reports, |console, r| explain(console, hook, r))
}

fn plan<'h>(
    hook: &'h Hook,
    args: &HookTestArgs,
    config: &RuntimeConfig,
    console: &mut Console,
) -> Result<Plan<'h>, CliError> {
    let phases = phases_to_run(hook, args, console)?;
    let explicit = args.event.as_deref().map(read_event).transpose()?;
    let calls = phases
        .into_iter()
        .map(|phase| {
            let payload = match &explicit {
                Some(event) => wrap_event(hook, phase, event.clone())
                    .map_err(|e| CliError::Usage(e.to_string()))?,
                None => hook_samples::payload(phase, config),
            };
            Ok((phase, payload))
        })
        .collect::<Result<_, CliError>>()?;
    Ok(Plan { hook, calls })
}

/// Sends each payload in turn, a process (or server) for each call; an interrupt
/// stops the hook and the command.
fn execute(plan: &Plan) -> Result<Vec<HookReport>, CliError> {
    let hook = plan.hook;
    with_runtime(|| async {
        let cancel = CancellationToken::new();
        let mut reports = Vec::new();
        for (phase, payload) in &plan.calls {
            let exec = ExecHook::new(hook.clone());
            let call = call_exec(&exec, *phase, payload, &cancel);
            tokio::pin!(call);
            let report = tokio::select! {
                report = &mut call => report,
                () = interrupted() => {
                    cancel.cancel();
                    call.await;
                    exec.shutdown().await;
                    return Err(CliError::Interrupted);
                }
            };
            exec.shutdown().await;
            reports.push(report);
        }
        Ok(reports)
    })
}

/// `None` stands for an eval hook's single, implicit phase.
fn phases_to_run(
    hook: &Hook,
    args: &HookTestArgs,
    console: &mut Console,
) -> Result<Vec<Option<HookPhase>>, CliError> {
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
    let valid = hook.kind.hook_type().map_or(&[][..], |t| t.phases());
    let names: Vec<&str> = valid.iter().map(|p| p.as_str()).collect();
    let phase = HookPhase::from_wire(name)
        .filter(|p| valid.contains(p))
        .ok_or_else(|| {
            CliError::Usage(format!(
                "`{name}` is not a phase of hook `{}`; it can take {}",
                hook.name,
                one_of(&names)
            ))
        })?;
    if !configured.contains(&phase) {
        console.note(&format!(
            "note: hook `{}` is not configured for `{name}`, so in a run it would not see this event",
            hook.name
        ));
    }
    Ok(vec![Some(phase)])
}

/// What ran and why it decided so, on stderr.
fn explain(console: &mut Console, hook: &Hook, r: &HookReport) {
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
        (HookDecision::Allow, _) => status("allowed"),
        (HookDecision::Deny, _) => format!("{}: {reason}", status("denied")),
        (HookDecision::Failed, true) => format!(
            "{}: {reason}; a filter hook that fails denies, so in a run this would deny",
            status("failed")
        ),
        (HookDecision::Failed, false) => format!(
            "{}: {reason}; in a run an observer's failure does not change the pipeline but fails the run",
            status("failed")
        ),
        (HookDecision::Ack, _) => format!("{} (observers cannot block)", status("observed")),
    };
    let mut lines = vec![format!("hook `{}` at {}: {verdict}", r.hook, r.phase)];
    lines.push(format!(
        "  command: {} (in {})",
        command.join(" "),
        hook.exec.working_dir.display()
    ));
    let tail = last_lines(&r.stderr_tail, 10);
    if r.decision == HookDecision::Failed && !tail.is_empty() {
        lines.push("  stderr (last lines):".into());
        lines.extend(tail.iter().map(|line| format!("    {line}")));
    }
    explain_line(console, r, &lines.join("\n"));
}
