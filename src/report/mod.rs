//! Turns a session's events into what people and machines read: the human stream and
//! summary on stderr, one JSON document, JUnit XML, and the JSONL transcript.

mod cases;
mod check;
mod check_record;
mod eval;
mod exit;
mod exit_fold;
mod hook_test;
mod html;
mod human;
mod invoke;
mod json;
mod junit;
mod library;
mod lint;
mod listing;
mod model_totals;
mod prompt_files;
mod record;
#[cfg(test)]
mod run_tests;
mod shard;
mod shard_merge;
mod share;
pub(crate) mod style;
mod suite;
mod suite_markdown;
mod suite_read;
#[cfg(test)]
mod suite_tests;
mod summary;
mod terminal;
mod tool_listing;
mod transcript;
mod validate;
mod verdict;

pub(crate) use cases::{
    CaseKind, CaseRecord, CaseStatus, FileRecord, TestRecord, case_text, test_junit, test_summary,
};
pub(crate) use check::{check_human, check_json, check_junit};
pub(crate) use check_record::{CheckRecord, CheckedKind, ExtensionCheck, Probe, ProbeResult};
pub(crate) use eval::{EvalReplay, eval_junit, result_lines};
pub(crate) use exit::Exit;
pub(crate) use exit_fold::{run_exit, worse};
pub(crate) use hook_test::{explain_exec, explain_rpc, hook_decisions};
pub(crate) use html::{HtmlKind, hash_source, html_page};
pub(crate) use human::{HumanStream, describe};
pub(crate) use invoke::{InvokeShown, Notice, Ran, invoke_notice, invoke_stdout, push_jsonl};
pub(crate) use json::JsonReport;
pub(crate) use junit::junit_report;
pub(crate) use library::{Answer, LibraryAnswer, StatsAnswer};
pub(crate) use lint::{lint_human, lint_json, lint_sarif};
pub(crate) use listing::{ListedCase, ListedEval, ListedHook, ListedScenario, ListedTool, Listing};
pub(crate) use model_totals::{ModelTotals, dollars};
pub(crate) use prompt_files::FolderAnswer;
pub(crate) use record::{LibraryPromptRef, RunRecord, failures_of, turn_outcome, warnings_json};
pub(crate) use shard::Shard;
pub(crate) use shard_merge::merge_shards;
pub(crate) use share::ShareAnswer;
pub(crate) use suite::{
    ScenarioRecord, SelfPlayed, SuiteJson, SuiteRecord, suite_junit, suite_summary, totals_line,
};
pub(crate) use suite_markdown::suite_markdown;
pub(crate) use suite_read::read_suite;
pub(crate) use summary::{evals_table, problems, problems_except, summary, table};
pub(crate) use terminal::Terminal;
pub(crate) use tool_listing::{ListedServer, ListedToolEntry, ServerAnswer, ToolListing};
pub(crate) use transcript::Transcript;
pub(crate) use validate::{Loaded, ValidateRecord, strict_verdict};
pub(crate) use verdict::{Check, Outcome, UnplayedTurn, Verdict};
