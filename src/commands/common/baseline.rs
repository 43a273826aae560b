//! Comparing reports, for `diff` and `run --baseline`: reading them (a JSON syntax
//! error placed at its line and column), the gate's options, and what `run` does
//! with a baseline once a suite has played.

use std::path::Path;

use serde_json::Value as Json;

use crate::cli::args::{BaselineArgs, GateArgs};
use crate::cli::{CliError, Console, Exit, UsageError};
use crate::compare::{self, Diff, KnownFailure, Side, Tolerances};
use crate::doc::{Diagnostic, Pos};

use super::emit::pretty;

/// The JSON report in `path`; bad JSON is a diagnostic at its place (exit 2).
pub(in crate::commands) fn read_report(path: &Path) -> Result<Json, CliError> {
    let text = std::fs::read_to_string(path).map_err(|source| CliError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|err| {
        let pos = Pos {
            line: err.line().max(1) as u32,
            col: err.column().max(1) as u32,
        };
        let text = err.to_string();
        let message = text.split(" at line ").next().unwrap_or_default();
        CliError::Invalid(Diagnostic::error(path, pos, format!("not valid JSON: {message}")).into())
    })
}

/// The tolerances the command line gives.
fn tolerances(gate: &GateArgs) -> Tolerances {
    Tolerances {
        score: gate.score_tolerance,
        latency: gate.latency_tolerance,
        cost: gate.cost_tolerance,
    }
}

/// The entries of `--known-failures`, none without it.
fn known_failures(gate: &GateArgs) -> Result<Vec<KnownFailure>, CliError> {
    let Some(path) = &gate.known_failures else {
        return Ok(Vec::new());
    };
    let text = std::fs::read_to_string(path).map_err(|source| CliError::Read {
        path: path.clone(),
        source,
    })?;
    compare::read_known(path, &text).map_err(CliError::Invalid)
}

/// `base` and `head` (their files named as shown) compared under the gate's
/// options.
pub(in crate::commands) fn compared(
    base: (&str, &Json),
    head: (&str, &Json),
    gate: &GateArgs,
) -> Result<Diff, CliError> {
    let known = known_failures(gate)?;
    compare::compare(
        Side {
            file: base.0,
            report: base.1,
        },
        Side {
            file: head.0,
            report: head.1,
        },
        &tolerances(gate),
        &known,
    )
    .map(|mut diff| {
        diff.gate.enforced = gate.fail_on_regression;
        diff
    })
    .map_err(|err| UsageError::Unusable(err.to_string()).into())
}

/// What can be refused before a suite plays: a gate option without `--baseline`,
/// and a baseline FILE that is missing without `--bless`.
pub(in crate::commands) fn check(args: &BaselineArgs) -> Result<(), CliError> {
    match &args.baseline {
        None => match given_gate_flag(&args.gate) {
            Some(flag) => Err(UsageError::not_here(flag, "applies with --baseline FILE").into()),
            None => Ok(()),
        },
        Some(path) if !path.exists() && !args.bless => Err(UsageError::Nothing(format!(
            "no baseline at {}: run once with --bless to write it",
            path.display()
        ))
        .into()),
        Some(_) => Ok(()),
    }
}

/// After a suite played, with `--baseline FILE`: its JSON report (`head` makes it,
/// only when there is a baseline) compared with FILE, the comparison on stderr;
/// with `--bless`, the report written to FILE (unless the gate failed).
/// `Some(Exit::No)` when `--fail-on-regression` and the gate failed. What [`check`]
/// refuses is refused here too; a missing FILE is written with `--bless`.
pub(in crate::commands) fn apply(
    args: &BaselineArgs,
    head: impl FnOnce() -> Json,
    console: &mut Console,
) -> Result<Option<Exit>, CliError> {
    check(args)?;
    let Some(path) = &args.baseline else {
        return Ok(None);
    };
    let shown = path.display().to_string();
    let head = head();
    if !path.exists() {
        bless(path, &head)?;
        console.note(&format!("baseline: wrote {shown}"));
        return Ok(None);
    }
    let base = read_report(path)?;
    let diff = compared((&shown, &base), ("this run", &head), &args.gate)?;
    let failed = args.gate.fail_on_regression && diff.gate.failed;
    let text = compare::human(&diff);
    let mut gate_lines = false;
    for line in text.lines() {
        // What fails the run (the gate's lines, last) reaches stderr even under -q.
        gate_lines |= crate::report::style::strip(line).starts_with("gate failed:");
        if failed && gate_lines {
            console.error(line);
        } else {
            console.note(line);
        }
    }
    if args.bless {
        if failed {
            console.note(&format!("baseline: {shown} is kept: the gate failed"));
        } else {
            bless(path, &head)?;
            console.note(&format!("baseline: wrote {shown}"));
        }
    }
    Ok(failed.then_some(Exit::No))
}

/// The first gate option given, for a message that it needs `--baseline`.
fn given_gate_flag(gate: &GateArgs) -> Option<&'static str> {
    [
        (gate.fail_on_regression, "--fail-on-regression"),
        (gate.score_tolerance.is_some(), "--score-tolerance"),
        (gate.latency_tolerance.is_some(), "--latency-tolerance"),
        (gate.cost_tolerance.is_some(), "--cost-tolerance"),
        (gate.known_failures.is_some(), "--known-failures"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag))
}

fn bless(path: &Path, head: &Json) -> Result<(), CliError> {
    crate::atomic_file::write_atomic(path, pretty(head).as_bytes()).map_err(|source| {
        CliError::Write {
            path: path.to_path_buf(),
            source,
        }
    })
}
