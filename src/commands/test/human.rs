//! The human view: a line per case on stderr as it finishes (what differed on the
//! lines under a failure), then a summary. With `--format json` or `junit` only the
//! failures are shown. The same lines, uncoloured, are kept for `--output`.

use std::path::Path;

use crate::cli::Console;
use crate::cli::style::{Tone, paint};
use crate::exec::last_lines;
use crate::suite::cases::CaseStatus;

use super::record::{CaseRecord, TestRecord};

/// How many of an extension's last stderr lines an error shows.
const STDERR_LINES: usize = 5;

/// Where what a person reads from a run goes.
pub(super) struct HumanLines {
    /// Passes and the summary too, not only failures.
    everything: bool,
    /// Every line, uncoloured.
    text: String,
}

impl HumanLines {
    pub(super) fn new(everything: bool) -> Self {
        Self {
            everything,
            text: String::new(),
        }
    }

    /// One finished case. A failure is an error line, which `-q` does not silence.
    pub(super) fn case(&mut self, console: &mut Console, file: &Path, case: &CaseRecord) {
        let (label, tone) = match case.status {
            CaseStatus::Passed => ("PASS ", Tone::Good),
            CaseStatus::Failed => ("FAIL ", Tone::Bad),
            CaseStatus::Error => ("ERROR", Tone::Bad),
        };
        let rest = format!(
            " {}: {} ({} ms)",
            file.display(),
            case.name,
            case.duration_ms
        );
        let details = details(case);
        let plain = format!("{label}{rest}{details}");
        match case.status {
            CaseStatus::Passed if self.everything => {
                console.note(&format!("{}{rest}{details}", paint(label, tone)));
            }
            CaseStatus::Passed => {}
            CaseStatus::Failed | CaseStatus::Error => {
                console.error(&format!("{}{rest}{details}", paint(label, tone)));
            }
        }
        self.text.push_str(&plain);
        self.text.push('\n');
    }

    pub(super) fn summary(&mut self, console: &mut Console, record: &TestRecord) {
        let line = summary(record);
        if self.everything {
            console.note(&line);
        }
        self.text.push_str(&line);
        self.text.push('\n');
    }

    pub(super) fn into_text(self) -> String {
        self.text
    }
}

/// The lines under a case: what differed, a note, and for an error the end of the
/// extension's stderr.
fn details(case: &CaseRecord) -> String {
    let mut lines: Vec<String> = case.problems.iter().map(|p| format!("      {p}")).collect();
    if case.problems.is_empty()
        && let Some(note) = &case.message
    {
        lines.push(format!("      {note}"));
    }
    if case.status == CaseStatus::Error {
        let tail = last_lines(&case.stderr_tail, STDERR_LINES);
        if !tail.is_empty() {
            lines.push("      stderr (last lines):".into());
            lines.extend(tail.iter().map(|line| format!("        {line}")));
        }
    }
    lines.iter().map(|line| format!("\n{line}")).collect()
}

/// `summary: 4 passed, 1 failed, 0 errors in 2 file(s) (812 ms); exit 1`
fn summary(record: &TestRecord) -> String {
    let s = &record.summary;
    let not_run = if s.not_run > 0 {
        format!(", {} not run (--fail-fast)", s.not_run)
    } else {
        String::new()
    };
    format!(
        "summary: {} passed, {} failed, {} error(s){not_run} in {} file(s) ({} ms); exit {}",
        s.passed,
        s.failed,
        s.errors,
        record.files.len(),
        s.duration_ms,
        record.exit().code()
    )
}
