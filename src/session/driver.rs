use std::collections::HashMap;
use std::time::Instant;

use serde_json::{Value as Json, json};
use tokio_util::sync::CancellationToken;

use crate::config::{HookPhase, RuntimeConfig};
use crate::hooks::{
    Gate, HookDispatcher, ProviderRequest, ProviderResponse, SessionInfo, ToolCallInfo,
    ToolResultInfo, message,
};
use crate::pack::{Pack, Prompt};
use crate::provider::{AssistantMessage, ScriptedProvider, ToolCall};
use crate::tools::{ToolCaller, ToolStatus, validate_args};

use super::SessionEvent;

/// How a turn ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnEnd {
    /// The model answered without calling tools.
    Answered,
    /// `max_rounds` model calls were made without a final answer.
    RoundLimit,
    /// A hook ended the turn.
    Aborted { hook: String, reason: String },
    /// A hook stopped the whole run.
    HardAborted { hook: String, reason: String },
    /// A tool is waiting on a person's decision.
    Pending {
        tool: String,
        call_id: String,
        message: String,
    },
}

/// One conversation: the rendered system prompt, the messages so far, and everything
/// that runs for it.
pub struct Session<'a> {
    prompt: &'a Prompt,
    pack: &'a Pack,
    provider: ScriptedProvider,
    hooks: HookDispatcher,
    tools: HashMap<String, ToolCaller>,
    system_prompt: String,
    pub messages: Vec<Json>,
    pub events: Vec<SessionEvent>,
    turn: u32,
    /// Overrides the prompt's `tool_policy.max_rounds`.
    pub max_rounds: Option<u64>,
    cancel: CancellationToken,
}

impl<'a> Session<'a> {
    pub fn new(
        config: &RuntimeConfig,
        pack: &'a Pack,
        prompt: &'a Prompt,
        system_prompt: String,
        provider: ScriptedProvider,
        cancel: CancellationToken,
    ) -> Self {
        let tools = prompt
            .tools
            .iter()
            .filter_map(|(name, _)| {
                let spec = config.tools.get(name)?.exec.as_ref()?;
                Some((name.clone(), ToolCaller::new(name, spec)))
            })
            .collect();
        Self {
            prompt,
            pack,
            provider,
            hooks: HookDispatcher::new(config.hooks.values().cloned(), cancel.clone()),
            tools,
            system_prompt,
            messages: Vec::new(),
            events: Vec::new(),
            turn: 0,
            max_rounds: None,
            cancel,
        }
    }

    /// The prompt's tools as the model sees them, minus the blocklist.
    fn offered_tools(&self) -> Vec<Json> {
        self.prompt
            .tools
            .iter()
            .filter(|(name, _)| !self.prompt.tool_policy.blocklist.contains(name))
            .filter_map(|(name, _)| self.pack.tools.get(name))
            .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
            .collect()
    }

    /// Plays one user turn to its end; session hooks hear of the session's start
    /// before the first turn and of every completed turn.
    pub async fn turn(&mut self, user_text: &str) -> TurnEnd {
        if self.turn == 0 {
            self.hooks
                .session(HookPhase::SessionStart, &self.session_info())
                .await;
        }
        let end = self.play_turn(user_text).await;
        self.hooks
            .session(HookPhase::SessionUpdate, &self.session_info())
            .await;
        end
    }

