//! Evals at their triggers: what they see of the session, and where results go.

use serde_json::json;

use crate::evals::{EvalInput, Point, ToolCallRecord};
use crate::session::{Phase, SessionEvent};

use super::{SESSION_ID, Session};

impl Session<'_> {
    /// Runs the evals due at `point` and hands each result to the eval hooks.
    pub(super) async fn evaluate(&mut self, point: Point) {
        let input = self.eval_input(point);
        self.emit(SessionEvent::EvalPoint {
            turn: match point {
                Point::TurnEnd(turn) => Some(turn),
                Point::SessionEnd => None,
            },
            input: input.clone(),
        });
        let Some(evaluator) = self.evaluator.take() else {
            return;
        };
        for result in evaluator.run_due(point, SESSION_ID, &input).await {
            let notified = self
                .hooks
                .eval_result(&serde_json::to_value(&result).unwrap_or_default());
            self.hooks_ran(Phase::EVAL, notified);
            self.emit(SessionEvent::Eval(result));
        }
        self.evaluator = Some(evaluator);
    }

    /// What evals see: the last answer and the tool calls of the turn (of the whole
    /// session at its end).
    fn eval_input(&self, point: Point) -> EvalInput {
        let in_scope = |turn: u32| match point {
            Point::TurnEnd(t) => t == turn,
            Point::SessionEnd => true,
        };
        let content = self
            .events
            .iter()
            .rev()
            .find_map(|e| match e {
                SessionEvent::Assistant { turn, content, .. } if in_scope(*turn) => {
                    Some(content.clone())
                }
                _ => None,
            })
            .unwrap_or_default();
        let tool_calls = self
            .events
            .iter()
            .filter_map(|e| match e {
                SessionEvent::ToolCall {
                    turn,
                    name,
                    args,
                    status,
                    content,
                    ..
                } if in_scope(*turn) => {
                    let ok = status.is_ok();
                    Some(ToolCallRecord {
                        name: name.clone(),
                        args: args.clone(),
                        result: ok.then(|| content.clone()),
                        error: (!ok).then(|| content.clone()),
                    })
                }
                _ => None,
            })
            .collect();
        EvalInput {
            content,
            messages: self.messages.clone(),
            turn_index: self.turn,
            tool_calls,
            variables: self.variables.clone(),
            metadata: json!({
                "session_id": SESSION_ID,
                "prompt_id": self.prompt.id,
                "latency_ms": match point {
                    Point::TurnEnd(_) => self.turn_ms,
                    Point::SessionEnd => self.session_started.elapsed().as_millis() as u64,
                },
            }),
        }
    }
}
