//! The fuzz probe and the output contract: a tool called with arguments generated
//! from its schema, through the same caller a run uses. On valid arguments a crash,
//! a non-JSON answer or a hang fails; on invalid ones an error answer passes and a
//! crash fails. A failing input is shrunk and given back as an `invoke-tool`
//! command.

use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use crate::exec::Outcome;
use crate::tool_caller::ToolCaller;
use crate::tools::{ArgsSchema, ToolReport, ToolStatus};

use super::fuzz::{Case, Fuzzer, invoke_command};
use super::line;
use super::subject::{LineServer, Options};
use super::verdict::with_stderr;
use super::{Probe, ProbeResult};

/// Oracle calls a shrink may make; fewer when each failing call waits out a deadline.
const SHRINK_BUDGET: usize = 150;
const SHRINK_BUDGET_HANGS: usize = 8;

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
}

/// What fuzzing has seen so far, over every target.
#[derive(Default)]
struct Tally {
    calls: usize,
    valid: usize,
    invalid: usize,
    /// Results held to an output schema.
    checked_results: usize,
    /// Targets whose ordinary call worked, so they were fuzzed.
    fuzzed: usize,
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
        let mut fuzzer = match ready(target, options, &cancel).await {
            Ok(Some(fuzzer)) => fuzzer,
            Ok(None) => continue,
            Err(failure) => {
                tally.fuzz_failure = Some(failure);
                break;
            }
        };
        tally.fuzzed += 1;
        fuzz_target(target, &mut fuzzer, options, &cancel, &mut tally).await;
        if tally.fuzz_failure.is_some() {
            break;
        }
    }
    verdicts(tally, targets, options, started.elapsed())
}

/// A fuzzer for the target's schema, once its ordinary call works. A tool that fails
/// its ordinary call fails a probe of its own already, so what fuzzing finds is what
/// depends on the input: it is skipped (`None`), and only when that probe is not run
/// does this one say so. A schema no arguments can be generated from fails the probe.
async fn ready(
    target: &FuzzTarget<'_>,
    options: &Options,
    cancel: &CancellationToken,
) -> Result<Option<Fuzzer>, ProbeResult> {
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
    let Some(why) = failure(&target.caller.call(&fuzzer.example(), cancel).await, true) else {
        return Ok(Some(fuzzer));
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
/// shrunk, in `tally.fuzz_failure`); valid results are held to the output schema.
async fn fuzz_target(
    target: &FuzzTarget<'_>,
    fuzzer: &mut Fuzzer,
    options: &Options,
    cancel: &CancellationToken,
    tally: &mut Tally,
) {
    let output = target.output.map(ArgsSchema::new);
    for _ in 0..options.cases {
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
        let is_valid = case.valid;
        if let Some(why) = failure(&report, is_valid) {
            let hangs = report.status == ToolStatus::Timeout;
            let judge = |report: &ToolReport| failure(report, is_valid);
            let found = shrunk(
                target,
                case,
                Probe::Fuzz,
                &judge,
                why,
                hangs,
                options,
                cancel,
            );
            tally.fuzz_failure = Some(found.await);
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
                false,
                options,
                cancel,
            );
            tally.contract = Some(found.await);
        }
    }
}

/// The fuzz verdict (none when no target could be fuzzed and nothing failed), and
/// the output contract's when a target declares an output schema.
fn verdicts(
    tally: Tally,
    targets: &[FuzzTarget<'_>],
    options: &Options,
    took: std::time::Duration,
) -> Vec<ProbeResult> {
    if tally.fuzzed == 0 && tally.fuzz_failure.is_none() {
        return Vec::new();
    }
    let Tally {
        calls,
        valid,
        invalid,
        checked_results,
        ..
    } = tally;
    let mut results = vec![
        tally
            .fuzz_failure
            .unwrap_or_else(|| {
                ProbeResult::pass(
                    Probe::Fuzz,
                    format!(
                        "{calls} generated calls ({valid} valid, {invalid} invalid, seed {}): no crash, hang or invalid answer",
                        options.seed
                    ),
                )
            })
            .took(took),
    ];
    if targets.iter().any(|t| t.output.is_some()) {
        results.push(
            tally
                .contract
                .unwrap_or_else(|| {
                    ProbeResult::pass(
                        Probe::OutputContract,
                        format!("{checked_results} results matched the output schema"),
                    )
                })
                .took(took),
        );
    }
    results
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
#[allow(clippy::too_many_arguments)]
async fn shrunk(
    target: &FuzzTarget<'_>,
    case: Case,
    probe: Probe,
    judge: &dyn Fn(&ToolReport) -> Option<String>,
    why: String,
    hangs: bool,
    options: &Options,
    cancel: &CancellationToken,
) -> ProbeResult {
    let valid = case.valid;
    let kind = match (valid, &case.broken) {
        (true, _) => "valid arguments".to_string(),
        (false, Some(broken)) => format!("invalid arguments ({broken})"),
        (false, None) => "invalid arguments".to_string(),
    };
    let budget = if hangs {
        SHRINK_BUDGET_HANGS
    } else {
        SHRINK_BUDGET
    };
    let still_fails =
        |args: Json| async move { judge(&target.caller.call(&args, cancel).await).is_some() };
    let smallest = case.shrink(still_fails, budget).await;
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
