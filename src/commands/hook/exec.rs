//! `hook test NAME` for exec hooks: one event per phase to one hook, its decision on
//! stdout, the why on stderr.

use tokio_util::sync::CancellationToken;

use crate::cli::args::HookTestArgs;
use crate::cli::{CliError, Console, Exit, Unknown, UsageError};
use crate::config::{Hook, HookKind, HookPhase, RuntimeConfig};
use crate::hooks::{HookCalls, HookTrialPlan, run_trial, sample_payload, wrap_event};
use crate::report::explain_exec;

use super::report::{print_decisions, trial_error};
use crate::commands::common::load::read_event;
use crate::commands::common::runtime::InterruptWatch;

/// `hook test NAME` on an exec hook: plan, the engine, the decisions.
pub(in crate::commands) fn test(
    hook: &Hook,
    args: &HookTestArgs,
    config: &RuntimeConfig,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let mut plan = plan(hook, args, config, console)?;
    let watch = InterruptWatch::start()?;
    plan.stop = watch.token();
    let reports = run_trial(&plan).map_err(trial_error)?;
    print_decisions(console, &reports, |r| explain_exec(hook, r))
}

/// One payload per phase, all built before any process starts.
fn plan(
    hook: &Hook,
    args: &HookTestArgs,
    config: &RuntimeConfig,
    console: &mut Console,
) -> Result<HookTrialPlan, CliError> {
    let phases = phases_to_run(hook, args, console)?;
    let explicit = args.event.as_deref().map(read_event).transpose()?;
    let calls = phases
        .into_iter()
        .map(|phase| {
            let payload = match &explicit {
                Some(event) => wrap_event(hook, phase, event.clone())
                    .map_err(|e| UsageError::bad_value("--event", None, e.to_string()))?,
                None => sample_payload(phase, config),
            };
            Ok((phase, payload))
        })
        .collect::<Result<_, CliError>>()?;
    Ok(HookTrialPlan {
        hook: hook.clone(),
        calls: HookCalls::Exec(calls),
        stop: CancellationToken::new(),
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
            UsageError::unknown(
                name,
                names,
                Unknown::NotA {
                    kind: format!("a phase of hook `{}`", hook.name),
                    listing: "it can take".into(),
                },
            )
        })?;
    if !configured.contains(&phase) {
        console.note(&format!(
            "note: hook `{}` is not configured for `{name}`, so in a run it would not see this event",
            hook.name
        ));
    }
    Ok(vec![Some(phase)])
}
