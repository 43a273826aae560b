//! Guardrails and provider filters that answer in the model's place: an input
//! guardrail or a `before_call` filter keeps the user's message from the model, an
//! output guardrail cuts or replaces its answer.

use serde_json::json;

use crate::conversation::{ProviderResponse, message};
use crate::pack::Direction;
use crate::session::guardrails::Blocked;
use crate::session::{SessionEvent, TurnEndReason};

use super::{SAFETY, Session, TurnEnd};

/// The turn's answer when a provider filter enforced its policy without a replacement.
const BLOCKED_ANSWER: &str = "This request was blocked by a policy hook.";

impl Session<'_> {
    /// The prompt's output guardrails on the answer: when one fires, the answer is
    /// cut or replaced, its tool calls are dropped, and its finish reason is
    /// `safety`. Answers with no text (tool calls only) have nothing to judge.
    pub(super) fn guard(
        &mut self,
        turn: u32,
        mut response: ProviderResponse,
    ) -> (ProviderResponse, bool) {
        let text = response.message["content"].as_str().unwrap_or_default();
        if self.guardrails.is_empty() || text.is_empty() {
            return (response, false);
        }
        let Some(guarded) = self.guardrails.check(text) else {
            return (response, false);
        };
        for firing in &guarded.firings {
            self.emit(SessionEvent::Guardrail {
                turn,
                validator: firing.validator.clone(),
                detail: firing.detail.clone(),
                enforced: guarded.enforced.to_string(),
                fails_run: firing.fails_run,
                direction: Direction::Output,
            });
        }
        response.message = message("assistant", &guarded.text);
        response.message["finish_reason"] = json!(SAFETY);
        (response, true)
    }

    /// An input guardrail fired on the user's message: the model is not called, the
    /// turn's answer is the guardrail's message (else PromptKit's default), and the
    /// message is withheld from every later model call.
    pub(super) fn block_input(&mut self, turn: u32, blocked: Blocked) -> TurnEnd {
        let Blocked { firing, answer } = blocked;
        self.emit(SessionEvent::Guardrail {
            turn,
            validator: firing.validator.clone(),
            detail: firing.detail,
            enforced: "blocked".into(),
            fails_run: firing.fails_run,
            direction: Direction::Input,
        });
        let withheld = format!("[message withheld by guardrail `{}`]", firing.validator);
        self.answer_in_place(turn, &withheld, answer)
    }

    /// A provider filter enforced its policy before the model was called: the model
    /// is not called, the turn's answer is the hook's replacement (else a fixed
    /// notice) with finish reason `safety`, and the message the hook objected to is
    /// withheld from every later model call.
    pub(super) fn answer_for_hook(
        &mut self,
        turn: u32,
        hook: &str,
        replacement: Option<String>,
    ) -> TurnEnd {
        let withheld = format!("[message withheld by hook `{hook}`]");
        let text = replacement.unwrap_or_else(|| BLOCKED_ANSWER.to_string());
        self.answer_in_place(turn, &withheld, text)
    }

    /// Answers the turn with `text` (finish reason `safety`) in the model's place,
    /// the last user message replaced by `withheld` in the history.
    fn answer_in_place(&mut self, turn: u32, withheld: &str, text: String) -> TurnEnd {
        let last_user = self.messages.iter().rposition(|m| m["role"] == "user");
        if let Some(at) = last_user {
            self.messages.set(at, message("user", withheld));
        }
        let mut answer = message("assistant", &text);
        answer["finish_reason"] = json!(SAFETY);
        self.emit(SessionEvent::Assistant {
            turn,
            content: text,
            tool_calls: Vec::new(),
        });
        self.messages.push(answer);
        self.end_turn(turn, TurnEndReason::AnsweredForSafety);
        TurnEnd::Answered
    }
}
