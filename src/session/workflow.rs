//! A workflow played in a conversation, as PromptKit plays it. The model of a state
//! that can move on is offered `workflow__transition` with that state's events; a
//! call is answered at once (`transition_scheduled`) and takes effect when the round's
//! tool calls are done, so the next round speaks with the new state's prompt and
//! tools, in the same turn. The move is refused, and the state stays, when the event
//! does not leave the state, the state is terminal, the target's `max_visits` is
//! reached with no `on_max_visits`, or the run's budget is spent; each step is a
//! [`SessionEvent::Workflow`]. When a state declares artifact slots, the model is also
//! offered `workflow__set_artifact`, whose values later prompts see. The
//! [`WorkflowRecorder`] reads the events back into what evals see, live and from a
//! transcript alike.

use std::collections::HashMap;
use std::time::Instant;

use indexmap::IndexMap;
use serde_json::{Value as Json, json};

use crate::conversation::{StateMark, TransitionRecord, WorkflowRecord};
use crate::pack::workflow::{
    ARTIFACT_DESCRIPTION, ARTIFACT_TOOL, ArtifactMode, CONTEXT_VARIABLE, Orchestration, State,
    TRANSITION_DESCRIPTION, TRANSITION_TOOL, Workflow,
};

use super::SessionEvent;

/// Why an event did not move the workflow; PromptKit's words.
#[derive(Debug, thiserror::Error)]
enum Refusal {
    #[error("workflow budget exhausted: {limit} {current} reached limit {max}")]
    Budget {
        limit: &'static str,
        current: u32,
        max: u32,
    },
    #[error("current state is terminal (no outgoing transitions): state {0:?} is terminal")]
    Terminal(String),
    #[error(
        "invalid event for current state: event {event:?} not defined for state {state:?} (available: [{available}])"
    )]
    InvalidEvent {
        event: String,
        state: String,
        available: String,
    },
    #[error("state {0:?} not found in the workflow")]
    StateNotFound(String),
    #[error("max visits exceeded: state {state:?} visited {visits} times (max {max})")]
    MaxVisits {
        state: String,
        visits: u32,
        max: u32,
    },
}

/// A transition the model asked for, applied once the round's tool calls are done.
#[derive(Debug, Clone, PartialEq)]
struct Pending {
    event: String,
    brief: String,
}

/// What applying a pending transition came to: the event that says so.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Committed {
    /// The state left, and the state entered (the same when refused).
    pub from: String,
    pub to: String,
    pub event: String,
    pub redirected_from: Option<String>,
    pub refused: Option<String>,
}

/// One conversation's walk through a workflow.
#[derive(Debug)]
pub(crate) struct WorkflowRun<'a> {
    spec: &'a Workflow,
    current: &'a State,
    visits: HashMap<&'a str, u32>,
    tool_calls: u32,
    started: Instant,
    pending: Option<Pending>,
    /// The last brief written by a state left behind (`{{workflow_context}}`).
    brief: Option<String>,
    /// The arguments' schema for the current state's events.
    schema: Json,
    /// The artifacts set so far, by name.
    artifacts: IndexMap<String, String>,
    /// The artifact tool's arguments: one of the names the states declare.
    artifact_schema: Json,
}

impl<'a> WorkflowRun<'a> {
    /// The run of `spec` for a conversation on prompt `prompt`, starting in the state
    /// that speaks with it; `None` when no state does (the workflow is not played).
    pub(crate) fn start(spec: &'a Workflow, prompt: &str) -> Option<Self> {
        let state = spec.start_state(prompt)?;
        Some(Self {
            spec,
            current: state,
            visits: HashMap::from([(state.name.as_str(), 1)]),
            tool_calls: 0,
            started: Instant::now(),
            pending: None,
            brief: None,
            schema: schema(state),
            artifacts: IndexMap::new(),
            artifact_schema: artifact_schema(spec),
        })
    }

