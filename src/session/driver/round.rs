//! One round of a turn, in its steps: the `before_call` hooks see the request, the
//! model answers, the `after_call` hooks and the output guardrails see the answer,
//! and each tool call in it runs. Each step either hands the next one its value or
//! ends the turn.

use std::time::Instant;

use serde_json::{Value as Json, json};

use crate::config::HookPhase;
use crate::conversation::{ProviderRequest, ProviderResponse, message};
use crate::hooks::Gate;
use crate::provider::{AssistantMessage, ModelCall};

use super::answer::{assistant_json, tool_calls_of};
use super::{HookAction, SAFETY, Session, SessionEvent, TurnEnd, TurnEndReason};

impl Session<'_> {
    /// One model call and the tool calls it asks for; `Some` when the turn ends
    /// with it.
    pub(super) async fn play_round(&mut self, turn: u32, round: u32) -> Option<TurnEnd> {
        if let Some(end) = self.cancelled() {
            return Some(end);
        }
        let (request, tools) = match self.request_gate(turn, round).await {
            Ok(passed) => passed,
            Err(end) => return Some(end),
        };
        let (answer, latency_ms) = match self.call_model(turn, round, &request, &tools).await {
            Ok(answered) => answered,
            Err(end) => return Some(end),
        };
        let response = match self.response_gate(turn, request, &answer, latency_ms).await {
            Ok(response) => response,
            Err(end) => return Some(end),
        };
        self.take_answer(turn, response, &answer).await
    }

    /// The request of this round through the `before_call` hooks: the request and
    /// the tools on offer as they left them.
    async fn request_gate(
        &mut self,
        turn: u32,
        round: u32,
    ) -> Result<(ProviderRequest, Vec<Json>), TurnEnd> {
        let request = ProviderRequest {
            provider_id: self.provider_id.clone(),
            model: self.model.clone(),
            messages: self.messages.clone(),
            system_prompt: self.system_prompt.clone(),
            round,
        };
        let before = self.hooks.before_call(request, self.prompt_tools()).await;
        self.hooks_ran(HookPhase::BeforeCall, before.ran);
        let (request, tools) = match before.gate {
            Gate::Proceed(value) => value,
            Gate::Replaced {
                hook,
                reason,
                replacement,
                ..
            } => {
                self.hook_event(
                    HookPhase::BeforeCall,
                    &hook,
                    HookAction::Replaced,
                    Some(reason),
                );
                return Err(self.answer_for_hook(turn, &hook, replacement));
            }
            gate => return Err(self.stop(HookPhase::BeforeCall, gate, turn)),
        };
        self.messages = request.messages.clone();
        self.offered = tools
            .iter()
            .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
            .collect();
        Ok((request, tools))
    }

    /// The model's answer to `request`, what was wrong with it said, and how long
    /// it took in milliseconds.
    async fn call_model(
        &mut self,
        turn: u32,
        round: u32,
        request: &ProviderRequest,
        tools: &[Json],
    ) -> Result<(AssistantMessage, u64), TurnEnd> {
        let started = Instant::now();
        self.hooks.event(
            "llm_request",
            &json!({"round": round, "messages": self.messages.len()}),
        );
        let call = ModelCall {
            turn,
            round,
            system_prompt: &self.system_prompt,
            model: &request.model,
            tool_choice: self.prompt.tool_policy.tool_choice,
            messages: &self.messages,
            tools,
            stream: self.stream,
        };
        if let Some(end) = self.cancelled() {
            return Err(end);
        }
        let completion = match self.provider.complete(call).await {
            Ok(completion) => completion,
            Err(err) => return Err(self.model_failed(turn, round, err)),
        };
        let answer = completion.message;
        let mut findings = completion.findings;
        if answer.content.trim().is_empty() && answer.tool_calls.is_empty() {
            findings.push("the answer is empty: no text and no tool call".into());
        }
        for finding in findings {
            self.emit(SessionEvent::ModelFinding {
                turn,
                round,
                finding,
            });
        }
        self.hooks.event("llm_response", &json!({"round": round, "content": answer.content, "tool_calls": answer.tool_calls.len()}));
        let latency_ms = started.elapsed().as_millis() as u64;
        if let Some(used) = completion.usage {
            let spent = self.spent.get_or_insert_with(Default::default);
            spent.input_tokens += used.input_tokens;
            spent.output_tokens += used.output_tokens;
            if let Some(cost) = used.cost_usd {
                *spent.cost_usd.get_or_insert(0.0) += cost;
            }
        }
        self.emit(SessionEvent::ModelCall {
            turn,
            round,
            answered_by: completion.answered_by,
            latency_ms,
            usage: completion.usage,
        });
        Ok((answer, latency_ms))
    }

    /// The answer through the `after_call` hooks. A hook that enforced its policy
    /// on it leaves its text standing (or the hook's replacement), marked as a
    /// safety finish, and no tool call it carried runs.
    async fn response_gate(
        &mut self,
        turn: u32,
        request: ProviderRequest,
        answer: &AssistantMessage,
        latency_ms: u64,
    ) -> Result<ProviderResponse, TurnEnd> {
        let response = ProviderResponse {
            provider_id: request.provider_id.clone(),
            model: request.model.clone(),
            message: assistant_json(answer),
            latency_ms,
        };
        let after = self.hooks.after_call(&request, response).await;
        // The request shares the history; let it go so appending copies nothing.
        drop(request);
        self.hooks_ran(HookPhase::AfterCall, after.ran);
        match after.gate {
            Gate::Proceed(response) => Ok(response),
            Gate::Replaced {
                hook,
                reason,
                replacement,
                mut value,
            } => {
                self.hook_event(
                    HookPhase::AfterCall,
                    &hook,
                    HookAction::Replaced,
                    Some(reason),
                );
                let text = replacement.unwrap_or_else(|| {
                    value.message["content"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string()
                });
                value.message = message("assistant", &text);
                value.message["finish_reason"] = json!(SAFETY);
                Ok(value)
            }
            gate => Err(self.stop(HookPhase::AfterCall, gate, turn)),
        }
    }

    /// The answer, through the output guardrails, joins the history; an answer
    /// without tool calls ends the turn, else each call runs in order.
    async fn take_answer(
        &mut self,
        turn: u32,
        response: ProviderResponse,
        answer: &AssistantMessage,
    ) -> Option<TurnEnd> {
        let (response, guarded) = self.guard(turn, response);
        let calls = tool_calls_of(&response.message, answer);
        self.emit(SessionEvent::Assistant {
            turn,
            content: response.message["content"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            tool_calls: response
                .message
                .get("tool_calls")
                .and_then(Json::as_array)
                .cloned()
                .unwrap_or_default(),
        });
        self.messages.push(response.message.clone());
        if guarded {
            self.end_turn(turn, TurnEndReason::AnsweredForSafety);
            return Some(TurnEnd::Answered);
        }
        if calls.is_empty() {
            self.end_turn(turn, TurnEndReason::Answered);
            return Some(TurnEnd::Answered);
        }
        for (i, call) in calls.iter().enumerate() {
            if let Some(end) = self.tool_call(call.clone()).await {
                self.close_unanswered(&calls[i..], &end);
                return Some(end);
            }
        }
        self.settle_workflow(turn)
    }
}
