//! What a run of case files came to: a record per case and per file, and their
//! summary. The JSON report is this record as it is; the human lines and JUnit are
//! read from it.

use serde::Serialize;
use serde_json::Value as Json;

use crate::report::Exit;

crate::wire_enum! {
    /// How a case ended.
    pub(crate) enum CaseStatus {
        /// Every expectation held.
        Passed = "passed",
        /// The extension answered, and not as expected.
        Failed = "failed",
        /// The extension failed (crash, timeout, invalid output) and the case did not
        /// expect that.
        Error = "error",
    }
}

crate::wire_enum! {
    /// What a case calls.
    pub(crate) enum CaseKind {
        Tool = "tool",
        Hook = "hook",
    }
}

#[derive(Debug, Serialize)]
pub(crate) struct TestRecord {
    pub summary: Summary,
    /// In the order the command line gave them, whatever order they ran in.
    pub files: Vec<FileRecord>,
}

#[derive(Debug, Default, Serialize)]
pub(crate) struct Summary {
    pub passed: usize,
    pub failed: usize,
    pub errors: usize,
    /// Cases `--fail-fast` left out after a failure.
    pub not_run: usize,
    pub duration_ms: u64,
}

#[derive(Debug, Serialize)]
pub(crate) struct FileRecord {
    /// The path as given, or as found under a directory given.
    pub file: String,
    /// In file order.
    pub cases: Vec<CaseRecord>,
    /// The names of the cases `--fail-fast` left out.
    pub not_run: Vec<String>,
    #[serde(skip)]
    pub duration_ms: u64,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct CaseRecord {
    pub name: String,
    pub kind: CaseKind,
    /// The tool's or hook's name.
    pub target: String,
    pub status: CaseStatus,
    pub duration_ms: u64,
    /// What differed (each problem, joined by `; `), or what was done besides
    /// checking (a snapshot written); `null` when there is nothing to say.
    pub message: Option<String>,
    /// What the extension answered: `invoke-tool --format json`'s envelope, or
    /// `hook test`'s decision.
    pub actual: Json,
    /// What differed, one line each.
    #[serde(skip)]
    pub problems: Vec<String>,
    /// The extension's last stderr lines.
    #[serde(skip)]
    pub stderr_tail: String,
}

impl CaseRecord {
    /// `message` from the problems and a note.
    pub(crate) fn set_message(&mut self, note: Option<String>) {
        let mut parts = self.problems.clone();
        parts.extend(note);
        self.message = (!parts.is_empty()).then(|| parts.join("; "));
    }
}

impl TestRecord {
    pub(crate) fn new(files: Vec<FileRecord>, duration_ms: u64) -> Self {
        let mut summary = Summary {
            duration_ms,
            ..Summary::default()
        };
        for file in &files {
            summary.not_run += file.not_run.len();
            for case in &file.cases {
                match case.status {
                    CaseStatus::Passed => summary.passed += 1,
                    CaseStatus::Failed => summary.failed += 1,
                    CaseStatus::Error => summary.errors += 1,
                }
            }
        }
        Self { summary, files }
    }

    /// 3 when an extension failed unexpectedly, else 1 when a case failed, else 0.
    pub(crate) fn exit(&self) -> Exit {
        let statuses = || {
            self.files
                .iter()
                .flat_map(|file| &file.cases)
                .map(|c| c.status)
        };
        if statuses().any(|s| s == CaseStatus::Error) {
            Exit::ExtensionFailed
        } else if statuses().any(|s| s == CaseStatus::Failed) {
            Exit::No
        } else {
            Exit::Success
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::record;
    use super::*;

    #[test]
    fn the_json_report_is_the_record_as_it_is() {
        let json = serde_json::to_string_pretty(&record()).expect("a record serializes");
        insta::assert_snapshot!(json);
    }

    #[test]
    fn an_error_outranks_a_failure_in_the_exit_code() {
        let mut record = record();
        assert_eq!(record.exit(), Exit::ExtensionFailed);
        record.files.pop();
        assert_eq!(record.exit(), Exit::No);
        record.files[0].cases.pop();
        assert_eq!(record.exit(), Exit::Success);
    }
}
