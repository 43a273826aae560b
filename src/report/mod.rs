//! Turns a session's events into what people and machines read: the human stream and
//! summary on stderr, one JSON document, JUnit XML, and the JSONL transcript.

mod check;
mod human;
mod json;
mod junit;
mod model_totals;
mod record;
mod suite;
mod summary;
mod terminal;
mod transcript;

pub use check::{check_human, check_json, check_junit};
pub use human::{HumanStream, describe, stderr_excerpt};
pub use json::{JsonReport, json_report};
pub use junit::junit_report;
pub use model_totals::{ModelTotals, dollars};
pub use record::{Failure, RunRecord, evals_of, failures_of, turn_outcome, warnings_json};
pub use suite::{
    ScenarioRecord, SuiteJson, SuiteRecord, result_word, suite_junit, suite_summary, totals_line,
};
pub use summary::{evals_table, problems, problems_except, summary, table};
pub use terminal::Terminal;
pub use transcript::Transcript;
