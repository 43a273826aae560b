//! The conversation as a person watching reads it, written as it happens to the
//! writer the caller gives, with a spinner while a tool runs when that writer is a
//! terminal.

use std::io::Write;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::style;
use crate::evals::{EvalResult, EvalStatus};
use crate::exec::last_lines;
use crate::session::SessionEvent;

use super::failures_of;
use super::terminal::{Screen, SharedOut, Terminal};

/// How often the spinner redraws at most, as indicatif does on its own terminals.
const SPINNER_HZ: u8 = 20;

/// Streams the conversation line by line, with a spinner while a tool runs.
pub(crate) struct HumanStream {
    out: SharedOut,
    /// The terminal `out` is, when it is one.
    terminal: Option<Terminal>,
    spinner: Option<ProgressBar>,
    /// Everything written, without colour, for `--output`.
    pub text: String,
}

impl HumanStream {
    /// A stream to `out`; `terminal` says whether `out` is a terminal (and how wide),
    /// which alone lets a spinner be drawn on it. A write that fails is not worth
    /// failing the run over: the text is still kept for `--output`.
    pub(crate) fn new(out: Box<dyn Write + Send>, terminal: Option<Terminal>) -> Self {
        Self {
            out: SharedOut::new(out),
            terminal,
            spinner: None,
            text: String::new(),
        }
    }

    pub(crate) fn event(&mut self, event: &SessionEvent) {
        if let SessionEvent::ToolStarted { name, call_id, .. } = event {
            self.spin(format!("waiting on tool {name} ({call_id})"));
        } else if !matches!(event, SessionEvent::HooksRan { .. }) {
            self.stop_spinner();
        }
        if let Some(line) = describe(event) {
            self.line(&line);
        }
    }

    /// Ends the stream with `text`; returns everything written.
    pub(crate) fn close(mut self, text: &str) -> String {
        self.stop_spinner();
        self.line(text);
        self.text
    }

    pub(crate) fn line(&mut self, line: &str) {
        let _ = self.out.write(&format!("{line}\n"));
        self.text.push_str(&style::strip(line));
        self.text.push('\n');
    }

