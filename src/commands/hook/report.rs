//! Where `hook test`'s decisions go: each on stdout, its explanation on stderr; and
//! what a trial that gave none means for the command.

use crate::cli::{CliError, Console, Exit, UsageError};
use crate::hooks::{HookDecision, HookReport, HookTrialError};
use crate::report::hook_decisions;

use crate::commands::common::exit::{of_decision, worse};

/// Prints one decision per line (pretty when there is only one), explains each on
/// stderr, and returns the most serious exit code among them. A failed hook's
/// explanation is an error, which `-q` does not silence; anything else is a note.
pub(in crate::commands) fn print_decisions(
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

/// A trial that gave no reports, as the command's error.
pub(in crate::commands) fn trial_error(err: HookTrialError) -> CliError {
    match err {
        HookTrialError::Interrupted => CliError::Interrupted,
        HookTrialError::NotAServer(_) => UsageError::Unusable(err.to_string()).into(),
        HookTrialError::Runtime(source) => CliError::Runtime(source),
    }
}
