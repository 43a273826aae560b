//! JUnit XML for a test run: one `<testsuite>` per case file, one `<testcase>` per
//! case; a case whose extension answered otherwise is a `<failure>`, one whose
//! extension failed unexpectedly an `<error>`, and a case `--fail-fast` left out is
//! `<skipped>`.

use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::record::{CaseRecord, CaseStatus, TestRecord};

pub(crate) fn test_junit(record: &TestRecord) -> Result<String, quick_junit::SerializeError> {
    let mut report = Report::new("promptexec test");
    report.set_time(Duration::from_millis(record.summary.duration_ms));
    for file in &record.files {
        let mut suite = TestSuite::new(file.file.as_str());
        suite.set_time(Duration::from_millis(file.duration_ms));
        for case in &file.cases {
            suite.add_test_case(test_case(case));
        }
        for name in &file.not_run {
            let mut status = TestCaseStatus::skipped();
            status.set_message("not run: --fail-fast stopped after a failure");
            suite.add_test_case(TestCase::new(name.as_str(), status));
        }
        report.add_test_suite(suite);
    }
    report.to_string()
}

fn test_case(case: &CaseRecord) -> TestCase {
    let kind = match case.status {
        CaseStatus::Passed => None,
        CaseStatus::Failed => Some(NonSuccessKind::Failure),
        CaseStatus::Error => Some(NonSuccessKind::Error),
    };
    let status = match kind {
        None => TestCaseStatus::success(),
        Some(kind) => {
            let mut status = TestCaseStatus::non_success(kind);
            status.set_message(case.message.clone().unwrap_or_default());
            status.set_description(case.problems.join("\n"));
            status
        }
    };
    let mut test = TestCase::new(case.name.as_str(), status);
    test.set_classname(format!("{}.{}", case.kind, case.target));
    test.set_time(Duration::from_millis(case.duration_ms));
    if kind.is_some() {
        // What the extension answered, to see what differed without running it again.
        test.set_system_out(serde_json::to_string_pretty(&case.actual).unwrap_or_default());
        if !case.stderr_tail.trim().is_empty() {
            test.set_system_err(case.stderr_tail.trim_end());
        }
    }
    test
}

#[cfg(test)]
mod tests {
    use super::super::test_support::record;
    use super::*;

    #[test]
    fn junit_has_a_suite_per_file_and_says_what_each_failure_answered() {
        let mut record = record();
        record.files[1].not_run.push("left out".into());
        insta::assert_snapshot!(test_junit(&record).expect("XML"));
    }
}