    pub(crate) fn spec(&self) -> &'a Workflow {
        self.spec
    }

    pub(crate) fn state(&self) -> &'a State {
        self.current
    }

    /// The transition tool as the model is offered it in this state; none in a
    /// terminal state or one the caller moves on (`orchestration: external`).
    pub(crate) fn tool(&self) -> Option<Json> {
        let state = self.current;
        if state.is_terminal() || state.orchestration == Orchestration::External {
            return None;
        }
        Some(json!({"type": "function", "function": {
            "name": TRANSITION_TOOL,
            "description": TRANSITION_DESCRIPTION,
            "parameters": self.schema,
        }}))
    }

    /// The arguments' schema of the workflow tool `name`.
    pub(crate) fn schema(&self, name: &str) -> Option<&Json> {
        match name {
            TRANSITION_TOOL => Some(&self.schema),
            ARTIFACT_TOOL if self.has_artifacts() => Some(&self.artifact_schema),
            _ => None,
        }
    }

    fn has_artifacts(&self) -> bool {
        self.spec.states.values().any(|s| !s.artifacts.is_empty())
    }

    /// The artifact tool, offered in every state when some state declares an
    /// artifact.
    pub(crate) fn artifact_tool(&self) -> Option<Json> {
        self.has_artifacts().then(|| {
            json!({"type": "function", "function": {
                "name": ARTIFACT_TOOL,
                "description": ARTIFACT_DESCRIPTION,
                "parameters": self.artifact_schema,
            }})
        })
    }

    /// A call of the artifact tool: the value set (or appended, as the slot says),
    /// answered as PromptKit answers it.
    pub(crate) fn set_artifact(&mut self, args: &Json) -> String {
        let name = args["name"].as_str().unwrap_or_default().to_string();
        let value = args["value"].as_str().unwrap_or_default();
        let slot = self.artifacts.entry(name.clone()).or_default();
        match self.spec.artifact_mode(self.current, &name) {
            ArtifactMode::Append => slot.push_str(value),
            ArtifactMode::Replace => *slot = value.to_string(),
        }
        json!({"artifact": name, "status": "artifact_set"}).to_string()
    }

    /// Counts a tool call towards `engine.budget.max_tool_calls`.
    pub(crate) fn count_tool_call(&mut self) {
        self.tool_calls += 1;
    }

    /// A call of the transition tool: kept for the end of the round (a later call
    /// in the same round replaces it), and answered as PromptKit answers it.
    pub(crate) fn call(&mut self, args: &Json) -> String {
        let text = |key: &str| args[key].as_str().unwrap_or_default().to_string();
        let event = text("event");
        // Keys in the order PromptKit's answer has them (sorted).
        let mut answer = json!({"event": event, "status": "transition_scheduled"});
        let target = self.current.on_event.get(&event).or_else(|| {
            self.spec
                .states
                .values()
                .find_map(|s| s.on_event.get(&event))
        });
        if let Some(target) = target {
            answer["target_state"] = json!(target);
        }
        self.pending = Some(Pending {
            event,
            brief: text("context"),
        });
        answer.to_string()
    }

    /// Applies the transition the round asked for, if any.
    pub(crate) fn commit(&mut self) -> Option<Committed> {
        let pending = self.pending.take()?;
        let from = self.current.name.clone();
        let mut done = Committed {
            from: from.clone(),
            to: from,
            event: pending.event.clone(),
            redirected_from: None,
            refused: None,
        };
        match self.process(&pending.event) {
            Ok((to, redirected_from)) => {
                *self.visits.entry(to.name.as_str()).or_default() += 1;
                self.current = to;
                self.schema = schema(to);
                if !pending.brief.is_empty() {
                    self.brief = Some(pending.brief);
                }
                done.to = to.name.clone();
                done.redirected_from = redirected_from;
            }
            Err(reason) => done.refused = Some(reason.to_string()),
        }
        Some(done)
    }

    /// Where `event` leads from the current state (and the state it was meant for,
    /// when `max_visits` redirected it), or why it leads nowhere; PromptKit's order
    /// and words.
    fn process(&self, event: &str) -> Result<(&'a State, Option<String>), Refusal> {
        self.check_budget()?;
        let state = self.current;
        if state.is_terminal() {
            return Err(Refusal::Terminal(state.name.clone()));
        }
        let Some(target) = state.on_event.get(event) else {
            return Err(Refusal::InvalidEvent {
                event: event.to_string(),
                state: state.name.clone(),
                available: state.events().join(" "),
            });
        };
        let spec = self.spec;
        let Some(to) = spec.state(target) else {
            return Err(Refusal::StateNotFound(target.clone()));
        };
        let visits = self.visits.get(to.name.as_str()).copied().unwrap_or(0);
        match to.max_visits {
            Some(max) if visits >= max => {
                match to.on_max_visits.as_deref().and_then(|r| spec.state(r)) {
                    Some(redirect) => Ok((redirect, Some(to.name.clone()))),
                    None => Err(Refusal::MaxVisits {
                        state: to.name.clone(),
                        visits,
                        max,
                    }),
                }
            }
            _ => Ok((to, None)),
        }
    }

    fn check_budget(&self) -> Result<(), Refusal> {
        let budget = self.spec.budget;
        let spent = |limit: &'static str, current: u32, max: Option<u32>| match max {
            Some(max) if current >= max => Err(Refusal::Budget {
                limit,
                current,
                max,
            }),
            _ => Ok(()),
        };
        spent(
            "max_total_visits",
            self.visits.values().sum(),
            budget.max_total_visits,
        )?;
        spent("max_tool_calls", self.tool_calls, budget.max_tool_calls)?;
        let elapsed = u32::try_from(self.started.elapsed().as_secs()).unwrap_or(u32::MAX);
        spent("max_wall_time_sec", elapsed, budget.max_wall_time_sec)
    }

    /// The variables a state's prompt is rendered with beyond the conversation's:
    /// the brief of the state left behind, and `artifacts.NAME` for each artifact set.
    pub(crate) fn variables(&self) -> Vec<(String, String)> {
        let brief = self
            .brief
            .clone()
            .map(|b| (CONTEXT_VARIABLE.to_string(), b));
        let artifacts = self
            .artifacts
            .iter()
            .map(|(name, value)| (format!("artifacts.{name}"), value.clone()));
        brief.into_iter().chain(artifacts).collect()
    }
}