    fn spin(&mut self, message: String) {
        let Some(terminal) = self.terminal else {
            return;
        };
        let screen = Screen {
            out: self.out.clone(),
            terminal,
        };
        let target = ProgressDrawTarget::term_like_with_hz(Box::new(screen), SPINNER_HZ);
        let spinner = ProgressBar::with_draw_target(None, target);
        spinner.set_style(
            ProgressStyle::with_template("  {spinner} {msg} {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        spinner.set_message(message);
        spinner.enable_steady_tick(Duration::from_millis(100));
        self.spinner = Some(spinner);
    }

    fn stop_spinner(&mut self) {
        if let Some(spinner) = self.spinner.take() {
            spinner.finish_and_clear();
        }
    }
}

/// One event as the person watching reads it; `None` for events that only count.
/// What a model, tool, hook or server wrote has its control characters escaped.
pub(crate) fn describe(event: &SessionEvent) -> Option<String> {
    let text = match event {
        SessionEvent::SessionStart { .. }
        | SessionEvent::User { .. }
        | SessionEvent::Assistant { .. }
        | SessionEvent::ModelFinding { .. }
        | SessionEvent::Eval(_)
        | SessionEvent::Workflow { .. }
        | SessionEvent::TurnEnd { .. } => conversation_line(event),
        SessionEvent::Hook { .. }
        | SessionEvent::ToolCall { .. }
        | SessionEvent::Pending { .. }
        | SessionEvent::Decision { .. }
        | SessionEvent::Guardrail { .. }
        | SessionEvent::Injected { .. }
        | SessionEvent::ExtensionFailed { .. } => extension_line(event),
        SessionEvent::ModelCall { .. }
        | SessionEvent::HooksRan { .. }
        | SessionEvent::ToolStarted { .. }
        | SessionEvent::EvalPoint { .. }
        | SessionEvent::SessionEnd { .. } => None,
    }?;
    Some(text.trim_end().to_string())
}

fn name(text: &str) -> String {
    style::peer(text, false).into_owned()
}

fn prose(text: &str) -> String {
    style::peer(text, true).into_owned()
}

/// What the user, the model and the evals did.
fn conversation_line(event: &SessionEvent) -> Option<String> {
    Some(match event {
        SessionEvent::SessionStart { prompt, .. } => format!("── session: prompt `{prompt}`"),
        SessionEvent::User { turn, content } => format!("── turn {turn}\nuser: {content}"),
        SessionEvent::Assistant {
            content,
            tool_calls,
            ..
        } => {
            let mut text = format!("assistant: {}", prose(content));
            for call in tool_calls {
                text.push_str(&format!(
                    "\n  → {} {}",
                    name(call["name"].as_str().unwrap_or_default()),
                    name(&call["args"].to_string())
                ));
            }
            text
        }
        SessionEvent::ModelFinding { finding, .. } => {
            format!(
                "  model: {}",
                style::paint(&prose(finding), style::Tone::Warn)
            )
        }
        SessionEvent::Eval(result) => format!("  eval {}", eval_line(result)),
        SessionEvent::TurnEnd { turn, reason } => {
            format!("── turn {turn} ended: {}", prose(&reason.to_string()))
        }
        SessionEvent::Workflow { .. } => workflow_line(event)?,
        _ => return None,
    })
}

/// A workflow's start, a transition, or a transition refused.
fn workflow_line(event: &SessionEvent) -> Option<String> {
    let SessionEvent::Workflow {
        from,
        state,
        trigger,
        refused,
        terminal,
        ..
    } = event
    else {
        return None;
    };
    let end = if *terminal { " (complete)" } else { "" };
    Some(match (from, trigger, refused) {
        (_, Some(event), Some(why)) => format!(
            "  workflow: `{}` refused in `{}`: {}",
            name(event),
            name(state),
            style::paint(&prose(why), style::Tone::Warn)
        ),
        (Some(from), Some(event), None) => format!(
            "── workflow: `{}` → `{}` on `{}`{end}",
            name(from),
            name(state),
            name(event)
        ),
        _ => format!("── workflow: `{}`{end}", name(state)),
    })
}

/// What a hook, tool, guardrail or injected failure did.
fn extension_line(event: &SessionEvent) -> Option<String> {
    Some(match event {
        SessionEvent::Hook {
            phase,
            hook,
            action,
            reason,
        } => format!(
            "  hook `{hook}` at {phase}: {}{}",
            style::status(action.as_str()),
            reason
                .as_ref()
                .map(|r| format!(": {}", prose(r)))
                .unwrap_or_default()
        ),
        SessionEvent::ToolCall {
            name: tool_name,
            call_id,
            status,
            content,
            duration_ms,
            ..
        } => format!(
            "  tool {} ({call_id}) {} in {duration_ms} ms: {}",
            name(tool_name),
            style::status(status.as_str()),
            prose(content)
        ),
        SessionEvent::Pending {
            tool,
            call_id,
            message,
            ..
        } => format!(
            "  tool {} ({call_id}) is {}: {}",
            name(tool),
            style::paint("waiting for a decision", style::Tone::Warn),
            prose(message)
        ),
        SessionEvent::Decision {
            tool,
            approved,
            by,
            note,
            ..
        } => format!(
            "  {} {} ({by}): {}",
            style::status(if *approved { "approved" } else { "rejected" }),
            name(tool),
            prose(note)
        ),
        SessionEvent::Guardrail {
            validator,
            detail,
            enforced,
            fails_run,
            ..
        } => format!(
            "  guardrail `{validator}` {}: {}; the answer was {enforced}{}",
            style::status(if *fails_run { "failed" } else { "enforced" }),
            prose(detail),
            if *fails_run { " and the run fails" } else { "" }
        ),
        SessionEvent::Injected {
            tool,
            call_id,
            mode,
            ..
        } => format!(
            "  chaos: tool {} ({call_id}) {}",
            name(tool),
            style::paint(&format!("injected {mode}"), style::Tone::Warn)
        ),
        SessionEvent::ExtensionFailed { .. } => {
            let failure = failures_of(std::slice::from_ref(event)).next()?;
            let mut text = format!("  FAILED {}", prose(&failure.headline()));
            text.push_str(&stderr_excerpt(&failure.stderr_tail, "    "));
            text
        }
        _ => return None,
    })
}

fn eval_line(result: &EvalResult) -> String {
    let status = match result.status {
        EvalStatus::Passed => "passed",
        EvalStatus::Failed => "FAILED",
        EvalStatus::Measured => "measured",
        EvalStatus::Error => "ERROR",
        EvalStatus::Skipped => "skipped",
    };
    let score = result
        .score
        .map(|s| format!(" (score {s:.2})"))
        .unwrap_or_default();
    format!(
        "{} {}{score}: {}",
        result.eval_id,
        style::status(status),
        style::peer(&result.explanation, true)
    )
}

/// The last lines of an extension's stderr, indented under the line that reports
/// its failure; empty when it wrote nothing.
pub(crate) fn stderr_excerpt(tail: &str, indent: &str) -> String {
    let shown = last_lines(tail, 12);
    if shown.is_empty() {
        return String::new();
    }
    let mut text = format!("\n{indent}stderr (last {} line(s)):", shown.len());
    for line in shown {
        text.push_str(&format!("\n{indent}| {}", style::peer(line, true)));
    }
    text
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::session::{CallStatus, TurnEndReason};

    /// A writer whose bytes the test can read afterwards.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().expect("not poisoned").extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Captured {
        fn text(&self) -> String {
            String::from_utf8_lossy(&self.0.lock().expect("not poisoned")).into_owned()
        }
    }

    fn tool_events() -> [SessionEvent; 3] {
        [
            SessionEvent::ToolStarted {
                turn: 1,
                name: "lookup".into(),
                call_id: "c1".into(),
            },
            SessionEvent::ToolCall {
                turn: 1,
                name: "lookup".into(),
                call_id: "c1".into(),
                args: serde_json::json!({}),
                status: CallStatus::Ok,
                content: "42".into(),
                duration_ms: 3,
                parts: Vec::new(),
            },
            SessionEvent::TurnEnd {
                turn: 1,
                reason: TurnEndReason::Answered,
            },
        ]
    }

    #[test]
    fn lines_go_to_the_given_writer_and_no_spinner_without_a_terminal() {
        let out = Captured::default();
        let mut stream = HumanStream::new(Box::new(out.clone()), None);
        for event in tool_events() {
            stream.event(&event);
        }
        let text = stream.close("summary: done");
        let expected =
            "  tool lookup (c1) ok in 3 ms: 42\n── turn 1 ended: answered\nsummary: done\n";
        assert_eq!(out.text(), expected);
        assert_eq!(text, expected);
    }

    #[test]
    fn on_a_terminal_the_spinner_is_drawn_through_the_writer_and_cleared_first() {
        let out = Captured::default();
        let terminal = Some(Terminal { width: 60 });
        let mut stream = HumanStream::new(Box::new(out.clone()), terminal);
        let [started, call, end] = tool_events();
        stream.event(&started);
        assert!(
            out.text().contains("waiting on tool lookup (c1)"),
            "{:?}",
            out.text()
        );
        stream.event(&call);
        stream.event(&end);
        let written = out.text();
        let (_, after_clear) = written
            .rsplit_once("\r\x1b[2K")
            .expect("the spinner's line was cleared");
        assert_eq!(
            after_clear,
            "  tool lookup (c1) ok in 3 ms: 42\n── turn 1 ended: answered\n"
        );
        assert_eq!(
            stream.close("done"),
            "  tool lookup (c1) ok in 3 ms: 42\n── turn 1 ended: answered\ndone\n"
        );
    }
}
