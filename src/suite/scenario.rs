//! A PromptArena scenario, resolved: the prompt it plays, its user turns with their
//! assertions, consent answers and injected tool failures, and what is judged at
//! the end of the conversation.

use std::path::PathBuf;
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::Value as Json;

use crate::conversation::ToolChoice;
use crate::doc::Pos;
use crate::pack::When;
pub(crate) use crate::session::{FailureMode, ToolFailure};

use super::self_play::{SelfPlayTurn, Speaker};

/// One `kind: Scenario` file.
#[derive(Debug, Clone)]
pub(crate) struct Scenario {
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
    /// The turns played, in file order.
    pub turns: Vec<Turn>,
    /// The turns of the file promptexec does not play (`assistant` turns, and
    /// self-play turns with no role or persona to play them): kept so their
    /// assertions are reported as skipped.
    pub unplayed: Vec<UnplayedTurn>,
    pub conversation_assertions: Vec<Assertion>,
    /// How many times the scenario is played (at least 1).
    pub trials: u32,
    /// `spec.providers`: the providers PromptArena plays it against, each with
    /// where it is written (promptexec plays one: `--provider`, else the first).
    pub providers: Vec<(String, Pos)>,
    /// `spec.streaming`: ask the provider for streamed answers.
    pub streaming: Option<bool>,
    pub pos: Pos,
}

/// `spec.tool_policy`: replaces the prompt's for this scenario. A limit of `0` is
/// unset, as in PromptKit: `None` here.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ScenarioPolicy {
    pub tool_choice: ToolChoice,
    pub max_rounds: Option<u64>,
    pub max_tool_calls_per_turn: Option<u64>,
    pub max_total_tool_calls: Option<u64>,
    pub max_identical_tool_calls: Option<u64>,
    pub blocklist: Vec<String>,
}

/// One user turn: scripted, or written by a self-play persona when played.
#[derive(Debug, Clone)]
pub(crate) struct Turn {
    pub content: String,
    /// The kinds of its media parts, which are not sent (only its text is): the turn
    /// is played in part.
    pub dropped: Vec<String>,
    pub assertions: Vec<Assertion>,
    /// How pending calls of each tool are answered during this turn.
    pub consent: Vec<(String, Consent)>,
    pub chaos: Vec<ToolFailure>,
    /// `streaming` for this turn, over the scenario's.
    pub streaming: Option<bool>,
    /// A self-play turn: the persona that writes its message when it is played
    /// (`content` is empty until then).
    pub speaker: Option<Arc<Speaker>>,
}

/// A turn of the file that is not played, with the assertions written under it.
#[derive(Debug, Clone)]
pub(crate) struct UnplayedTurn {
    /// Its place in `spec.turns`, from 1.
    pub index: u32,
    /// How many played turns come before it.
    pub after: u32,
    pub role: String,
    /// Why it is not played.
    pub reason: String,
    pub assertions: Vec<Assertion>,
    /// A self-play turn as written: played once its role and persona are known.
    pub self_play: Option<SelfPlayTurn>,
}

impl UnplayedTurn {
    /// Where it is, as reports name it.
    pub(crate) fn place(&self) -> String {
        self.fact().place()
    }

    /// What reports say of it.
    pub(crate) fn fact(&self) -> crate::report::UnplayedTurn {
        crate::report::UnplayedTurn {
            index: self.index,
            role: self.role.clone(),
            reason: self.reason.clone(),
            asserted: !self.assertions.is_empty(),
        }
    }
}

/// One assertion as written: its `type` is checked against what can run when the
/// scenario is planned, with the config's evals at hand.
#[derive(Debug, Clone)]
pub(crate) struct Assertion {
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
    pub(crate) enum Consent {
        Grant = "grant",
        Deny = "deny",
        Timeout = "timeout",
    }
}