/// The transition tool's arguments in `state`: one of its events, and a summary to
/// carry forward, both required.
fn schema(state: &State) -> Json {
    json!({
        "type": "object",
        "properties": {
            "event": {
                "type": "string",
                "enum": state.events(),
                "description": "The workflow event to trigger.",
            },
            "context": {
                "type": "string",
                "description": "Summary of relevant context to carry forward.",
            },
        },
        "required": ["event", "context"],
    })
}

/// The artifact tool's arguments: a declared name and a value, both required.
fn artifact_schema(spec: &Workflow) -> Json {
    json!({
        "type": "object",
        "properties": {
            "name": {
                "type": "string",
                "enum": spec.artifact_names(),
                "description": "The artifact name to set.",
            },
            "value": {"type": "string", "description": "The artifact value."},
        },
        "required": ["name", "value"],
    })
}

/// The workflow as evals see it, built from the session's events in order.
#[derive(Debug, Clone, Default)]
pub(crate) struct WorkflowRecorder {
    record: Option<WorkflowRecord>,
}

impl WorkflowRecorder {
    pub(crate) fn observe(&mut self, event: &SessionEvent) {
        match event {
            SessionEvent::Workflow {
                turn,
                from,
                state,
                trigger,
                redirected_from,
                refused,
                terminal,
                ..
            } => {
                let record = self.record.get_or_insert_with(WorkflowRecord::default);
                if refused.is_some() {
                    return;
                }
                if let (Some(from), Some(event)) = (from, trigger) {
                    record.transitions.push(TransitionRecord {
                        from: from.clone(),
                        to: state.clone(),
                        event: event.clone(),
                        turn: *turn,
                        redirected_from: redirected_from.clone(),
                    });
                }
                record.current_state.clone_from(state);
                record.complete = *terminal;
            }
            SessionEvent::Assistant { turn, content, .. } if !content.trim().is_empty() => {
                if let Some(record) = &mut self.record {
                    let state = record.current_state.clone();
                    record.spoken.push(StateMark {
                        turn: *turn,
                        state,
                        name: None,
                    });
                }
            }
            SessionEvent::ToolCall { turn, name, .. } => {
                if let Some(record) = &mut self.record {
                    let state = record.current_state.clone();
                    record.tool_calls.push(StateMark {
                        turn: *turn,
                        state,
                        name: Some(name.clone()),
                    });
                }
            }
            _ => {}
        }
    }

    /// What evals see now; `None` when no workflow is played.
    pub(crate) fn record(&self) -> Option<WorkflowRecord> {
        self.record.clone()
    }
}

/// The workflow of a run as its events tell it; `None` when none was played.
pub(crate) fn workflow_of<E: std::borrow::Borrow<SessionEvent>>(
    events: impl IntoIterator<Item = E>,
) -> Option<WorkflowRecord> {
    let mut recorder = WorkflowRecorder::default();
    for event in events {
        recorder.observe(event.borrow());
    }
    recorder.record
}
