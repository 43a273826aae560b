use std::collections::HashMap;
use std::time::Instant;

use serde_json::{Value as Json, json};
use tokio_util::sync::CancellationToken;

use crate::config::{HookPhase, RuntimeConfig};
use crate::evals::{EvalInput, Evaluator, Point, ToolCallRecord};
use crate::hooks::{
    Gate, HookDispatcher, ProviderRequest, ProviderResponse, SessionInfo, ToolCallInfo,
    ToolResultInfo, message,
};
use crate::pack::{Pack, Prompt};
use crate::provider::{AssistantMessage, Provider, ToolCall};
use crate::tools::{ToolCaller, ToolReport, ToolStatus, validate_args};

use super::{Approvals, PendingCall, SessionEvent};

/// The id sessions report to hooks and evals; the same on every run, so sampled
/// evals pick the same turns.
const SESSION_ID: &str = "sess_1";

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
    /// A tool is waiting on a person's decision and none was given.
    Pending {
        tool: String,
        call_id: String,
        message: String,
    },
    /// An extension the run depends on failed before the turn could start.
    Failed { reason: String },
}

impl TurnEnd {
    /// Whether the run goes on to the next message after this turn.
    pub fn run_continues(&self) -> bool {
        matches!(
            self,
            TurnEnd::Answered | TurnEnd::RoundLimit | TurnEnd::Aborted { .. }
        )
    }
}

/// Receives every event as it happens.
pub type EventSink<'a> = Box<dyn FnMut(&SessionEvent) + 'a>;

/// One conversation: the rendered system prompt, the messages so far, and everything
/// that runs for it.
pub struct Session<'a> {
    prompt: &'a Prompt,
    pack: &'a Pack,
    provider: Box<dyn Provider + 'a>,
    hooks: HookDispatcher,
    tools: HashMap<String, ToolCaller>,
    evaluator: Option<Evaluator>,
    system_prompt: String,
    sink: Option<EventSink<'a>>,
    /// The template variables, for evals.
    pub variables: Json,
    pub messages: Vec<Json>,
    pub events: Vec<SessionEvent>,
    turn: u32,
    started: bool,
    /// Tools the model may call this round: the prompt's, minus the blocklist, plus
    /// any a hook added.
    offered: Vec<String>,
    calls_this_turn: u64,
    /// Overrides the prompt's `tool_policy.max_rounds`.
    pub max_rounds: Option<u64>,
    pub approvals: Approvals,
    cancel: CancellationToken,
}

