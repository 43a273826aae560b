//! The fuzz probe and the output contract: a tool called with arguments generated
//! from its schema, through the same caller a run uses. On valid arguments a crash or
//! a non-JSON answer fails; a call that outlives its deadline where the ordinary one
//! answered is a tool whose time grows with its input (a warning). Schema-breaking
//! arguments, which a run never sends, go only with `--invalid-args`: there an error
//! answer passes and a crash is advice (or a failure, when asked). A failing input is
//! shrunk and given back as an `invoke-tool` command. Tools that may write are not
//! called unless allowed; each says why.

use std::time::Duration;

use serde_json::Value as Json;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::exec::Outcome;
use crate::tool_caller::ToolCaller;
use crate::tools::{ArgsSchema, ToolReport, ToolStatus};

use super::fuzz::{Case, Fuzzer, invoke_command};
use super::line;
use super::subject::{LineServer, Options};
use super::verdict::{exercised_nothing, with_stderr};
use super::{Probe, ProbeResult};

/// Oracle calls a shrink may make.
const SHRINK_BUDGET: usize = 150;
/// How long one tool is fuzzed: a tool whose calls are slow by nature gets fewer
/// cases rather than holding the whole check.
const TARGET_TIME: Duration = Duration::from_secs(10);

/// How the fuzzer calls a tool: through the engine's caller, or (a server tool) in
/// a process per call.
pub(super) enum Caller<'a> {
    Engine(&'a ToolCaller),
    Line(&'a LineServer),
}

impl Caller<'_> {
    async fn call(&self, args: &Json, cancel: &CancellationToken) -> ToolReport {
        match self {
            Caller::Engine(caller) => caller.call(args, None, cancel).await,
            Caller::Line(subject) => line::call_once(subject, args).await,
        }
    }
}

/// One tool to fuzz: how to call it, the name `invoke-tool` knows it by, and its
/// schemas.
pub(super) struct FuzzTarget<'a> {
    pub caller: Caller<'a>,
    pub name: String,
    pub input: &'a Json,
    pub output: Option<&'a Json>,
    /// Why the tool is not called with generated arguments, when it is not.
    pub withheld: Option<String>,
}

/// What fuzzing has seen so far, over every target.
#[derive(Default)]
struct Tally {
    calls: usize,
    valid: usize,
    invalid: usize,
    /// Calls answered with an error (`isError`, `{"error": …}`).
    errors: usize,
    /// Results held to an output schema.
    checked_results: usize,
    /// Targets whose ordinary call worked, so they were fuzzed.
    fuzzed: usize,
    /// Targets not called, each with why.
    withheld: Vec<String>,
    /// Targets whose fuzzing ran out of its time, with the cases they got.
    out_of_time: Vec<String>,
    /// Advice: a slow tool, a crash on arguments a run never sends.
    warnings: Vec<ProbeResult>,
    /// The fuzz probe's failure; fuzzing stops at the first.
    fuzz_failure: Option<ProbeResult>,
    /// The output contract's failure; the first one found is kept.
    contract: Option<ProbeResult>,
}

