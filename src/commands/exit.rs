//! Folding what happened into the one exit code a command returns.

use std::borrow::Borrow;

use crate::cli::Exit;
use crate::evals::{EvalResult, EvalStatus};
use crate::exec::Outcome;
use crate::session::{SessionEvent, TurnEnd};
use crate::tools::{ToolReport, ToolStatus};

use crate::hooks::HookDecision;

/// The more serious of two outcomes, for commands that make several calls.
pub(super) fn worse(a: Exit, b: Exit) -> Exit {
    let rank = |e: Exit| match e {
        Exit::Success => 0,
        Exit::Pending => 1,
        Exit::No => 2,
        Exit::ExtensionFailed => 3,
        Exit::BadInput => 4,
        Exit::Interrupted => 5,
    };
    if rank(b) > rank(a) { b } else { a }
}

/// 1 when a gate failed, 3 when an eval could not score; the worse of the two.
pub(super) fn of_evals<'r>(results: impl IntoIterator<Item = &'r EvalResult>) -> Exit {
    results
        .into_iter()
        .map(|r| match r.status {
            EvalStatus::Failed => Exit::No,
            EvalStatus::Error => Exit::ExtensionFailed,
            EvalStatus::Passed | EvalStatus::Measured | EvalStatus::Skipped => Exit::Success,
        })
        .fold(Exit::Success, worse)
}

/// A run's exit code: the most serious of its turns, evals and extension failures
/// (a failure counts even when the conversation went on). One pass over the events.
pub(super) fn of_run<E: Borrow<SessionEvent>>(
    turns: &[TurnEnd],
    events: impl IntoIterator<Item = E>,
) -> Exit {
    let from_events = events.into_iter().map(|event| match event.borrow() {
        SessionEvent::ExtensionFailed { .. } => Exit::ExtensionFailed,
        SessionEvent::Guardrail {
            fails_run: true, ..
        } => Exit::No,
        SessionEvent::Eval(result) => of_evals([&**result]),
        _ => Exit::Success,
    });
    let from_turns = turns.iter().map(|end| match end {
        TurnEnd::Answered | TurnEnd::RoundLimit => Exit::Success,
        TurnEnd::Aborted { .. } | TurnEnd::HardAborted { .. } => Exit::No,
        TurnEnd::Pending { .. } => Exit::Pending,
        TurnEnd::Failed { .. } => Exit::ExtensionFailed,
    });
    from_turns.chain(from_events).fold(Exit::Success, worse)
}

/// One tool call: an interrupt wins, then the call's status.
pub(super) fn of_tool(report: &ToolReport) -> Exit {
    match (&report.status, &report.outcome) {
        (_, Outcome::Interrupted) => Exit::Interrupted,
        (ToolStatus::Ok, _) => Exit::Success,
        (ToolStatus::Error, _) => Exit::No,
        (ToolStatus::Pending, _) => Exit::Pending,
        (ToolStatus::Failed | ToolStatus::Timeout, _) => Exit::ExtensionFailed,
    }
}

/// A hook's decision in `hook test`.
pub(super) fn of_decision(decision: HookDecision) -> Exit {
    match decision {
        HookDecision::Allow | HookDecision::Ack => Exit::Success,
        HookDecision::Deny => Exit::No,
        HookDecision::Failed => Exit::ExtensionFailed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worse_outcome_wins_whichever_side_it_is_on() {
        assert_eq!(worse(Exit::Success, Exit::Pending), Exit::Pending);
        assert_eq!(
            worse(Exit::ExtensionFailed, Exit::No),
            Exit::ExtensionFailed
        );
        assert_eq!(worse(Exit::Interrupted, Exit::BadInput), Exit::Interrupted);
    }

    #[test]
    fn a_run_with_no_turns_and_no_events_succeeds() {
        assert_eq!(of_run(&[], &[]), Exit::Success);
        assert_eq!(
            of_run(&[TurnEnd::Answered, TurnEnd::RoundLimit], &[]),
            Exit::Success
        );
    }

    #[test]
    fn the_most_serious_turn_decides_the_run() {
        let failed = TurnEnd::Failed {
            reason: "the tool crashed".into(),
        };
        assert_eq!(
            of_run(&[TurnEnd::Answered, failed, TurnEnd::RoundLimit], &[]),
            Exit::ExtensionFailed
        );
    }

    #[test]
    fn decisions_map_to_their_documented_codes() {
        assert_eq!(of_decision(HookDecision::Ack), Exit::Success);
        assert_eq!(of_decision(HookDecision::Deny), Exit::No);
        assert_eq!(of_decision(HookDecision::Failed), Exit::ExtensionFailed);
    }
}
