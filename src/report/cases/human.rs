//! The human view of a case-file run: a line per case as it finishes (what differed
//! on the lines under a failure), then a summary. The command decides where each
//! goes (with `--format json` or `junit` only the failures are shown); the same lines,
//! uncoloured, are what `--output` keeps.

use crate::exec::last_lines;
use crate::report::style::{self, Tone};

use super::record::{CaseRecord, CaseStatus, TestRecord};

/// How many of an extension's last stderr lines an error shows.
const STDERR_LINES: usize = 5;

/// `PASS  FILE: NAME (12 ms)`, and under a failure what differed, a note, and for an
/// error the end of the extension's stderr. The label is coloured only when `color`
/// is set (and the process-wide switch allows it).
pub(crate) fn case_text(file: &str, case: &CaseRecord, color: bool) -> String {
    let (label, tone) = match case.status {
        CaseStatus::Passed => ("PASS ", Tone::Good),
        CaseStatus::Failed => ("FAIL ", Tone::Bad),
        CaseStatus::Error => ("ERROR", Tone::Bad),
    };
    let label = if color {
        style::paint(label, tone)
    } else {
        label.to_string()
    };
    format!(
        "{label} {file}: {} ({} ms){}",
        case.name,
        case.duration_ms,
        details(case)
    )
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

/// `summary: 4 passed, 1 failed, 0 error(s) in 2 file(s) (812 ms); exit 1`
pub(crate) fn test_summary(record: &TestRecord) -> String {
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

#[cfg(test)]
mod tests {
    use super::super::test_support::record;
    use super::*;

    /// Every case of the record in file order, then the summary: what `--output`
    /// holds when the cases finish in that order.
    fn whole(record: &TestRecord) -> String {
        let mut text = String::new();
        for file in &record.files {
            for case in &file.cases {
                text.push_str(&case_text(&file.file, case, false));
                text.push('\n');
            }
        }
        text.push_str(&test_summary(record));
        text
    }

    #[test]
    fn human_lines_show_each_case_and_what_differed() {
        insta::assert_snapshot!(whole(&record()));
    }

    #[test]
    fn coloured_lines_read_the_same_without_the_codes() {
        let record = record();
        let case = &record.files[0].cases[1];
        assert_eq!(
            style::strip(&case_text("a.cases.yaml", case, true)),
            case_text("a.cases.yaml", case, false)
        );
    }

    #[test]
    fn the_summary_counts_cases_left_out_by_fail_fast() {
        let mut record = record();
        record.summary.not_run = 2;
        assert_eq!(
            test_summary(&record),
            "summary: 1 passed, 1 failed, 1 error(s), 2 not run (--fail-fast) in 2 file(s) (40 ms); exit 3"
        );
    }
}
