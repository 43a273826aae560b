use std::collections::BTreeMap;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::evals::{EvalResult, EvalStatus};
use crate::session::TurnEnd;

use super::record::Failure;
use super::{ModelTotals, RunRecord};

/// One testsuite for the run: a testcase per turn (a hook's denial fails it, an
/// extension failure errors it) and one per eval result (a failing score is a
/// `<failure>`, an eval that could not score an `<error>`). Loading warnings are the
/// suite's `<system-err>`.
pub(crate) fn junit_report(
    record: &RunRecord,
    suite_name: &str,
) -> Result<String, quick_junit::SerializeError> {
    let mut suite = TestSuite::new(suite_name);
    suite.set_time(Duration::from_millis(record.duration_ms));
    model_properties(&mut suite, &ModelTotals::of(record.events.iter()));
    library_properties(&mut suite, record.library_prompt.as_ref());
    // Failures before the first turn belong to it. Sorted out once, so each turn
    // takes its own without reading everyone else's.
    let mut by_turn: BTreeMap<u32, Vec<Failure>> = BTreeMap::new();
    for failure in record.failures() {
        by_turn
            .entry(failure.turn.max(1))
            .or_default()
            .push(failure);
    }
    for (i, end) in record.turns.iter().enumerate() {
        let turn = i as u32 + 1;
        let failures = by_turn.remove(&turn).unwrap_or_default();
        let status = if failures.is_empty() {
            turn_status(end)
        } else {
            failure_status(&failures)
        };
        let mut case = TestCase::new(format!("turn {turn}"), status);
        case.set_classname(format!("{}.turns", record.prompt));
        if let Some(stderr) = failure_stderr(&failures) {
            case.set_system_err(stderr);
        }
        suite.add_test_case(case);
    }
    let last_turn = record.turns.len() as u32;
    let stray: Vec<Failure> = record
        .failures()
        .filter(|f| f.turn.max(1) > last_turn)
        .collect();
    if !stray.is_empty() {
        let mut case = TestCase::new("extensions", failure_status(&stray));
        case.set_classname(format!("{}.turns", record.prompt));
        if let Some(stderr) = failure_stderr(&stray) {
            case.set_system_err(stderr);
        }
        suite.add_test_case(case);
    }
    for eval in record.evals() {
        let status = eval_status(&eval);
        let name = match eval.turn {
            Some(turn) => format!("{} (turn {turn})", eval.eval_id),
            None => eval.eval_id.clone(),
        };
        let mut case = TestCase::new(name, status);
        case.set_classname(format!("{}.evals", record.prompt));
        case.set_time(Duration::from_millis(eval.duration_ms));
        if let Some(score) = eval.score {
            case.set_system_out(format!("score: {score}\n{}", eval.explanation));
        }
        suite.add_test_case(case);
    }
    if record.warnings.iter().next().is_some() {
        // One `FILE:LINE:COL: warning: message` line each, as validate prints them.
        suite.set_system_err(record.warnings.to_string());
    }
    let mut report = Report::new("promptexec");
    report.add_test_suite(suite);
    report.to_string()
}

/// An eval result as a testcase's status: a failing gate is a `<failure>`, an eval
/// that could not score an `<error>`.
pub(super) fn eval_status(eval: &EvalResult) -> TestCaseStatus {
    match eval.status {
        EvalStatus::Passed | EvalStatus::Measured => TestCaseStatus::success(),
        EvalStatus::Failed => non_success(
            NonSuccessKind::Failure,
            format!(
                "score {} is outside the threshold: {}",
                eval.score.unwrap_or_default(),
                eval.explanation
            ),
        ),
        EvalStatus::Error => non_success(
            NonSuccessKind::Error,
            eval.error.clone().unwrap_or_default(),
        ),
        EvalStatus::Skipped => {
            let mut status = TestCaseStatus::skipped();
            status.set_message(eval.explanation.clone());
            status
        }
    }
}

fn turn_status(end: &TurnEnd) -> TestCaseStatus {
    match end {
        TurnEnd::Answered | TurnEnd::RoundLimit => TestCaseStatus::success(),
        TurnEnd::Aborted { hook, reason } | TurnEnd::HardAborted { hook, reason } => {
            non_success(NonSuccessKind::Failure, format!("hook `{hook}`: {reason}"))
        }
        TurnEnd::Pending { tool, message, .. } => non_success(
            NonSuccessKind::Failure,
            format!("tool `{tool}` waits on a decision: {message}"),
        ),
        TurnEnd::Failed { reason } => non_success(NonSuccessKind::Error, reason.clone()),
    }
}

/// An `<error>` naming every extension that failed in the turn.
fn failure_status(failures: &[Failure]) -> TestCaseStatus {
    let message: Vec<String> = failures.iter().map(Failure::headline).collect();
    non_success(NonSuccessKind::Error, message.join("; "))
}

/// The stderr tails of the failed extensions, each under its name.
fn failure_stderr(failures: &[Failure]) -> Option<String> {
    let parts: Vec<String> = failures
        .iter()
        .filter(|f| !f.stderr_tail.trim().is_empty())
        .map(|f| {
            format!(
                "{} `{}`:\n{}",
                f.kind.as_str(),
                f.name,
                f.stderr_tail.trim_end()
            )
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

pub(super) fn non_success(kind: NonSuccessKind, message: String) -> TestCaseStatus {
    let mut status = TestCaseStatus::non_success(kind);
    status.set_message(message);
    status
}

/// The library prompt a run played (`run --library-prompt`) as `<property>` elements.
pub(super) fn library_properties(suite: &mut TestSuite, used: Option<&super::LibraryPromptRef>) {
    if let Some(used) = used {
        let version = used.version.to_string();
        for (name, value) in [
            ("library_prompt.id", used.id.as_str()),
            ("library_prompt.version", version.as_str()),
            ("library_prompt.content_hash", used.content_hash.as_str()),
        ] {
            suite.add_property(quick_junit::Property::new(name, value));
        }
    }
}

/// The model's calls, time, tokens and cost as `<property>` elements, when the model
/// reported usage (the mock's bare call count is in the testcases already).
pub(super) fn model_properties(suite: &mut TestSuite, model: &ModelTotals) {
    if model.has_usage() {
        for (name, value) in model.properties() {
            suite.add_property(quick_junit::Property::new(name, value));
        }
    }
}
