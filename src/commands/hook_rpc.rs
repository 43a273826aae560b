//! `hook test` for `runtime: server` hooks: the handshake, then one interceptor call
//! (or each, with `--all-phases`), with a generated or given payload.

use std::time::Instant;

use serde_json::Value as Json;

use crate::cli::args::HookTestArgs;
use crate::cli::style::status;
use crate::cli::{CliError, Console, Exit};
use crate::config::{Hook, Intercept, RuntimeConfig, ServerHook};
use crate::doc::one_of;
use crate::hooks::{Action, Approval, HookDecision, Intercepted, RpcHook, on_failure};

use super::hook_report::{HookReport, explain_line, print_decisions};
use super::hook_samples;
use super::load::read_event;
use super::runtime::{interrupted, with_runtime};

/// What `hook test` will ask the server: one method call per intercept, with params
/// built before the server starts.
struct Plan<'h> {
    hook: &'h Hook,
    server: &'h ServerHook,
    calls: Vec<(Intercept, Json)>,
}

/// `hook test NAME` on a JSON-RPC hook.
pub fn test(
    hook: &Hook,
    server: &ServerHook,
    args: &HookTestArgs,
    config: &RuntimeConfig,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let plan = plan(hook, server, args, config, console)?;
    let reports = execute(&plan)?;
    print_decisions(console, &reports, |console, r| {
        let mut line = format!("hook `{}` at {}: {}", r.hook, r.phase, status(r.action));
        if let Some(reason) = &r.reason {
            line.push_str(&format!(": {reason}"));
        }
        explain_line(console, r, &line);
    })
}

fn plan<'h>(
    hook: &'h Hook,
    server: &'h ServerHook,
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
                .unwrap_or_else(|| hook_samples::params(intercept, config));
            (intercept, params)
        })
        .collect();
    Ok(Plan {
        hook,
        server,
        calls,
    })
}

/// The handshake, then each call in turn; the server is shut down however it ends.
fn execute(plan: &Plan) -> Result<Vec<HookReport>, CliError> {
    let hook = plan.hook;
    let Some(rpc) = RpcHook::new(hook) else {
        return Err(CliError::Usage(format!(
            "hook `{}` is not a server hook",
            hook.name
        )));
    };
    with_runtime(|| async {
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
            for (intercept, params) in &plan.calls {
                let started = Instant::now();
                let answer = rpc.intercept(*intercept, params.clone()).await;
                let mut report = judge(hook, plan.server, *intercept, answer, started);
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
        CliError::Usage(format!(
            "`{name}` is not a JSON-RPC hook method; methods are {}",
            one_of(Intercept::NAMES)
        ))
    })?;
    if !server.intercept.contains(&intercept) {
        console.note(&format!(
            "note: hook `{}` does not intercept `{name}`, so in a run it would not be asked",
            hook.name
        ));
    }
    Ok(vec![intercept])
}

fn failed_start(hook: &Hook, why: String, started: Instant, stderr_tail: String) -> HookReport {
    let mut report = HookReport::new(
        &hook.name,
        "hook.hello",
        HookDecision::Failed,
        started.elapsed().as_millis() as u64,
    );
    report.reason = Some(why);
    report.stderr_tail = stderr_tail;
    report
}

/// What the server answered, as `hook test` reports it.
fn judge(
    hook: &Hook,
    server: &ServerHook,
    intercept: Intercept,
    answer: Intercepted,
    started: Instant,
) -> HookReport {
    let mut report = HookReport::new(
        &hook.name,
        intercept.as_str(),
        answer.decision(),
        started.elapsed().as_millis() as u64,
    );
    report.action = answer.answer_name();
    match answer {
        Intercepted::Approval(Approval::Approved) => {}
        Intercepted::Approval(Approval::Denied { reason }) => report.reason = Some(reason),
        Intercepted::Action(action) => match action {
            Action::Continue => {}
            Action::Modify(replacement) => report.output = Some(replacement),
            Action::Respond { result, .. } => report.output = Some(result),
            Action::DenyTool { reason }
            | Action::AbortTurn { reason }
            | Action::HardAbort { reason } => report.reason = Some(reason),
        },
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
