//! What `invoke-tool` shows: the call's envelope (or only its result) on stdout, a
//! batch's envelopes as JSON lines, and on stderr what a tool error, a pending call
//! or a failure means, with what ran and where.

use crate::exec::{Outcome, last_lines};
use crate::tools::{ToolReport, ToolStatus};

/// How much of a call stdout gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InvokeShown {
    /// The whole envelope: status, result, error, timings.
    Envelope,
    /// Only the result, nothing when there is none.
    Result,
}

/// What was run, for a failure's explanation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ran {
    /// A program (a one-shot tool, a JSON-RPC server or an MCP server on stdio).
    Command { command: String, directory: String },
    /// An MCP server reached over HTTP, its secrets hidden.
    Url(String),
}

/// What stderr gets about a call that did not simply answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Notice {
    /// Left out under `-q`: the tool answered, with an error or a wait.
    Note(String),
    /// Always shown: the call failed.
    Error(String),
}

/// The call on stdout as pretty JSON, or `None` when only the result is asked for and
/// there is none.
pub(crate) fn invoke_stdout(report: &ToolReport, shown: InvokeShown) -> Option<String> {
    match shown {
        InvokeShown::Envelope => Some(pretty(report)),
        InvokeShown::Result => report.result.as_ref().map(pretty),
    }
}

/// A batch call's envelope as one JSON line, appended to `out`.
pub(crate) fn push_jsonl(out: &mut String, report: &ToolReport) {
    out.push_str(&serde_json::to_string(report).unwrap_or_default());
    out.push('\n');
}

/// What stderr says about the call, if anything.
pub(crate) fn invoke_notice(report: &ToolReport, ran: &Ran) -> Option<Notice> {
    match report.status {
        ToolStatus::Ok => None,
        ToolStatus::Error => Some(Notice::Note(format!(
            "tool `{}` answered with an error: {}",
            report.tool,
            report.error.as_deref().unwrap_or_default()
        ))),
        ToolStatus::Pending => {
            let pending = report.pending.as_ref();
            Some(Notice::Note(format!(
                "tool `{}` is waiting for a decision ({}): {}",
                report.tool,
                pending.map_or("", |p| p.reason.as_str()),
                pending.map_or("", |p| p.message.as_str())
            )))
        }
        ToolStatus::Failed | ToolStatus::Timeout => {
            Some(Notice::Error(explain_failure(report, ran)))
        }
    }
}

/// What ran, where, what it printed, and why that counts as a failure.
fn explain_failure(report: &ToolReport, ran: &Ran) -> String {
    let mut lines = vec![format!(
        "error: tool `{}` {}",
        report.tool,
        report.outcome.describe()
    )];
    match ran {
        Ran::Url(url) => lines.push(format!("  url: {url}")),
        Ran::Command { command, directory } => {
            lines.push(format!("  command: {command}"));
            lines.push(format!("  directory: {directory}"));
        }
    }
    if let Outcome::InvalidOutput { .. } = report.outcome
        && !report.stdout_head.is_empty()
    {
        lines.push(format!("  stdout began: {:?}", report.stdout_head));
    }
    let tail = last_lines(&report.stderr_tail, 20);
    if !tail.is_empty() {
        lines.push("  stderr (last lines):".to_string());
        lines.extend(tail.iter().map(|line| format!("    {line}")));
    }
    lines.join("\n")
}

fn pretty(doc: &impl serde::Serialize) -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(doc).unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::RawJson;
    use crate::tools::{Pending, ToolMode};
    use serde_json::json;

    fn answered() -> ToolReport {
        let mut report = ToolReport::new("lookup_order", ToolMode::Exec);
        report.status = ToolStatus::Ok;
        report.result = Some(RawJson::from(
            &json!({"order_id": "A-1002", "status": "delayed"}),
        ));
        report.exit_code = Some(0);
        report.duration_ms = 12;
        report
    }

    fn ran() -> Ran {
        Ran::Command {
            command: "python3 tools/lookup.py".into(),
            directory: "/work/shop".into(),
        }
    }

    #[test]
    fn an_answer_shows_its_envelope_or_only_its_result() {
        let report = answered();
        insta::assert_snapshot!(
            "invoke_envelope",
            invoke_stdout(&report, InvokeShown::Envelope).expect("an envelope")
        );
        insta::assert_snapshot!(
            invoke_stdout(&report, InvokeShown::Result).expect("a result"),
            @r#"
        {
          "order_id": "A-1002",
          "status": "delayed"
        }
        "#
        );
        assert_eq!(invoke_notice(&report, &ran()), None);
        let mut lines = String::new();
        push_jsonl(&mut lines, &report);
        push_jsonl(&mut lines, &report);
        assert_eq!(lines.lines().count(), 2);
        assert!(
            lines.starts_with(r#"{"tool":"lookup_order","mode":"exec","status":"ok""#),
            "{lines}"
        );
    }

    #[test]
    fn a_tool_error_and_a_wait_are_notes() {
        let mut report = ToolReport::new("refund", ToolMode::Server);
        report.status = ToolStatus::Error;
        report.error = Some("order not found".into());
        assert_eq!(invoke_stdout(&report, InvokeShown::Result), None);
        assert_eq!(
            invoke_notice(&report, &ran()),
            Some(Notice::Note(
                "tool `refund` answered with an error: order not found".into()
            ))
        );
        report.status = ToolStatus::Pending;
        report.pending = Some(
            Pending {
                reason: "approval".into(),
                message: "a refund over 100 needs a person".into(),
            }
            .into(),
        );
        assert_eq!(
            invoke_notice(&report, &ran()),
            Some(Notice::Note(
                "tool `refund` is waiting for a decision (approval): a refund over 100 needs a person"
                    .into()
            ))
        );
    }

    #[test]
    fn a_failure_says_what_ran_where_and_what_it_printed() {
        let mut report = ToolReport::new("lookup_order", ToolMode::Exec);
        report.outcome = Outcome::InvalidOutput {
            offset: 0,
            reason: "expected a JSON value".into(),
        };
        report.stdout_head = "Traceback (most".into();
        report.stderr_tail = "line 1\nline 2\nKeyError: 'order_id'\n".into();
        let Some(Notice::Error(text)) = invoke_notice(&report, &ran()) else {
            panic!("a failure is an error");
        };
        insta::assert_snapshot!("invoke_failure", text);
        let Some(Notice::Error(text)) =
            invoke_notice(&report, &Ran::Url("https://mcp.example/mcp".into()))
        else {
            panic!("a failure is an error");
        };
        assert!(
            text.contains("\n  url: https://mcp.example/mcp\n"),
            "{text}"
        );
        assert!(!text.contains("directory"), "{text}");
    }
}
