//! Suites: PromptArena scenario files played against the pack, many at once, in
//! deterministic shards, folded into one report ([`run`]); one conversation played
//! to its record ([`play`]); and case files, the unit tests of extensions
//! (`cases`). Both engines take a plan built beforehand and return report records.

pub(crate) mod cases;

mod assertions;
mod discover;
#[cfg(test)]
mod engine_tests;
mod messages;
mod play;
mod run;
mod scenario;
mod scenario_file;
mod select;
pub(crate) mod self_play;
mod verdict;

pub(crate) use crate::report::{Check, Shard};
pub(crate) use assertions::plan as plan_assertions;
pub(crate) use discover::{default_folder, files_below, scenario_files};
pub(crate) use messages::UserMessages;
pub(crate) use play::{ConversationPlan, PlayError, play, variables_json, write_recording};
pub(crate) use run::{ScenarioPlan, SuiteEvent, SuitePlan, recording_path, run, transcript_path};
pub(crate) use scenario::{Assertion, Consent, Scenario, Turn, UnplayedTurn};
pub(crate) use scenario_file::load as load_scenario;
pub(crate) use select::{Slice, Timings, dealt, identity, matches, select};
pub(crate) use verdict::fold;
