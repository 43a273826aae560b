//! What `hook test` prints for each phase or method: the decision as JSON on stdout
//! (one line each when there are several, pretty when there is one), and on stderr
//! what ran and why it decided so.

use crate::config::{Hook, HookKind, HookMode};
use crate::exec::last_lines;
use crate::hooks::{HookDecision, HookReport};

use super::style::status;

/// How many of a failed hook's last stderr lines the explanation shows.
const STDERR_LINES: usize = 10;

/// The decisions, a JSON document a line (pretty when there is only one).
pub(crate) fn hook_decisions(reports: &[HookReport]) -> Vec<String> {
    reports
        .iter()
        .map(|report| {
            let text = if reports.len() > 1 {
                serde_json::to_string(report)
            } else {
                serde_json::to_string_pretty(report)
            };
            format!("{}\n", text.unwrap_or_default())
        })
        .collect()
}

/// An exec hook's decision in words, the command that ran, and for a failure the
/// end of its stderr. A filter's failure denies; an observer's only fails the run.
pub(crate) fn explain_exec(hook: &Hook, r: &HookReport) -> String {
    let mut command = vec![hook.exec.command.display().to_string()];
    command.extend(hook.exec.args.iter().cloned());
    let filter = matches!(
        hook.kind,
        HookKind::Provider {
            mode: HookMode::Filter,
            ..
        } | HookKind::Tool {
            mode: HookMode::Filter,
            ..
        }
    );
    let reason = r.reason.as_deref().unwrap_or_default();
    let verdict = match (r.decision, filter) {
        (HookDecision::Allow, _) => status("allowed"),
        (HookDecision::Deny, _) => format!("{}: {reason}", status("denied")),
        (HookDecision::Failed, true) => format!(
            "{}: {reason}; a filter hook that fails denies, so in a run this would deny",
            status("failed")
        ),
        (HookDecision::Failed, false) => format!(
            "{}: {reason}; in a run an observer's failure does not change the pipeline but fails the run",
            status("failed")
        ),
        (HookDecision::Ack, _) => format!("{} (observers cannot block)", status("observed")),
    };
    let mut lines = vec![format!("hook `{}` at {}: {verdict}", r.hook, r.phase)];
    lines.push(format!(
        "  command: {} (in {})",
        command.join(" "),
        hook.exec.working_dir.display()
    ));
    let tail = last_lines(&r.stderr_tail, STDERR_LINES);
    if r.decision == HookDecision::Failed && !tail.is_empty() {
        lines.push("  stderr (last lines):".into());
        lines.extend(tail.iter().map(|line| format!("    {line}")));
    }
    lines.join("\n")
}

/// A JSON-RPC hook's answer in words, with its reason when it gave one.
pub(crate) fn explain_rpc(r: &HookReport) -> String {
    let mut line = format!("hook `{}` at {}: {}", r.hook, r.phase, status(r.action));
    if let Some(reason) = &r.reason {
        line.push_str(&format!(": {reason}"));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::super::style;
    use super::*;
    use crate::config::{ExecSpec, HookPhase};

    fn guard(mode: HookMode) -> Hook {
        let mut exec = ExecSpec::plain("python3", "/project");
        exec.args = vec!["hooks/guard.py".into()];
        Hook {
            name: "guard".into(),
            exec,
            env_values: Default::default(),
            priority: 0,
            kind: HookKind::Tool {
                phases: vec![HookPhase::BeforeExecution],
                mode,
            },
            pos: Default::default(),
        }
    }

    fn denied() -> HookReport {
        let mut report = HookReport::new("guard", "before_execution", HookDecision::Deny, 3);
        report.reason = Some("order ids are not shown".into());
        report
    }

    #[test]
    fn one_decision_is_pretty_and_several_are_a_line_each() {
        let one = hook_decisions(&[denied()]);
        insta::assert_snapshot!(one.concat());
        let two = hook_decisions(&[denied(), denied()]);
        assert_eq!(two.len(), 2);
        assert!(
            two.iter().all(|line| line.matches('\n').count() == 1),
            "{two:?}"
        );
    }

    #[test]
    fn a_failed_filter_says_it_would_deny_and_shows_its_stderr() {
        let mut report = HookReport::new("guard", "before_execution", HookDecision::Failed, 9);
        report.reason = Some("exited with status 2".into());
        report.stderr_tail = "Traceback (most recent call last):\nKeyError: 'phase'\n".into();
        insta::assert_snapshot!(style::strip(&explain_exec(
            &guard(HookMode::Filter),
            &report
        )));
    }

    #[test]
    fn a_denial_gives_its_reason() {
        let text = style::strip(&explain_exec(&guard(HookMode::Filter), &denied()));
        assert!(
            text.starts_with("hook `guard` at before_execution: denied: order ids are not shown\n"),
            "{text}"
        );
        assert_eq!(
            style::strip(&explain_rpc(&denied())),
            "hook `guard` at before_execution: deny: order ids are not shown"
        );
    }
}
