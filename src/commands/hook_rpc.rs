//! `hook test` for `runtime: server` hooks: the handshake, then one interceptor call
//! (or each, with `--all-phases`), with a generated or given payload.

use serde_json::Value as Json;

use crate::cli::args::HookTestArgs;
use crate::cli::{CliError, Console, Exit, Unknown, UsageError};
use crate::config::{Hook, Intercept, RuntimeConfig, ServerHook};
use crate::hooks::{HookReport, RpcHook, call_rpc, sample_params, start_rpc};
use crate::report::explain_rpc;

use super::hook_report::print_decisions;
use super::load::read_event;
use super::runtime::{interrupted, with_runtime};

/// What `hook test` will ask the server: one method call per intercept, with params
/// built before the server starts.
struct Plan<'h> {
    hook: &'h Hook,
    calls: Vec<(Intercept, Json)>,
}

/// `hook test NAME` on a JSON-RPC hook.
pub(super) fn test(
    hook: &Hook,
    server: &ServerHook,
    args: &HookTestArgs,
    config: &RuntimeConfig,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let plan = plan(hook, server, args, config, console)?;
    let reports = execute(&plan)?;
    print_decisions(console, &reports, explain_rpc)
}

fn plan<'h>(
    hook: &'h Hook,
    server: &ServerHook,
    args: &HookTestArgs,
    config: &RuntimeConfig,
    console: &mut Console,
) -> Result<Plan<'h>, CliError> {
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
    Ok(Plan { hook, calls })
}

/// The handshake, then each call in turn; the server is shut down however it ends.
fn execute(plan: &Plan) -> Result<Vec<HookReport>, CliError> {
    let hook = plan.hook;
    let Some(rpc) = RpcHook::new(hook) else {
        return Err(
            UsageError::Unusable(format!("hook `{}` is not a server hook", hook.name)).into(),
        );
    };
    with_runtime(|| async {
        let work = async {
            if let Err(failed) = start_rpc(&rpc).await {
                return Ok(vec![failed]);
            }
            let mut reports = Vec::new();
            for (intercept, params) in &plan.calls {
                reports.push(call_rpc(&rpc, *intercept, params.clone()).await);
            }
            Ok::<_, CliError>(reports)
        };
        let outcome = tokio::select! {
            reports = work => reports,
            () = interrupted() => Err(CliError::Interrupted),
        };
        rpc.shutdown().await;
        outcome
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
