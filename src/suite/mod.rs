//! Suites: PromptArena scenario files played against the pack, many at once, in
//! deterministic shards, folded into one report; and case files, the unit tests
//! of extensions (`cases`).

pub(crate) mod cases;

mod assertions;
mod discover;
mod scenario;
mod scenario_file;
mod select;
mod verdict;

pub(crate) use assertions::{Check, plan as plan_assertions};
pub(crate) use discover::{default_folder, files_below, scenario_files};
pub(crate) use scenario::{Assertion, Consent, Scenario, Turn, UnplayedTurn};
pub(crate) use scenario_file::load as load_scenario;
pub(crate) use select::{Shard, matches, select};
pub(crate) use verdict::{Outcome, Verdict, fold};
