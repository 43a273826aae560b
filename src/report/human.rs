use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::style;
use crate::evals::{EvalResult, EvalStatus};
use crate::exec::last_lines;
use crate::session::SessionEvent;

use super::failures_of;

/// Streams the conversation to stderr as it happens, with a spinner while a tool
/// runs when stderr is a terminal.
pub struct HumanStream {
    spinner: Option<ProgressBar>,
    interactive: bool,
    /// Everything printed, for `--output`.
    pub text: String,
}

impl HumanStream {
    pub fn new() -> Self {
        Self {
            spinner: None,
            interactive: std::io::stderr().is_terminal() && !crate::cli::output::quiet(),
            text: String::new(),
        }
    }

    pub fn event(&mut self, event: &SessionEvent) {
        if let SessionEvent::ToolStarted { name, call_id, .. } = event {
            self.spin(format!("waiting on tool {name} ({call_id})"));
        } else if !matches!(event, SessionEvent::HooksRan { .. }) {
            self.stop_spinner();
        }
        if let Some(line) = describe(event) {
            self.line(&line);
        }
    }

    /// Ends the stream with `text`; returns everything printed.
    pub fn close(mut self, text: &str) -> String {
        self.stop_spinner();
        self.line(text);
        self.text
    }

    pub fn line(&mut self, line: &str) {
        crate::cli::output::write_stderr(line);
        self.text.push_str(&style::strip(line));
        self.text.push('\n');
    }

    fn spin(&mut self, message: String) {
        if !self.interactive {
            return;
        }
        let spinner = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
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

impl Default for HumanStream {
    fn default() -> Self {
        Self::new()
    }
}

/// One event as the person watching reads it; `None` for events that only count.
pub fn describe(event: &SessionEvent) -> Option<String> {
    let text = match event {
        SessionEvent::SessionStart { prompt, .. } => format!("── session: prompt `{prompt}`"),
        SessionEvent::User { turn, content } => format!("── turn {turn}\nuser: {content}"),
        SessionEvent::Assistant {
            content,
            tool_calls,
            ..
        } => {
            let mut text = format!("assistant: {content}");
            for call in tool_calls {
                text.push_str(&format!(
                    "\n  → {} {}",
                    call["name"].as_str().unwrap_or_default(),
                    call["args"]
                ));
            }
            text
        }
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
                .map(|r| format!(": {r}"))
                .unwrap_or_default()
        ),
        SessionEvent::ToolCall {
            name,
            call_id,
            status,
            content,
            duration_ms,
            ..
        } => format!(
            "  tool {name} ({call_id}) {} in {duration_ms} ms: {content}",
            style::status(status.as_str())
        ),
        SessionEvent::Pending {
            tool,
            call_id,
            message,
            ..
        } => format!(
            "  tool {tool} ({call_id}) is {}: {message}",
            style::paint("waiting for a decision", style::Tone::Warn)
        ),
        SessionEvent::Decision {
            tool,
            approved,
            by,
            note,
            ..
        } => format!(
            "  {} {tool} ({by}): {note}",
            style::status(if *approved { "approved" } else { "rejected" })
        ),
        SessionEvent::Eval(result) => format!("  eval {}", eval_line(result)),
        SessionEvent::TurnEnd { turn, reason } => format!("── turn {turn} ended: {reason}"),
        SessionEvent::ExtensionFailed { .. } => {
            let failure = failures_of(std::slice::from_ref(event)).next()?;
            let mut text = format!("  FAILED {}", failure.headline());
            text.push_str(&stderr_excerpt(failure.stderr_tail, "    "));
            text
        }
        SessionEvent::ModelCall { .. }
        | SessionEvent::HooksRan { .. }
        | SessionEvent::ToolStarted { .. }
        | SessionEvent::EvalPoint { .. }
        | SessionEvent::SessionEnd { .. } => return None,
    };
    Some(text.trim_end().to_string())
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
        result.explanation
    )
}

/// The last lines of an extension's stderr, indented under the line that reports
/// its failure; empty when it wrote nothing.
pub fn stderr_excerpt(tail: &str, indent: &str) -> String {
    let shown = last_lines(tail, 12);
    if shown.is_empty() {
        return String::new();
    }
    let mut text = format!("\n{indent}stderr (last {} line(s)):", shown.len());
    for line in shown {
        text.push_str(&format!("\n{indent}| {line}"));
    }
    text
}
