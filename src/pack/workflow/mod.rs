//! A workflow: PromptKit's state machine over a pack's prompts (RFC 0005, with the
//! loop guards of RFC 0009). Each state names the prompt that speaks in it
//! (`prompt_task`) and the events that leave it (`on_event`); a state with no event,
//! or marked `terminal`, ends the workflow. `max_visits` caps how often a state is
//! entered (with `on_max_visits` to go elsewhere instead), and `engine.budget` caps
//! the whole run.
//!
//! This module is the model and its reader ([`parse`]), for a pack's `workflow`
//! section and an Arena config's `spec.workflow` alike; the session plays it.

mod parse;
#[cfg(test)]
mod tests;

use indexmap::IndexMap;

use crate::doc::Pos;

pub(crate) use parse::parse;

/// The name of the tool the model is offered to move the workflow on.
pub const TRANSITION_TOOL: &str = "workflow__transition";

/// What the transition tool says it does, in PromptKit's words.
pub const TRANSITION_DESCRIPTION: &str = "Transition the workflow to a new state by triggering an event. Use this when the conversation requires escalation, resolution, or any state change.";

/// The name of the tool the model is offered to set an artifact.
pub const ARTIFACT_TOOL: &str = "workflow__set_artifact";

/// What the artifact tool says it does, in PromptKit's words.
pub const ARTIFACT_DESCRIPTION: &str =
    "Set a workflow artifact value. Artifacts persist across state transitions.";

/// The template variable that carries the brief of the state left behind (the
/// transition's `context` argument) into the next state's prompt.
pub const CONTEXT_VARIABLE: &str = "workflow_context";

#[derive(Debug, Clone)]
pub struct Workflow {
    /// 1, or 2 (which asks states with nowhere to go to say `terminal`).
    pub version: u32,
    pub entry: String,
    /// In file order.
    pub states: IndexMap<String, State>,
    pub budget: Budget,
    pub pos: Pos,
}

#[derive(Debug, Clone)]
pub struct State {
    pub name: String,
    /// The prompt that speaks in this state; empty for a composition state.
    pub prompt_task: String,
    /// Where `prompt_task` is written (the state's place when it is not).
    pub prompt_task_pos: Pos,
    pub description: Option<String>,
    /// Event name to the state it leads to, in file order.
    pub on_event: IndexMap<String, String>,
    /// Marked `terminal: true`.
    pub terminal: bool,
    /// How often the state may be entered at most.
    pub max_visits: Option<u32>,
    /// Where a transition goes instead once `max_visits` is reached.
    pub on_max_visits: Option<String>,
    pub orchestration: Orchestration,
    /// Artifact slots (RFC 0009), by name: workflow-wide values the model sets with
    /// the artifact tool, shown to prompts as `{{artifacts.NAME}}`.
    pub artifacts: IndexMap<String, Artifact>,
    pub pos: Pos,
}

/// An artifact slot of a state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    /// A MIME type (`type`).
    pub media_type: String,
    pub mode: ArtifactMode,
}

crate::wire_enum! {
    /// How a value set is applied (`mode`).
    #[derive(Default)]
    pub enum ArtifactMode {
        #[default]
        Replace = "replace",
        Append = "append",
    }
}

impl State {
    /// A state ends the workflow when it says so or has no event to leave by.
    pub fn is_terminal(&self) -> bool {
        self.terminal || self.on_event.is_empty()
    }

    /// Its events, sorted, as the transition tool lists them.
    pub fn events(&self) -> Vec<&str> {
        let mut events: Vec<&str> = self.on_event.keys().map(String::as_str).collect();
        events.sort_unstable();
        events
    }
}

/// Limits on the whole run (`engine.budget`); none when absent or zero.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Budget {
    pub max_total_visits: Option<u32>,
    pub max_tool_calls: Option<u32>,
    pub max_wall_time_sec: Option<u32>,
}

crate::wire_enum! {
    /// Who moves the workflow on in a state (`orchestration`).
    #[derive(Default)]
    pub enum Orchestration {
        /// The model, with the transition tool.
        #[default]
        Internal = "internal",
        /// The caller: the model is not offered the tool, and a turn that enters
        /// such a state stops there.
        External = "external",
        Hybrid = "hybrid",
        /// A composition runs the state (RFC 0010): not played by promptexec.
        Composition = "composition",
    }
}

impl Workflow {
    pub fn state(&self, name: &str) -> Option<&State> {
        self.states.get(name)
    }

    /// The state a conversation on prompt `prompt` starts in, as PromptArena picks it
    /// from a scenario's `task_type`: the entry when its prompt is that one, else the
    /// one state whose prompt it is. `None`: no state (or several) speaks with it.
    pub fn start_state(&self, prompt: &str) -> Option<&State> {
        let entry = self.states.get(&self.entry)?;
        if entry.prompt_task == prompt {
            return Some(entry);
        }
        let mut matching = self.states.values().filter(|s| s.prompt_task == prompt);
        let first = matching.next()?;
        matching.next().is_none().then_some(first)
    }

    /// Every artifact name the states declare, sorted, each once.
    pub fn artifact_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .states
            .values()
            .flat_map(|s| s.artifacts.keys().map(String::as_str))
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// How a value of artifact `name` is applied in state `state`: that state's
    /// slot, else any state's, else replace.
    pub fn artifact_mode(&self, state: &State, name: &str) -> ArtifactMode {
        state
            .artifacts
            .get(name)
            .or_else(|| self.states.values().find_map(|s| s.artifacts.get(name)))
            .map_or(ArtifactMode::Replace, |a| a.mode)
    }

    /// Every prompt a state speaks with, each once, in file order.
    pub fn prompts(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for state in self.states.values() {
            if !state.prompt_task.is_empty() && !out.contains(&state.prompt_task.as_str()) {
                out.push(&state.prompt_task);
            }
        }
        out
    }
}
