//! The workflow in the turn loop: its start told, the transition tool answered, and
//! after each round the transition it asked for applied, so the next round speaks
//! as the new state (its prompt, its tools, its guardrails).

use serde_json::Value as Json;

use crate::pack::workflow::{ARTIFACT_TOOL, Orchestration, TRANSITION_TOOL};
use crate::pack::{Prompt, VarInputs, render_prompt};
use crate::session::workflow::WorkflowRun;
use crate::session::{CallStatus, Guardrails, SessionEvent, TurnEndReason};
use crate::template::Segment;

use super::{Session, TurnEnd};

impl<'a> Session<'a> {
    /// The workflow run, when `name` is one of its tools.
    pub(super) fn workflow_tool(&self, name: &str) -> Option<&WorkflowRun<'a>> {
        self.workflow
            .as_ref()
            .filter(|run| run.schema(name).is_some())
    }

    /// Tells of the state the workflow starts in.
    pub(super) fn workflow_started(&mut self) {
        let Some(run) = &self.workflow else {
            return;
        };
        let state = run.state();
        self.emit(SessionEvent::Workflow {
            turn: 0,
            from: None,
            state: state.name.clone(),
            trigger: None,
            redirected_from: None,
            refused: None,
            terminal: state.is_terminal(),
            system_prompt: None,
        });
    }

    /// A call of a workflow tool, answered at once: status, result, duration.
    pub(super) fn workflow_call(&mut self, name: &str, args: &Json) -> (CallStatus, String, u64) {
        match (&mut self.workflow, name) {
            (Some(run), TRANSITION_TOOL) => (CallStatus::Ok, run.call(args), 0),
            (Some(run), ARTIFACT_TOOL) => (CallStatus::Ok, run.set_artifact(args), 0),
            _ => (
                CallStatus::Error,
                format!("tool `{name}` is not available"),
                0,
            ),
        }
    }

    /// Applies the transition this round asked for. When the state changed, the
    /// next round runs with its prompt; `Some` when the turn stops there (a state
    /// the caller or a composition moves on).
    pub(super) fn settle_workflow(&mut self, turn: u32) -> Option<TurnEnd> {
        let committed = self.workflow.as_mut()?.commit()?;
        let state = self.workflow.as_ref()?.state();
        let moved = committed.refused.is_none();
        // A state entered again is rendered anew: its brief may have changed.
        if moved && let Some(prompt) = self.pack.prompts.get(&state.prompt_task) {
            self.enter(prompt);
        }
        self.emit(SessionEvent::Workflow {
            turn,
            from: Some(committed.from),
            state: committed.to,
            trigger: Some(committed.event),
            redirected_from: committed.redirected_from,
            refused: committed.refused,
            terminal: state.is_terminal(),
            system_prompt: moved.then(|| self.system_prompt.clone()),
        });
        if !moved {
            return None;
        }
        match state.orchestration {
            Orchestration::External | Orchestration::Composition => {
                self.end_turn(turn, TurnEndReason::Answered);
                Some(TurnEnd::Answered)
            }
            Orchestration::Internal | Orchestration::Hybrid => None,
        }
    }

    /// The conversation goes on with `prompt`: its system prompt rendered with the
    /// conversation's variables and the brief of the state left behind, its tools
    /// and its guardrails.
    fn enter(&mut self, prompt: &'a Prompt) {
        self.prompt = prompt;
        self.guardrails = Guardrails::of(prompt);
        self.system_prompt = self.render_state(prompt);
    }

    /// `prompt`'s system prompt for this conversation. As PromptKit does, a prompt
    /// that cannot be rendered is used as written (and the reason logged).
    fn render_state(&self, prompt: &Prompt) -> String {
        let used: Vec<&str> = prompt
            .system_template
            .template
            .placeholders()
            .map(|p| p.name.as_str())
            .collect();
        let wanted = |name: &str| prompt.variable(name).is_some() || used.contains(&name);
        let mut inputs = VarInputs::new();
        if let Some(values) = self.variables.as_object() {
            for (name, value) in values {
                if wanted(name) {
                    inputs.insert(name.clone(), value.clone());
                }
            }
        }
        for (name, value) in self
            .workflow
            .as_ref()
            .map(WorkflowRun::variables)
            .unwrap_or_default()
        {
            if wanted(&name) {
                inputs.insert(name, Json::String(value));
            }
        }
        match render_prompt(self.pack, prompt, &inputs) {
            Ok(text) => text,
            Err(problems) => {
                tracing::warn!(
                    "prompt `{}` of the workflow's new state is used as written: {problems}",
                    prompt.id
                );
                as_written(prompt)
            }
        }
    }
}

/// A prompt's template with its placeholders left in.
fn as_written(prompt: &Prompt) -> String {
    prompt
        .system_template
        .template
        .segments()
        .iter()
        .map(|segment| match segment {
            Segment::Text(text) => text.clone(),
            Segment::Placeholder(p) => format!("{{{{{}}}}}", p.name),
        })
        .collect()
}
