//! Folding what happened into the one exit code a command returns.

use crate::cli::Exit;
use crate::evals::{EvalResult, EvalStatus};
use crate::exec::Outcome;
use crate::tools::{ToolReport, ToolStatus};

use crate::hooks::HookDecision;

pub(in crate::commands) use crate::report::worse;

/// 1 when a gate failed, 3 when an eval could not score; the worse of the two.
pub(in crate::commands) fn of_evals<'r>(results: impl IntoIterator<Item = &'r EvalResult>) -> Exit {
    results
        .into_iter()
        .map(|r| match r.status {
            EvalStatus::Failed => Exit::No,
            EvalStatus::Error => Exit::ExtensionFailed,
            EvalStatus::Passed | EvalStatus::Measured | EvalStatus::Skipped => Exit::Success,
        })
        .fold(Exit::Success, worse)
}

/// One tool call: an interrupt wins, then the call's status.
pub(in crate::commands) fn of_tool(report: &ToolReport) -> Exit {
    match (&report.status, &report.outcome) {
        (_, Outcome::Interrupted) => Exit::Interrupted,
        (ToolStatus::Ok, _) => Exit::Success,
        (ToolStatus::Error, _) => Exit::No,
        (ToolStatus::Pending, _) => Exit::Pending,
        (ToolStatus::Failed | ToolStatus::Timeout, _) => Exit::ExtensionFailed,
    }
}

/// A hook's decision in `hook test`.
pub(in crate::commands) fn of_decision(decision: HookDecision) -> Exit {
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
    fn decisions_map_to_their_documented_codes() {
        assert_eq!(of_decision(HookDecision::Ack), Exit::Success);
        assert_eq!(of_decision(HookDecision::Deny), Exit::No);
        assert_eq!(of_decision(HookDecision::Failed), Exit::ExtensionFailed);
    }
}