    async fn play_turn(&mut self, user_text: &str) -> TurnEnd {
        self.turn += 1;
        let turn = self.turn;
        self.events.push(SessionEvent::User {
            turn,
            content: user_text.to_string(),
        });
        self.messages.push(message("user", user_text));
        self.hooks
            .event("turn_start", &json!({"turn": turn, "user": user_text}));
        let max_rounds = self
            .max_rounds
            .unwrap_or(self.prompt.tool_policy.max_rounds) as u32;
        for round in 1..=max_rounds {
            let request = ProviderRequest {
                provider_id: "mock".into(),
                model: "mock-model".into(),
                messages: self.messages.clone(),
                system_prompt: self.system_prompt.clone(),
                round,
            };
            let before = self.hooks.before_call(request, self.offered_tools()).await;
            let request = match before.gate {
                Gate::Proceed((request, _tools)) => request,
                Gate::Replaced {
                    hook,
                    reason,
                    replacement,
                    value: (request, _),
                } => {
                    self.hook_event("before_call", &hook, "replaced", Some(reason));
                    if let (Some(text), Some(last)) = (replacement, self.messages.last_mut()) {
                        *last = message("user", &text);
                    }
                    request
                }
                gate => return self.stop("before_call", gate, turn),
            };
            self.messages = request.messages.clone();
            let started = Instant::now();
            self.hooks.event(
                "llm_request",
                &json!({"round": round, "messages": self.messages.len()}),
            );
            let (answer, rule) = self.provider.next_answer();
            self.hooks.event("llm_response", &json!({"round": round, "content": answer.content, "tool_calls": answer.tool_calls.len()}));
            self.events
                .push(SessionEvent::ModelCall { turn, round, rule });
            let response = ProviderResponse {
                provider_id: request.provider_id.clone(),
                model: request.model.clone(),
                message: assistant_json(&answer),
                latency_ms: started.elapsed().as_millis() as u64,
            };
            let after = self.hooks.after_call(&request, response).await;
            let response = match after.gate {
                Gate::Proceed(response) => response,
                Gate::Replaced {
                    hook,
                    reason,
                    replacement,
                    mut value,
                } => {
                    self.hook_event("after_call", &hook, "replaced", Some(reason));
                    value.message = message(
                        "assistant",
                        replacement.as_deref().unwrap_or("[withheld by a hook]"),
                    );
                    value
                }
                gate => return self.stop("after_call", gate, turn),
            };
            let calls = tool_calls_of(&response.message, &answer);
            self.events.push(SessionEvent::Assistant {
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
            if calls.is_empty() {
                self.end_turn(turn, "answered");
                return TurnEnd::Answered;
            }
            let limit = self.prompt.tool_policy.max_tool_calls_per_turn as usize;
            for call in calls.into_iter().take(limit) {
                if let Some(end) = self.tool_call(call).await {
                    return end;
                }
            }
        }
        self.end_turn(turn, "round limit");
        TurnEnd::RoundLimit
    }

    /// One tool call: schema, hooks, the tool itself; the result goes back to the model.
    async fn tool_call(&mut self, call: ToolCall) -> Option<TurnEnd> {
        let info = ToolCallInfo {
            name: call.name.clone(),
            args: call.args.clone(),
            call_id: call.id.clone(),
        };
        let schema_errors = self
            .pack
            .tools
            .get(&call.name)
            .map(|t| validate_args(&t.parameters, &call.args))
            .unwrap_or_default();
        if !schema_errors.is_empty() {
            let text: Vec<String> = schema_errors.iter().map(ToString::to_string).collect();
            self.tool_result(
                &info,
                "error",
                &format!("invalid arguments: {}", text.join("; ")),
                0,
            );
            return None;
        }
        let before = self.hooks.before_execution(info.clone()).await;
        let info = match before.gate {
            Gate::Proceed(info) => info,
            Gate::Respond { hook, result } => {
                self.hook_event("before_tool", &hook, "respond", None);
                let content = result
                    .get("for_llm")
                    .and_then(Json::as_str)
                    .map_or_else(|| result.to_string(), str::to_string);
                self.tool_result(&info, "ok", &content, 0);
                return None;
            }
            Gate::DenyTool { hook, reason } => {
                self.hook_event("before_execution", &hook, "deny_tool", Some(reason.clone()));
                self.tool_result(
                    &info,
                    "blocked",
                    &format!("blocked by hook `{hook}`: {reason}"),
                    0,
                );
                return None;
            }
            gate => return Some(self.stop("before_execution", gate, self.turn)),
        };
        let Some(caller) = self.tools.get(&info.name) else {
            self.tool_result(
                &info,
                "error",
                &format!("tool `{}` is not available", info.name),
                0,
            );
            return None;
        };
        self.hooks.event(
            "tool_exec_start",
            &json!({"Tool": info.name, "Arguments": info.args}),
        );
        let report = caller.call(&info.args, None, &self.cancel).await;
        self.hooks.event(
            "tool_exec_end",
            &json!({"Tool": info.name, "Status": report.status}),
        );
        let (status, content) = match report.status {
            ToolStatus::Ok => (
                "ok",
                report
                    .result
                    .as_ref()
                    .map(Json::to_string)
                    .unwrap_or_default(),
            ),
            ToolStatus::Pending => {
                let message = report
                    .pending
                    .as_ref()
                    .map(|p| p.message.clone())
                    .unwrap_or_default();
                self.end_turn(self.turn, "pending");
                return Some(TurnEnd::Pending {
                    tool: info.name.clone(),
                    call_id: info.call_id.clone(),
                    message,
                });
            }
            ToolStatus::Error | ToolStatus::Failed | ToolStatus::Timeout => {
                ("error", report.error.clone().unwrap_or_default())
            }
        };
        let result = ToolResultInfo {
            name: info.name.clone(),
            call_id: info.call_id.clone(),
            content,
            latency_ms: report.duration_ms,
        };
        let after = self.hooks.after_execution(&info, result).await;
        let (status, result) = match after.gate {
            Gate::Proceed(result) => (status, result),
            Gate::Replaced {
                hook,
                reason,
                mut value,
                ..
            } => {
                self.hook_event("after_execution", &hook, "withheld", Some(reason.clone()));
                value.content = format!("result withheld by hook `{hook}`: {reason}");
                ("blocked", value)
            }
            gate => return Some(self.stop("after_execution", gate, self.turn)),
        };
        self.tool_result(&info, status, &result.content, result.latency_ms);
        None
    }

    fn tool_result(&mut self, call: &ToolCallInfo, status: &str, content: &str, duration_ms: u64) {
        self.events.push(SessionEvent::ToolCall {
            name: call.name.clone(),
            call_id: call.call_id.clone(),
            args: call.args.clone(),
            status: status.to_string(),
            content: content.to_string(),
            duration_ms,
        });
        let mut msg = message("tool", content);
        msg["tool_result"] = json!({"id": call.call_id, "name": call.name, "content": content,
                                    "error": (status != "ok").then_some(content)});
        self.messages.push(msg);
    }

    fn hook_event(&mut self, phase: &str, hook: &str, action: &str, reason: Option<String>) {
        self.events.push(SessionEvent::Hook {
            phase: phase.into(),
            hook: hook.into(),
            action: action.into(),
            reason,
        });
    }

    fn end_turn(&mut self, turn: u32, reason: &str) {
        self.events.push(SessionEvent::TurnEnd {
            turn,
            reason: reason.into(),
        });
        self.hooks
            .event("turn_end", &json!({"turn": turn, "reason": reason}));
    }

    /// What session hooks see.
    fn session_info(&self) -> SessionInfo {
        SessionInfo {
            session_id: "sess_1".into(),
            conversation_id: "conv_1".into(),
            messages: self.messages.clone(),
            turn_index: self.turn,
        }
    }

    /// A gate that ends the turn or the run.
    fn stop<T>(&mut self, phase: &str, gate: Gate<T>, turn: u32) -> TurnEnd {
        let end = match gate {
            Gate::HardAbort { hook, reason } => TurnEnd::HardAborted { hook, reason },
            Gate::AbortTurn { hook, reason } | Gate::DenyTool { hook, reason } => {
                TurnEnd::Aborted { hook, reason }
            }
            Gate::Respond { hook, .. } => TurnEnd::Aborted {
                hook,
                reason: "unexpected respond".into(),
            },
            Gate::Proceed(_) | Gate::Replaced { .. } => return TurnEnd::Answered,
        };
        if let TurnEnd::Aborted { hook, reason } | TurnEnd::HardAborted { hook, reason } = &end {
            let action = if matches!(end, TurnEnd::HardAborted { .. }) {
                "hard_abort"
            } else {
                "abort_turn"
            };
            self.hook_event(phase, hook, action, Some(reason.clone()));
        }
        self.end_turn(turn, "aborted");
        end
    }

    /// Ends the session: `session_end` for session hooks, then waits for observers and
    /// stops servers and JSON-RPC hooks.
    pub async fn finish(&mut self) {
        if self.turn > 0 {
            self.hooks
                .session(HookPhase::SessionEnd, &self.session_info())
                .await;
        }
        self.hooks.finish().await;
        for caller in self.tools.values() {
            caller.shutdown().await;
        }
    }
}

fn assistant_json(answer: &AssistantMessage) -> Json {
    let mut msg = message("assistant", &answer.content);
    if !answer.tool_calls.is_empty() {
        msg["tool_calls"] = answer
            .tool_calls
            .iter()
            .map(|c| json!({"id": c.id, "name": c.name, "args": c.args}))
            .collect();
    }
    msg
}

/// The tool calls of the (possibly modified) assistant message.
fn tool_calls_of(message: &Json, original: &AssistantMessage) -> Vec<ToolCall> {
    match message.get("tool_calls").and_then(Json::as_array) {
        Some(calls) => calls
            .iter()
            .filter_map(|c| {
                Some(ToolCall {
                    id: c.get("id")?.as_str()?.to_string(),
                    name: c.get("name")?.as_str()?.to_string(),
                    args: c.get("args").cloned().unwrap_or(json!({})),
                })
            })
            .collect(),
        None if message.get("content").is_some() => Vec::new(),
        None => original.tool_calls.clone(),
    }
}
