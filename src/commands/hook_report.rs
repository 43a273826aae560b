//! What `hook test` prints for one phase or method, the same for exec and JSON-RPC
//! hooks so one script can read both.

use serde::Serialize;
use serde_json::{Map, Value as Json};

use crate::cli::{CliError, Console, Exit};
use crate::hooks::HookDecision;

use super::exit::{of_decision, worse};

#[derive(Debug, Clone, Serialize)]
pub(super) struct HookReport {
    pub hook: String,
    pub phase: String,
    pub decision: HookDecision,
    /// What the hook answered: a JSON-RPC hook's action, `approved` or `denied`;
    /// an exec hook's decision again; or `failed`.
    pub action: &'static str,
    pub reason: Option<String>,
    pub metadata: Map<String, Json>,
    /// What the pipeline would go on with after `modify` or `respond`.
    pub output: Option<Json>,
    pub duration_ms: u64,
    pub stderr_tail: String,
}

impl HookReport {
    /// A report of `decision` with nothing else known yet.
    pub(super) fn new(hook: &str, phase: &str, decision: HookDecision, duration_ms: u64) -> Self {
        Self {
            hook: hook.to_string(),
            phase: phase.to_string(),
            decision,
            action: decision.as_str(),
            reason: None,
            metadata: Map::new(),
            output: None,
            duration_ms,
            stderr_tail: String::new(),
        }
    }
}

/// Prints one decision per line (pretty when there is only one), explains each on
/// stderr, and returns the most serious exit code among them.
pub(super) fn print_decisions(
    console: &mut Console,
    reports: &[HookReport],
    explain: impl Fn(&mut Console, &HookReport),
) -> Result<Exit, CliError> {
    let mut exit = Exit::Success;
    for report in reports {
        let text = if reports.len() > 1 {
            serde_json::to_string(report)
        } else {
            serde_json::to_string_pretty(report)
        };
        console.out(&format!("{}\n", text.unwrap_or_default()))?;
        explain(console, report);
        exit = worse(exit, of_decision(report.decision));
    }
    Ok(exit)
}

/// A failed hook is an error, which `-q` does not silence; anything else is a note.
pub(super) fn explain_line(console: &mut Console, report: &HookReport, text: &str) {
    if report.decision == HookDecision::Failed {
        console.error(text);
    } else {
        console.note(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_starts_with_its_decision_as_the_answer() {
        let report = HookReport::new("guard", "before_call", HookDecision::Deny, 4);
        let json = serde_json::to_value(&report).expect("a report serializes");
        assert_eq!(json["decision"], "deny");
        assert_eq!(json["action"], "deny");
    }
}
