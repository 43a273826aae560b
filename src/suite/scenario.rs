//! A PromptArena scenario, resolved: the prompt it plays, its user turns with their
//! assertions, consent answers and injected tool failures, and what is judged at
//! the end of the conversation.

use std::path::PathBuf;

use indexmap::IndexMap;
use serde_json::Value as Json;

use crate::doc::Pos;
use crate::pack::{ToolChoice, When};
pub use crate::session::{FailureMode, ToolFailure};

/// One `kind: Scenario` file.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub path: PathBuf,
    /// `metadata.name`, else `spec.id`: the mock script's scenario key and what
    /// `--filter` and `--shard` select by.
    pub id: String,
    /// `spec.task_type`: the pack prompt it plays.
    pub task_type: String,
    /// Where `task_type` is written, for a message when no prompt has that id.
    pub task_type_pos: Pos,
    pub description: String,
    /// `metadata.labels` (and `spec.labels`), in file order.
    pub labels: IndexMap<String, String>,
    /// Template variables, over the prompt's defaults.
    pub variables: IndexMap<String, String>,
    pub tool_policy: Option<ScenarioPolicy>,
    pub turns: Vec<Turn>,
    pub conversation_assertions: Vec<Assertion>,
    /// How many times the scenario is played (at least 1).
    pub trials: u32,
    /// `spec.providers`: the provider that plays it, and where that is written.
    pub provider: Option<(String, Pos)>,
    /// `spec.streaming`: ask the provider for streamed answers.
    pub streaming: Option<bool>,
    pub pos: Pos,
}

/// `spec.tool_policy`: replaces the prompt's for this scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioPolicy {
    pub tool_choice: ToolChoice,
    pub max_rounds: Option<u64>,
    pub max_tool_calls_per_turn: u64,
    pub max_total_tool_calls: u64,
    pub max_identical_tool_calls: Option<u64>,
    pub blocklist: Vec<String>,
}

/// One user turn.
#[derive(Debug, Clone)]
pub struct Turn {
    pub content: String,
    pub assertions: Vec<Assertion>,
    /// How pending calls of each tool are answered during this turn.
    pub consent: Vec<(String, Consent)>,
    pub chaos: Vec<ToolFailure>,
    /// `streaming` for this turn, over the scenario's.
    pub streaming: Option<bool>,
    pub pos: Pos,
}

/// One assertion as written: its `type` is checked against what can run when the
/// scenario is planned, with the config's evals at hand.
#[derive(Debug, Clone)]
pub struct Assertion {
    pub kind: String,
    pub params: Json,
    pub message: Option<String>,
    pub when: When,
    /// The share of trials it must pass in (1.0: every one).
    pub pass_threshold: f64,
    pub pos: Pos,
}

crate::wire_enum! {
    /// A `consent_overrides` answer to a pending call.
    pub enum Consent {
        Grant = "grant",
        Deny = "deny",
        Timeout = "timeout",
    }
}
