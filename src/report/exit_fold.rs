//! Folding what happened into one exit code: the more serious of two, and a
//! conversation's from its turns and events.

use std::borrow::Borrow;

use crate::evals::EvalStatus;
use crate::session::{SessionEvent, TurnEnd};

use super::Exit;

/// The more serious of two outcomes.
pub(crate) fn worse(a: Exit, b: Exit) -> Exit {
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

/// A conversation's exit: the most serious of its turns, evals and extension
/// failures (a failure counts even when the conversation went on). One pass over
/// the events.
pub(crate) fn run_exit<E: Borrow<SessionEvent>>(
    turns: &[TurnEnd],
    events: impl IntoIterator<Item = E>,
) -> Exit {
    let from_events = events.into_iter().map(|event| match event.borrow() {
        SessionEvent::ExtensionFailed { .. } => Exit::ExtensionFailed,
        SessionEvent::Guardrail {
            fails_run: true, ..
        } => Exit::No,
        SessionEvent::Eval(result) => match result.status {
            EvalStatus::Failed => Exit::No,
            EvalStatus::Error => Exit::ExtensionFailed,
            EvalStatus::Passed | EvalStatus::Measured | EvalStatus::Skipped => Exit::Success,
        },
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
    fn the_most_serious_turn_decides_the_run() {
        let events: [SessionEvent; 0] = [];
        assert_eq!(run_exit(&[], events.iter()), Exit::Success);
        let failed = TurnEnd::Failed {
            reason: "the tool crashed".into(),
        };
        assert_eq!(
            run_exit(
                &[TurnEnd::Answered, failed, TurnEnd::RoundLimit],
                events.iter()
            ),
            Exit::ExtensionFailed
        );
    }
}
