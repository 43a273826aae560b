//! Where `hook test`'s decisions go: each on stdout, its explanation on stderr.

use crate::cli::{CliError, Console, Exit};
use crate::hooks::{HookDecision, HookReport};
use crate::report::hook_decisions;

use super::exit::{of_decision, worse};

/// Prints one decision per line (pretty when there is only one), explains each on
/// stderr, and returns the most serious exit code among them. A failed hook's
/// explanation is an error, which `-q` does not silence; anything else is a note.
pub(super) fn print_decisions(
    console: &mut Console,
    reports: &[HookReport],
    explain: impl Fn(&HookReport) -> String,
) -> Result<Exit, CliError> {
    let mut exit = Exit::Success;
    for (report, text) in reports.iter().zip(hook_decisions(reports)) {
        console.out(&text)?;
        let why = explain(report);
        if report.decision == HookDecision::Failed {
            console.error(&why);
        } else {
            console.note(&why);
        }
        exit = worse(exit, of_decision(report.decision));
    }
    Ok(exit)
}
