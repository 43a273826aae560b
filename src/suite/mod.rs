//! Suites: PromptArena scenario files played against the pack, many at once, in
//! deterministic shards, folded into one report; and case files, the unit tests
//! of extensions (`cases`).

pub mod cases;

mod assertions;
mod discover;
mod scenario;
mod scenario_file;
mod select;
mod verdict;

pub use assertions::{Check, Planned, plan as plan_assertions};
pub use discover::{default_folder, files_below, is_scenario_file, scenario_files};
pub use scenario::{
    Assertion, Consent, FailureMode, Scenario, ScenarioPolicy, ToolFailure, Turn, UnplayedTurn,
};
pub use scenario_file::{API_VERSION, load as load_scenario};
pub use select::{Shard, matches, select};
pub use verdict::{Outcome, Verdict, fold};
