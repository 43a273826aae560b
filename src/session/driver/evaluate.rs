//! Evals at their triggers: what they see of the session, and where results go.

use serde_json::json;

use crate::conversation::EvalInput;
use crate::evals::Point;
use crate::session::replay::{Judged, judged};
use crate::session::{Phase, SessionEvent};

use super::{SESSION_ID, Session};

impl Session<'_> {
    /// Runs the evals due at `point` and hands each result to the eval hooks. Where
    /// none is due, nothing is gathered and nothing recorded.
    pub(super) async fn evaluate(&mut self, point: Point) {
        let Some(evaluator) = self.evaluator.take() else {
            return;
        };
        if evaluator.any_due(point, SESSION_ID) {
            if point == Point::SessionEnd {
                // What the session's evals judge is read back from the log.
                self.events.flush();
            }
            let input = self.eval_input(point);
            self.emit(SessionEvent::EvalPoint {
                turn: match point {
                    Point::TurnEnd(turn) => Some(turn),
                    Point::SessionEnd => None,
                },
                messages: input.messages.len(),
                metadata: input.metadata.clone(),
                input: None,
            });
            for result in evaluator.run_due(point, SESSION_ID, &input).await {
                let notified = self
                    .hooks
                    .eval_result(&serde_json::to_value(&result).unwrap_or_default());
                self.hooks_ran(Phase::EVAL, notified);
                self.emit(SessionEvent::Eval(Box::new(result)));
            }
        }
        self.evaluator = Some(evaluator);
    }

    /// What evals see: the last answer, the tool calls and the hooks of the turn (of
    /// the whole session at its end), and the history as it stands, shared.
    fn eval_input(&self, point: Point) -> EvalInput {
        let Judged {
            content,
            tool_calls,
            hooks,
            guardrails,
        } = match point {
            Point::TurnEnd(_) => judged(&self.turn_events, point),
            Point::SessionEnd => judged(self.events.iter(), point),
        };
        let mut metadata = json!({
            "session_id": SESSION_ID,
            "prompt_id": self.prompt.id,
            "latency_ms": match point {
                Point::TurnEnd(_) => self.turn_ms,
                Point::SessionEnd => self.session_started.elapsed().as_millis() as u64,
            },
        });
        // What `cost_budget` reads, as PromptKit seeds it: the spend so far.
        if let Some(spent) = self.spent {
            metadata["input_tokens"] = spent.input_tokens.into();
            metadata["output_tokens"] = spent.output_tokens.into();
            metadata["total_cost"] = spent.cost_usd.unwrap_or(0.0).into();
        }
        EvalInput {
            content,
            messages: self.messages.clone(),
            turn_index: self.turn,
            tool_calls,
            hooks,
            guardrails,
            variables: self.variables.clone(),
            workflow: self.workflow_seen.record(),
            metadata,
        }
    }
}