impl<'a> Session<'a> {
    pub fn new(
        config: &RuntimeConfig,
        pack: &'a Pack,
        prompt: &'a Prompt,
        system_prompt: String,
        provider: impl Provider + 'a,
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
            provider: Box::new(provider),
            hooks: HookDispatcher::new(config.hooks.values().cloned(), cancel.clone()),
            tools,
            evaluator: None,
            system_prompt,
            sink: None,
            variables: json!({}),
            messages: Vec::new(),
            events: Vec::new(),
            turn: 0,
            started: false,
            offered: Vec::new(),
            calls_this_turn: 0,
            max_rounds: None,
            approvals: Approvals::default(),
            cancel,
        }
    }

    /// Runs these evals at their triggers.
    pub fn with_evals(mut self, evaluator: Evaluator) -> Self {
        self.evaluator = Some(evaluator);
        self
    }

    /// Hands every event to `sink` as it happens.
    pub fn on_event(mut self, sink: impl FnMut(&SessionEvent) + 'a) -> Self {
        self.sink = Some(Box::new(sink));
        self
    }

    fn emit(&mut self, event: SessionEvent) {
        if let Some(sink) = &mut self.sink {
            sink(&event);
        }
        self.events.push(event);
    }

    /// The prompt's tools as the model sees them, minus the blocklist.
    fn prompt_tools(&self) -> Vec<Json> {
        self.prompt
            .tools
            .iter()
            .filter(|(name, _)| !self.prompt.tool_policy.blocklist.contains(name))
            .filter_map(|(name, _)| self.pack.tools.get(name))
            .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
            .collect()
    }

    /// Plays one user turn to its end. Before the first, the session starts: the
    /// JSON-RPC hooks shake hands and session hooks hear of it. After a turn the
    /// model answered, its evals run; session hooks hear of every turn.
    pub async fn turn(&mut self, user_text: &str) -> TurnEnd {
        if !self.started {
            self.started = true;
            self.emit(SessionEvent::SessionStart {
                session_id: SESSION_ID.into(),
                prompt: self.prompt.id.clone(),
                system_prompt: self.system_prompt.clone(),
                variables: self.variables.clone(),
            });
            if let Err(reason) = self.hooks.start().await {
                return TurnEnd::Failed { reason };
            }
            let notified = self
                .hooks
                .session(HookPhase::SessionStart, &self.session_info())
                .await;
            self.hooks_ran("session_start", notified);
        }
        let end = self.play_turn(user_text).await;
        if matches!(end, TurnEnd::Answered | TurnEnd::RoundLimit) {
            self.evaluate(Point::TurnEnd(self.turn)).await;
        }
        let notified = self
            .hooks
            .session(HookPhase::SessionUpdate, &self.session_info())
            .await;
        self.hooks_ran("session_update", notified);
        end
    }

    async fn play_turn(&mut self, user_text: &str) -> TurnEnd {
        self.turn += 1;
        self.calls_this_turn = 0;
        let turn = self.turn;
        self.emit(SessionEvent::User {
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
            let before = self.hooks.before_call(request, self.prompt_tools()).await;
            self.hooks_ran("before_call", before.ran);
            let (request, tools) = match before.gate {
                Gate::Proceed(value) => value,
                Gate::Replaced {
                    hook,
                    reason,
                    replacement,
                    value,
                } => {
                    self.hook_event("before_call", &hook, "replaced", Some(reason));
                    // The hook enforced its policy: its replacement stands in for the
                    // latest user message, in what the model sees from now on.
                    let (mut request, tools) = value;
                    let last_user = request.messages.iter().rposition(|m| m["role"] == "user");
                    if let (Some(text), Some(at)) = (replacement, last_user) {
                        request.messages[at] = message("user", &text);
                    }
                    (request, tools)
                }
                gate => return self.stop("before_call", gate, turn),
            };
            self.messages = request.messages.clone();
            self.offered = tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
                .collect();
            let started = Instant::now();
            self.hooks.event(
                "llm_request",
                &json!({"round": round, "messages": self.messages.len()}),
            );
            let completion = self.provider.complete(&self.messages, &tools);
            let answer = completion.message;
            self.hooks.event("llm_response", &json!({"round": round, "content": answer.content, "tool_calls": answer.tool_calls.len()}));
            self.emit(SessionEvent::ModelCall {
                turn,
                round,
                answered_by: completion.answered_by,
            });
            let response = ProviderResponse {
                provider_id: request.provider_id.clone(),
                model: request.model.clone(),
                message: assistant_json(&answer),
                latency_ms: started.elapsed().as_millis() as u64,
            };
            let after = self.hooks.after_call(&request, response).await;
            self.hooks_ran("after_call", after.ran);
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
            if calls.is_empty() {
                self.end_turn(turn, "answered");
                return TurnEnd::Answered;
            }
            for (i, call) in calls.iter().enumerate() {
                if let Some(end) = self.tool_call(call.clone()).await {
                    self.close_unanswered(&calls[i..], &end);
                    return end;
                }
            }
        }
        self.end_turn(turn, "round limit");
        TurnEnd::RoundLimit
    }

    /// Why the model may not call `name` now, if it may not.
    fn refusal(&self, name: &str) -> Option<String> {
        let policy = &self.prompt.tool_policy;
        if policy.blocklist.iter().any(|b| b == name) {
            return Some(format!(
                "tool `{name}` is blocklisted by the prompt's tool_policy"
            ));
        }
        if !self.offered.iter().any(|o| o == name) {
            return Some(format!("tool `{name}` is not offered to the model"));
        }
        (self.calls_this_turn > policy.max_tool_calls_per_turn).then(|| {
            format!(
                "max_tool_calls_per_turn ({}) reached; `{name}` was not called",
                policy.max_tool_calls_per_turn
            )
        })
    }

    /// One tool call: policy, schema, hooks, the tool itself (and a decision when it
    /// waits on one); the result goes back to the model.
    async fn tool_call(&mut self, call: ToolCall) -> Option<TurnEnd> {
        self.calls_this_turn += 1;
        let info = ToolCallInfo {
            name: call.name.clone(),
            args: call.args.clone(),
            call_id: call.id.clone(),
        };
        if let Some(refusal) = self.refusal(&info.name) {
            self.tool_result(&info, "error", &refusal, 0);
            return None;
        }
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
        self.hooks_ran("before_execution", before.ran);
        let info = match before.gate {
            Gate::Proceed(info) => info,
            Gate::Respond { hook, result } => {
                self.hook_event("before_execution", &hook, "respond", None);
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
        if !self.tools.contains_key(&info.name) {
            let text = format!("tool `{}` is not available", info.name);
            self.tool_result(&info, "error", &text, 0);
            return None;
        }
        self.emit(SessionEvent::ToolStarted {
            turn: self.turn,
            name: info.name.clone(),
            call_id: info.call_id.clone(),
        });
        self.hooks.event(
            "tool_exec_start",
            &json!({"Tool": info.name, "Arguments": info.args}),
        );
        let report = self.tools[&info.name]
            .call(&info.args, None, &self.cancel)
            .await;
        let (status, content, duration_ms) = match report.status {
            ToolStatus::Pending => match self.decide(&info, &report).await {
                Ok(settled) => settled,
                Err(end) => return Some(end),
            },
            _ => settle(&report),
        };
        self.hooks.event(
            "tool_exec_end",
            &json!({"Tool": info.name, "Status": status}),
        );
        let result = ToolResultInfo {
            name: info.name.clone(),
            call_id: info.call_id.clone(),
            content,
            latency_ms: duration_ms,
        };
        let after = self.hooks.after_execution(&info, result).await;
        self.hooks_ran("after_execution", after.ran);
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

    /// A `pending` answer: the flags or a person decide; approval calls the tool
    /// again with the resolution, rejection tells the model. Without a decision the
    /// turn ends waiting.
    async fn decide(
        &mut self,
        info: &ToolCallInfo,
        report: &ToolReport,
    ) -> Result<(&'static str, String, u64), TurnEnd> {
        let (reason, message) = report
            .pending
            .as_ref()
            .map(|p| (p.reason.clone(), p.message.clone()))
            .unwrap_or_default();
        self.emit(SessionEvent::Pending {
            turn: self.turn,
            tool: info.name.clone(),
            call_id: info.call_id.clone(),
            reason,
            message: message.clone(),
        });
        let call = PendingCall {
            tool: info.name.clone(),
            call_id: info.call_id.clone(),
            args: info.args.clone(),
            message: message.clone(),
        };
        let Some(decision) = self.approvals.decide(&call).await else {
            self.end_turn(self.turn, "pending");
            return Err(TurnEnd::Pending {
                tool: call.tool,
                call_id: call.call_id,
                message,
            });
        };
        self.emit(SessionEvent::Decision {
            turn: self.turn,
            tool: info.name.clone(),
            call_id: info.call_id.clone(),
            approved: decision.approved,
            by: decision.by.clone(),
            note: decision.note.clone(),
        });
        if !decision.approved {
            let text = format!(
                "the call was rejected by a person ({}): {}",
                decision.by, decision.note
            );
            return Ok(("rejected", text, report.duration_ms));
        }
        let resolution = json!({"approved": true, "call_id": info.call_id, "note": decision.note});
        let mut second = self.tools[&info.name]
            .resolve(&info.args, &resolution, &self.cancel)
            .await;
        if second.status == ToolStatus::Pending {
            second.answered_error("answered `pending` again after it was approved".into());
        }
        let (status, content, duration_ms) = settle(&second);
        Ok((status, content, report.duration_ms + duration_ms))
    }

    /// Runs the evals due at `point` and hands each result to the eval hooks.
    async fn evaluate(&mut self, point: Point) {
        let Some(evaluator) = self.evaluator.take() else {
            return;
        };
        let input = self.eval_input(point);
        for result in evaluator.run_due(point, SESSION_ID, &input).await {
            let notified = self
                .hooks
                .eval_result(&serde_json::to_value(&result).unwrap_or_default());
            self.hooks_ran("eval", notified);
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
                    let ok = status == "ok";
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
            metadata: json!({"session_id": SESSION_ID, "prompt_id": self.prompt.id}),
        }
    }

    fn tool_result(&mut self, call: &ToolCallInfo, status: &str, content: &str, duration_ms: u64) {
        self.emit(SessionEvent::ToolCall {
            turn: self.turn,
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

    fn hooks_ran(&mut self, phase: &str, hooks: Vec<String>) {
        if !hooks.is_empty() {
            self.emit(SessionEvent::HooksRan {
                phase: phase.into(),
                hooks,
            });
        }
    }

    fn hook_event(&mut self, phase: &str, hook: &str, action: &str, reason: Option<String>) {
        self.emit(SessionEvent::Hook {
            phase: phase.into(),
            hook: hook.into(),
            action: action.into(),
            reason,
        });
    }

    fn end_turn(&mut self, turn: u32, reason: &str) {
        self.emit(SessionEvent::TurnEnd {
            turn,
            reason: reason.into(),
        });
        self.hooks
            .event("turn_end", &json!({"turn": turn, "reason": reason}));
    }

    /// What session hooks see.
    fn session_info(&self) -> SessionInfo {
        SessionInfo {
            session_id: SESSION_ID.into(),
            conversation_id: "conv_1".into(),
            messages: self.messages.clone(),
            turn_index: self.turn,
        }
    }

    /// A gate that ends the turn or the run.
    fn stop<T>(&mut self, phase: &str, gate: Gate<T>, turn: u32) -> TurnEnd {
        let (end, action) = match gate {
            Gate::HardAbort { hook, reason } => {
                (TurnEnd::HardAborted { hook, reason }, "hard_abort")
            }
            Gate::AbortTurn { hook, reason } => (TurnEnd::Aborted { hook, reason }, "abort_turn"),
            Gate::DenyTool { hook, reason } => (TurnEnd::Aborted { hook, reason }, "deny"),
            Gate::Respond { hook, .. } => (
                TurnEnd::Aborted {
                    hook,
                    reason: format!("`respond` is not an answer at {phase}"),
                },
                "abort_turn",
            ),
            Gate::Proceed(_) | Gate::Replaced { .. } => return TurnEnd::Answered,
        };
        if let TurnEnd::Aborted { hook, reason } | TurnEnd::HardAborted { hook, reason } = &end {
            let (hook, reason) = (hook.clone(), reason.clone());
            self.hook_event(phase, &hook, action, Some(reason));
        }
        let reason = if action == "hard_abort" {
            "stopped by a hook"
        } else {
            "aborted"
        };
        self.end_turn(turn, reason);
        end
    }

    /// When a turn ends in the middle of its tool calls, the calls that got no result
    /// are answered with why, so the history stays one a model would accept.
    fn close_unanswered(&mut self, calls: &[ToolCall], end: &TurnEnd) {
        let why = match end {
            TurnEnd::Aborted { hook, reason } | TurnEnd::HardAborted { hook, reason } => {
                format!("not run: the turn was ended by hook `{hook}`: {reason}")
            }
            TurnEnd::Pending { tool, .. } => format!("not run: `{tool}` waits on a decision"),
            _ => "not run: the turn ended".into(),
        };
        for call in calls {
            let answered = self
                .messages
                .iter()
                .any(|m| m["tool_result"]["id"] == call.id.as_str());
            if !answered {
                let mut msg = message("tool", &why);
                msg["tool_result"] =
                    json!({"id": call.id, "name": call.name, "content": why, "error": why});
                self.messages.push(msg);
            }
        }
    }

    /// Ends a conversation that ran its course: its session-level evals run and
    /// session hooks hear `session_end`.
    pub async fn end(&mut self) {
        if self.turn == 0 {
            return;
        }
        self.evaluate(Point::SessionEnd).await;
        let notified = self
            .hooks
            .session(HookPhase::SessionEnd, &self.session_info())
            .await;
        self.hooks_ran("session_end", notified);
        self.emit(SessionEvent::SessionEnd { turns: self.turn });
    }

    /// Waits for observers, then stops servers and JSON-RPC hooks. Returns how many
    /// events JSON-RPC hooks could not be sent.
    pub async fn finish(&mut self) -> u64 {
        let dropped = self.hooks.finish().await;
        for caller in self.tools.values() {
            caller.shutdown().await;
        }
        if let Some(evaluator) = &self.evaluator {
            evaluator.shutdown().await;
        }
        dropped
    }
}

/// A finished call as the model sees it: status, content, duration.
fn settle(report: &ToolReport) -> (&'static str, String, u64) {
    let (status, content) = match report.status {
        ToolStatus::Ok => (
            "ok",
            report
                .result
                .as_ref()
                .map(Json::to_string)
                .unwrap_or_default(),
        ),
        ToolStatus::Pending | ToolStatus::Error | ToolStatus::Failed | ToolStatus::Timeout => {
            ("error", report.error.clone().unwrap_or_default())
        }
    };
    (status, content, report.duration_ms)
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