/// The fuzz verdict, and an output-contract verdict when a target declares an output
/// schema.
pub(super) async fn fuzz(targets: &[FuzzTarget<'_>], options: &Options) -> Vec<ProbeResult> {
    let started = tokio::time::Instant::now();
    let mut tally = Tally::default();
    let cancel = CancellationToken::new();
    for target in targets {
        if let Some(why) = &target.withheld {
            tally.withheld.push(format!("`{}` ({why})", target.name));
            continue;
        }
        let (mut fuzzer, ordinary) = match ready(target, options, &cancel).await {
            Ok(Some(ready)) => ready,
            Ok(None) => continue,
            Err(failure) => {
                tally.fuzz_failure = Some(failure);
                break;
            }
        };
        tally.fuzzed += 1;
        fuzz_target(target, &mut fuzzer, ordinary, options, &cancel, &mut tally).await;
        if tally.fuzz_failure.is_some() {
            break;
        }
    }
    verdicts(tally, targets, options, started.elapsed())
}

/// The ordinary call's arguments and how long it took.
type Ordinary = (Json, Duration);

/// A fuzzer for the target's schema, once its ordinary call works (with that call).
/// A tool that fails its ordinary call fails a probe of its own already, so what
/// fuzzing finds is what depends on the input: it is skipped (`None`), and only when
/// that probe is not run does this one say so. A schema no arguments can be generated
/// from fails the probe.
async fn ready(
    target: &FuzzTarget<'_>,
    options: &Options,
    cancel: &CancellationToken,
) -> Result<Option<(Fuzzer, Ordinary)>, ProbeResult> {
    let fuzzer = Fuzzer::new(target.input, options.seed).map_err(|err| {
        let hint = if err.past_a_limit() {
            "keep the schema within the sizes check generates (see `check` in the guide)"
        } else {
            "give the tool a schema that arguments can satisfy"
        };
        not_fuzzed(
            &target.name,
            format!("no arguments can be generated from its schema: {err}"),
            hint,
        )
    })?;
    let fuzzer = match options.invalid_args {
        Some(_) => fuzzer,
        None => fuzzer.valid_only(),
    };
    let started = Instant::now();
    let answer = target.caller.call(&fuzzer.example(), cancel).await;
    let Some(why) = failure(&answer, true) else {
        let ordinary = (fuzzer.example(), started.elapsed());
        return Ok(Some((fuzzer, ordinary)));
    };
    if options.only.is_none() {
        return Ok(None);
    }
    Err(not_fuzzed(
        &target.name,
        format!("its ordinary call with {} fails: {why}", fuzzer.example()),
        "make the ordinary call succeed first",
    ))
}

/// The target called with each generated case until one fails the fuzz probe (then
/// shrunk, in `tally.fuzz_failure`), gives advice, or its time runs out; valid results
/// are held to the output schema.
async fn fuzz_target(
    target: &FuzzTarget<'_>,
    fuzzer: &mut Fuzzer,
    (ordinary, ordinary_took): Ordinary,
    options: &Options,
    cancel: &CancellationToken,
    tally: &mut Tally,
) {
    let output = target.output.map(ArgsSchema::new);
    let started = Instant::now();
    for done in 0..options.cases {
        if started.elapsed() >= TARGET_TIME {
            tally.out_of_time.push(format!(
                "`{}` ({done} of {} cases in {} s)",
                target.name,
                options.cases,
                TARGET_TIME.as_secs()
            ));
            return;
        }
        let case = fuzzer.next_case();
        // A run only ever sends an object: arguments of another type say nothing
        // about the tool, and `invoke-tool` could not repeat them.
        if !case.args.is_object() {
            continue;
        }
        let report = target.caller.call(&case.args, cancel).await;
        tally.calls += 1;
        if case.valid {
            tally.valid += 1;
        } else {
            tally.invalid += 1;
        }
        if report.status == ToolStatus::Error || answered_error(&report) {
            tally.errors += 1;
        }
        let is_valid = case.valid;
        if let Some(why) = failure(&report, is_valid) {
            // The ordinary call answered in time: this one asked for more work.
            if report.status == ToolStatus::Timeout && is_valid {
                tally.warnings.push(grows_with_input(
                    target,
                    &ordinary,
                    ordinary_took,
                    &case.args,
                    why,
                    options,
                ));
                return;
            }
            let judge = |report: &ToolReport| failure(report, is_valid);
            let found = shrunk(target, case, Probe::Fuzz, &judge, why, options, cancel).await;
            match (is_valid, options.invalid_args) {
                (false, Some(false)) => tally.warnings.push(as_advice(found)),
                _ => tally.fuzz_failure = Some(found),
            }
            return;
        }
        let Some(schema) = output
            .as_ref()
            .filter(|_| is_valid && report.result.is_some())
        else {
            continue;
        };
        tally.checked_results += 1;
        if tally.contract.is_none()
            && let Some(why) = breaks_contract(schema, &report)
        {
            let judge = |report: &ToolReport| breaks_contract(schema, report);
            let found = shrunk(
                target,
                case,
                Probe::OutputContract,
                &judge,
                why,
                options,
                cancel,
            );
            tally.contract = Some(found.await);
        }
    }
}

/// A call that ran out of its deadline where the ordinary one answered: the tool's
/// time grows with what it is asked for, which is advice, not a hang.
fn grows_with_input(
    target: &FuzzTarget<'_>,
    ordinary: &Json,
    took: Duration,
    args: &Json,
    why: String,
    options: &Options,
) -> ProbeResult {
    ProbeResult::warn(
        Probe::Fuzz,
        format!(
            "`{}`: its time grows with its input: {ordinary} answered in {} ms, {args} did not ({why})",
            target.name,
            took.as_millis()
        ),
        "bound the inputs that cost time in the schema (`maximum`, `maxLength`), or raise timeout_ms",
    )
    .reproduced_by(invoke_command(&options.config_path, None, &target.name, args))
}

/// A failure on arguments a run never sends, given as advice.
fn as_advice(found: ProbeResult) -> ProbeResult {
    ProbeResult {
        passed: true,
        warning: true,
        ..found
    }
}

/// The fuzz verdict (none when no target could be fuzzed, none was withheld and
/// nothing failed), and the output contract's when a target declares an output schema.
fn verdicts(
    tally: Tally,
    targets: &[FuzzTarget<'_>],
    options: &Options,
    took: std::time::Duration,
) -> Vec<ProbeResult> {
    if tally.fuzzed == 0 && tally.fuzz_failure.is_none() && tally.warnings.is_empty() {
        if tally.withheld.is_empty() {
            return Vec::new();
        }
        let why = format!("not called: {}", tally.withheld.join(", "));
        let mut results = vec![ProbeResult::skip(Probe::Fuzz, why.clone())];
        if targets.iter().any(|t| t.output.is_some()) {
            results.push(ProbeResult::skip(Probe::OutputContract, why));
        }
        return results;
    }
    let contract = contract_verdict(&tally, targets);
    let fuzz = match tally.fuzz_failure {
        Some(failure) => failure,
        None => fuzz_verdict(tally, options),
    };
    std::iter::once(fuzz)
        .chain(contract)
        .map(|r| r.took(took))
        .collect()
}

/// The fuzz probe's pass, a warning when something needs a look: advice found, or
/// every call answered an error (nothing was exercised). Withheld and slow tools are
/// named.
fn fuzz_verdict(tally: Tally, options: &Options) -> ProbeResult {
    let Tally {
        calls,
        valid,
        invalid,
        errors,
        withheld,
        out_of_time,
        mut warnings,
        ..
    } = tally;
    let mut reason = match options.invalid_args {
        Some(_) => format!(
            "{calls} generated calls ({valid} valid, {invalid} invalid, seed {}): no crash, hang or invalid answer",
            options.seed
        ),
        None => format!(
            "{calls} generated calls (seed {}): no crash, hang or invalid answer",
            options.seed
        ),
    };
    if !out_of_time.is_empty() {
        reason.push_str(&format!("; stopped on time: {}", out_of_time.join(", ")));
    }
    if !withheld.is_empty() {
        reason.push_str(&format!("; not called: {}", withheld.join(", ")));
    }
    if !warnings.is_empty() {
        let first = warnings.remove(0);
        let more = match warnings.len() {
            0 => String::new(),
            n => format!(" (and {n} more)"),
        };
        return ProbeResult {
            reason: format!("{}{more}; {reason}", first.reason),
            ..first
        };
    }
    if calls > 0 && errors == calls {
        return exercised_nothing(Probe::Fuzz, &format!("{calls} generated calls"), &reason);
    }
    ProbeResult::pass(Probe::Fuzz, reason)
}

/// The output contract's verdict, when a target declares an output schema.
fn contract_verdict(tally: &Tally, targets: &[FuzzTarget<'_>]) -> Option<ProbeResult> {
    if !targets.iter().any(|t| t.output.is_some()) {
        return None;
    }
    if let Some(found) = &tally.contract {
        return Some(found.clone());
    }
    Some(match tally.checked_results {
        0 => ProbeResult::warn(
            Probe::OutputContract,
            "no call gave a result to hold to the output schema: the probe exercised nothing",
            "give the schema what a valid call needs, so generated arguments get results",
        ),
        n => ProbeResult::pass(
            Probe::OutputContract,
            format!("{n} results matched the output schema"),
        ),
    })
}

/// Why a call is a failure, if it is: a crash, an invalid answer or a hang. An error
/// answer is a tool's own business on valid arguments and the right answer to
/// invalid ones, where it may come with a non-zero exit too.
fn failure(report: &ToolReport, valid: bool) -> Option<String> {
    let why = || {
        with_stderr(
            report.error.clone().unwrap_or_default(),
            &report.stderr_tail,
        )
    };
    match report.status {
        ToolStatus::Failed if !valid && answered_error(report) => None,
        ToolStatus::Failed | ToolStatus::Timeout => Some(why()),
        ToolStatus::Ok | ToolStatus::Error | ToolStatus::Pending => None,
    }
}

/// A process that exited non-zero with `{"error": …}` as its whole answer.
fn answered_error(report: &ToolReport) -> bool {
    matches!(report.outcome, Outcome::ExitedNonZero { .. })
        && serde_json::from_str::<Json>(&report.stdout_head)
            .is_ok_and(|answer| answer.get("error").is_some_and(|e| !e.is_null()))
}

/// How a result breaks the output schema, if it does.
fn breaks_contract(schema: &ArgsSchema, report: &ToolReport) -> Option<String> {
    let result: Json = serde_json::from_str(report.result.as_ref()?.get()).unwrap_or(Json::Null);
    let err = schema.check(&result).into_iter().next()?;
    Some(format!("the result breaks the output schema: {err}"))
}

/// The failure of `probe` on `case`, shrunk to the smallest input that `judge` still
/// finds at fault, with the command that shows it again.
async fn shrunk(
    target: &FuzzTarget<'_>,
    case: Case,
    probe: Probe,
    judge: &dyn Fn(&ToolReport) -> Option<String>,
    why: String,
    options: &Options,
    cancel: &CancellationToken,
) -> ProbeResult {
    let valid = case.valid;
    let kind = match (valid, &case.broken) {
        (true, _) => "valid arguments".to_string(),
        (false, Some(broken)) => format!("invalid arguments ({broken})"),
        (false, None) => "invalid arguments".to_string(),
    };
    let still_fails =
        |args: Json| async move { judge(&target.caller.call(&args, cancel).await).is_some() };
    let smallest = case.shrink(still_fails, SHRINK_BUDGET).await;
    let why = judge(&target.caller.call(&smallest, cancel).await).unwrap_or(why);
    let hint = match (probe, valid) {
        (Probe::OutputContract, _) => {
            "return results of the shape the output schema declares, or fix the schema"
        }
        (_, true) => {
            "handle every input the schema allows; answer {\"error\": …} for what the tool cannot do"
        }
        (_, false) => "answer {\"error\": …} for arguments that break the schema, never crash",
    };
    ProbeResult::fail(
        probe,
        format!("`{}` on {kind} {smallest}: {why}", target.name),
        hint,
    )
    .reproduced_by(invoke_command(
        &options.config_path,
        None,
        &target.name,
        &smallest,
    ))
}

fn not_fuzzed(tool: &str, why: String, hint: &str) -> ProbeResult {
    ProbeResult::fail(Probe::Fuzz, format!("`{tool}` was not fuzzed: {why}"), hint)
}
