//! `hook test` for `runtime: server` hooks: the handshake, then one interceptor call
//! (or each, with `--all-phases`), with a generated or given payload.

use tokio_util::sync::CancellationToken;

use crate::cli::args::HookTestArgs;
use crate::cli::{CliError, Console, Exit, Unknown, UsageError};
use crate::config::{Hook, Intercept, RuntimeConfig, ServerHook};
use crate::hooks::{HookCalls, HookTrialPlan, run_trial, sample_params};
use crate::report::explain_rpc;

use super::report::{print_decisions, trial_error};
use crate::commands::common::load::read_event;
use crate::commands::common::runtime::InterruptWatch;

/// `hook test NAME` on a JSON-RPC hook: plan, the engine, the decisions.
pub(in crate::commands) fn test(
    hook: &Hook,
    server: &ServerHook,
    args: &HookTestArgs,
    config: &RuntimeConfig,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let mut plan = plan(hook, server, args, config, console)?;
    let watch = InterruptWatch::start()?;
    plan.stop = watch.token();
    let reports = run_trial(&plan).map_err(trial_error)?;
    print_decisions(console, &reports, explain_rpc)
}

/// One method call per intercept, with params built before the server starts.
fn plan(
    hook: &Hook,
    server: &ServerHook,
    args: &HookTestArgs,
    config: &RuntimeConfig,
    console: &mut Console,
) -> Result<HookTrialPlan, CliError> {
    let methods = methods_to_run(hook, server, args, console)?;
    let explicit = args.event.as_deref().map(read_event).transpose()?;
    let calls = methods
        .into_iter()
        .map(|intercept| {
            let params = explicit
                .clone()
                .unwrap_or_else(|| sample_params(intercept, config));
            (intercept, params)
        })
        .collect();
    Ok(HookTrialPlan {
        hook: hook.clone(),
        calls: HookCalls::Rpc(calls),
        stop: CancellationToken::new(),
    })
}

fn methods_to_run(
    hook: &Hook,
    server: &ServerHook,
    args: &HookTestArgs,
    console: &mut Console,
) -> Result<Vec<Intercept>, CliError> {
    if args.all_phases {
        return Ok(server.intercept.clone());
    }
    let Some(name) = &args.phase else {
        return Ok(server.intercept.first().copied().into_iter().collect());
    };
    let intercept = Intercept::from_wire(name).ok_or_else(|| {
        UsageError::unknown(
            name,
            Intercept::NAMES.iter().copied(),
            Unknown::NotA {
                kind: "a JSON-RPC hook method".into(),
                listing: "methods are".into(),
            },
        )
    })?;
    if !server.intercept.contains(&intercept) {
        console.note(&format!(
            "note: hook `{}` does not intercept `{name}`, so in a run it would not be asked",
            hook.name
        ));
    }
    Ok(vec![intercept])
}
