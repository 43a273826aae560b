//! One conversation's renderers, each from a record made here: the closing summary,
//! the JSON document and the JUnit XML.

use crate::evals::EvalStatus;

use super::suite_tests::{eval, trial};
use super::{JsonReport, RunRecord, junit_report, problems, summary};

/// Two evals after one answered turn: one passes, one fails.
fn record() -> RunRecord {
    let mut record = trial(
        "greets",
        "Hello, traveller.",
        vec![
            eval("polite", EvalStatus::Passed, ""),
            eval("names-the-city", EvalStatus::Failed, "missing `Paris`"),
        ],
    );
    record.exit_code = 1;
    record
}

#[test]
fn summary_counts_the_run_and_tables_its_evals() {
    insta::assert_snapshot!(summary(&record()));
}

#[test]
fn problems_name_the_eval_that_failed() {
    assert_eq!(
        problems(&record()),
        ["eval `names-the-city` failed with score 0.00: missing `Paris`"]
    );
}

#[test]
fn json_report_has_totals_turns_and_every_event() {
    let document = serde_json::to_string_pretty(&JsonReport(&record())).expect("serializes");
    insta::assert_snapshot!(document);
}

#[test]
fn junit_report_has_a_case_per_turn_and_per_eval() {
    insta::assert_snapshot!(junit_report(&record(), "promptexec run chat").expect("XML"));
}
