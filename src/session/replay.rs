//! What evals saw, read back from a run's events: the driver gathers an eval input
//! from the events of the turn, and `eval --transcript` rebuilds the same inputs from
//! a recorded run in one pass over its events.

use std::borrow::Borrow;

use serde_json::{Value as Json, json};

use crate::conversation::{
    EvalInput, History, HookRecord, ToolCallRecord, assistant_message, message,
    tool_message_with_parts,
};
use crate::evals::Point;

use super::SessionEvent;
use super::workflow::WorkflowRecorder;

/// What evals judge at `point`, from `events` (the turn's events for a turn, the
/// whole session's at its end): the last answer, every tool call, and every hook
/// consulted (hook events carry no turn: the events given are the scope). One pass,
/// so the events may be read straight from a log.
pub fn judged<E: Borrow<SessionEvent>>(
    events: impl IntoIterator<Item = E>,
    point: Point,
) -> Judged {
    let in_scope = |turn: u32| match point {
        Point::TurnEnd(t) => t == turn,
        Point::SessionEnd => true,
    };
    let mut judged = Judged::default();
    let Judged {
        content,
        tool_calls,
        hooks,
        guardrails,
    } = &mut judged;
    for event in events {
        match event.borrow() {
            SessionEvent::Assistant {
                turn, content: c, ..
            } if in_scope(*turn) => content.clone_from(c),
            SessionEvent::Guardrail { validator, .. } => guardrails.push(validator.clone()),
            SessionEvent::HooksRan { phase, hooks: ran } => {
                hooks.extend(ran.iter().map(|hook| HookRecord {
                    hook: hook.clone(),
                    phase: phase.to_string(),
                    action: None,
                    reason: None,
                }));
            }
            SessionEvent::Hook {
                phase,
                hook,
                action,
                reason,
            } => hooks.push(HookRecord {
                hook: hook.clone(),
                phase: phase.to_string(),
                action: Some(action.to_string()),
                reason: reason.clone(),
            }),
            SessionEvent::ToolCall {
                turn,
                name,
                args,
                status,
                content,
                parts,
                ..
            } if in_scope(*turn) => {
                let ok = status.is_ok();
                tool_calls.push(ToolCallRecord {
                    name: name.clone(),
                    args: args.clone(),
                    result: ok.then(|| content.clone()),
                    error: (!ok).then(|| content.clone()),
                    parts: parts.clone(),
                });
            }
            _ => {}
        }
    }
    judged
}

/// The answer, tool calls and hooks of a judged turn or session.
#[derive(Debug, Default)]
pub struct Judged {
    pub content: String,
    pub tool_calls: Vec<ToolCallRecord>,
    pub hooks: Vec<HookRecord>,
    pub guardrails: Vec<String>,
}

/// The eval points of a recorded run, each with the input its evals saw, in order.
/// The history is rebuilt from the user, assistant and tool events as the run went;
/// what a hook rewrote in it is not in the events, so a replay sees it as recorded
/// before the rewrite.
pub struct EvalPoints<'e> {
    events: &'e [SessionEvent],
    next: usize,
    turn: u32,
    /// Where the events of the current turn begin.
    turn_start: usize,
    history: History,
    variables: Json,
    workflow: WorkflowRecorder,
}

impl<'e> EvalPoints<'e> {
    pub fn new(events: &'e [SessionEvent]) -> Self {
        Self {
            events,
            next: 0,
            turn: 0,
            turn_start: 0,
            history: History::default(),
            variables: json!({}),
            workflow: WorkflowRecorder::default(),
        }
    }
}

impl Iterator for EvalPoints<'_> {
    type Item = (Point, EvalInput);

    fn next(&mut self) -> Option<Self::Item> {
        while let Some(event) = self.events.get(self.next) {
            let at = self.next;
            self.next += 1;
            self.workflow.observe(event);
            match event {
                SessionEvent::SessionStart { variables, .. } => self.variables = variables.clone(),
                SessionEvent::User { turn, content } => {
                    self.turn = *turn;
                    self.turn_start = at;
                    self.history.push(message("user", content));
                }
                SessionEvent::Assistant {
                    content,
                    tool_calls,
                    ..
                } => self.history.push(assistant_message(content, tool_calls)),
                SessionEvent::ToolCall {
                    name,
                    call_id,
                    status,
                    content,
                    parts,
                    ..
                } => {
                    let error = (!status.is_ok()).then_some(content.as_str());
                    self.history.push(tool_message_with_parts(
                        call_id, name, content, error, parts,
                    ));
                }
                SessionEvent::EvalPoint {
                    turn,
                    messages,
                    metadata,
                    input,
                } => {
                    let point = turn.map_or(Point::SessionEnd, Point::TurnEnd);
                    if let Some(input) = input {
                        return Some((point, (**input).clone()));
                    }
                    let scope = match point {
                        Point::TurnEnd(_) => &self.events[self.turn_start..at],
                        Point::SessionEnd => &self.events[..at],
                    };
                    let Judged {
                        content,
                        tool_calls,
                        hooks,
                        guardrails,
                    } = judged(scope, point);
                    let input = EvalInput {
                        content,
                        messages: self.history.prefix(*messages),
                        turn_index: self.turn,
                        tool_calls,
                        hooks,
                        guardrails,
                        variables: self.variables.clone(),
                        metadata: metadata.clone(),
                        workflow: self.workflow.record(),
                    };
                    return Some((point, input));
                }
                _ => {}
            }
        }
        None
    }
}
