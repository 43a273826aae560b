//! A tool call from the model: the prompt's policy, the schema, the tool hooks, the
//! tool itself, and a decision when it waits on one.

use serde_json::{Value as Json, json};

use crate::config::HookPhase;
use crate::conversation::{
    ToolCallInfo, ToolChoice, ToolResultInfo, tool_message, tool_message_with_parts,
};
use crate::hooks::Gate;
use crate::provider::ToolCall;
use crate::session::{
    CallStatus, ExtensionKind, FailureMode, HookAction, PendingCall, Phase, SLOW_DELAY,
    SessionEvent,
};
use crate::tools::{INVALID_ARGUMENTS, ToolReport, ToolStatus, validate_args};

use super::{Session, TurnEnd, TurnEndReason};

/// Why a tool call went no further: it was answered without running the tool (the
/// turn goes on), or the turn ended.
enum Stopped {
    Answered,
    TurnEnded(TurnEnd),
}

impl Session<'_> {
    /// Why this call may not run, if it may not: the prompt's policy, what is on
    /// offer, and the tool's JSON Schema.
    fn refusal(&self, call: &ToolCallInfo) -> Option<String> {
        let name = call.name.as_str();
        let policy = &self.prompt.tool_policy;
        if policy.blocklist.iter().any(|b| b == name) {
            return Some(format!(
                "tool `{name}` is blocklisted by the prompt's tool_policy"
            ));
        }
        // PromptKit runs a call of any tool it has registered, offered in this state
        // or not; under `tool_choice: none` nothing is offered and nothing runs.
        let registered = policy.tool_choice != ToolChoice::None
            && self.pack.tools.contains_key(name)
            && self.tools.contains_key(name);
        if !registered && !self.offered.iter().any(|o| o == name) {
            return Some(format!("tool `{name}` is not offered to the model"));
        }
        if self.calls_this_turn > policy.max_tool_calls_per_turn {
            return Some(format!(
                "max_tool_calls_per_turn ({}) reached; `{name}` was not called",
                policy.max_tool_calls_per_turn
            ));
        }
        if let Some(max) = policy.max_total_tool_calls
            && self.calls_in_session > max
        {
            return Some(format!(
                "max_total_tool_calls ({max}) reached; `{name}` was not called"
            ));
        }
        if let Some(max) = policy.max_identical_tool_calls
            && self
                .identical_calls
                .get(&identity(call))
                .copied()
                .unwrap_or(0)
                > max
        {
            return Some(format!(
                "max_identical_tool_calls ({max}) reached: `{name}` was already called {max} time(s) with these arguments"
            ));
        }
        if let Some(problem) = malformed_args(&call.args) {
            return Some(problem);
        }
        let schema_errors = self
            .tool_schema(name)
            .map(|schema| validate_args(schema, &call.args))
            .unwrap_or_default();
        (!schema_errors.is_empty()).then(|| {
            let text: Vec<String> = schema_errors.iter().map(ToString::to_string).collect();
            format!("{INVALID_ARGUMENTS} {}", text.join("; "))
        })
    }

    /// One tool call: policy, schema, hooks, the tool itself (and a decision when it
    /// waits on one); the result goes back to the model. `Some` when the turn ends.
    pub(super) async fn tool_call(&mut self, call: ToolCall) -> Option<TurnEnd> {
        match self.play_tool_call(call).await {
            Ok(()) | Err(Stopped::Answered) => None,
            Err(Stopped::TurnEnded(end)) => Some(end),
        }
    }

    async fn play_tool_call(&mut self, call: ToolCall) -> Result<(), Stopped> {
        let info = self.admit(call)?;
        let info = self.tool_gate(info).await?;
        self.inject_failure(&info).await?;
        let (status, content, duration_ms, parts) = self.run_tool(&info).await?;
        self.result_gate(&info, status, content, duration_ms, parts)
            .await
    }

    /// The call counted and held to the prompt's policy and the tool's schema.
    fn admit(&mut self, call: ToolCall) -> Result<ToolCallInfo, Stopped> {
        self.calls_this_turn += 1;
        self.calls_in_session += 1;
        let info = ToolCallInfo {
            name: call.name.clone(),
            args: call.args.clone(),
            call_id: call.id.clone(),
        };
        if self.prompt.tool_policy.max_identical_tool_calls.is_some() {
            *self.identical_calls.entry(identity(&info)).or_default() += 1;
        }
        if let Some(refusal) = self.refusal(&info) {
            self.skip_tool(&info, CallStatus::Error, &refusal);
            return Err(Stopped::Answered);
        }
        if let Some(end) = self.cancelled() {
            return Err(Stopped::TurnEnded(end));
        }
        Ok(info)
    }

    /// The call through the `before_execution` hooks: the call as they left it,
    /// unless one answered for the tool, denied it, or ended the turn.
    async fn tool_gate(&mut self, info: ToolCallInfo) -> Result<ToolCallInfo, Stopped> {
        let before = self.hooks.before_execution(info.clone()).await;
        self.hooks_ran(HookPhase::BeforeExecution, before.ran);
        let modified = match before.gate {
            Gate::Proceed(modified) => modified,
            Gate::Respond { hook, result } => {
                self.hook_event(HookPhase::BeforeExecution, &hook, HookAction::Respond, None);
                let content = result
                    .get("for_llm")
                    .and_then(Json::as_str)
                    .map_or_else(|| result.to_string(), str::to_string);
                self.skip_tool(&info, CallStatus::Ok, &content);
                return Err(Stopped::Answered);
            }
            Gate::DenyTool { hook, reason } => {
                self.hook_event(
                    HookPhase::BeforeExecution,
                    &hook,
                    HookAction::DenyTool,
                    Some(reason.clone()),
                );
                let text = format!("blocked by hook `{hook}`: {reason}");
                self.skip_tool(&info, CallStatus::Blocked, &text);
                return Err(Stopped::Answered);
            }
            gate => {
                let end = self.stop(HookPhase::BeforeExecution, gate, self.turn);
                return Err(Stopped::TurnEnded(end));
            }
        };
        // A hook's `modify` passes the same checks as the model's own call: it cannot
        // reach a blocklisted tool or break the schema.
        if modified != info
            && let Some(refusal) = self.refusal(&modified)
        {
            let text = format!("the call as modified by a hook was refused: {refusal}");
            self.skip_tool(&modified, CallStatus::Error, &text);
            return Err(Stopped::Answered);
        }
        if !self.tools.contains_key(&modified.name) && self.workflow_tool(&modified.name).is_none()
        {
            let text = format!("tool `{}` is not available", modified.name);
            self.skip_tool(&modified, CallStatus::Error, &text);
            return Err(Stopped::Answered);
        }
        Ok(modified)
    }

    /// A failure the run injects into this tool, if one strikes: an error or a
    /// timeout answers for the tool; a slow tool runs late.
    async fn inject_failure(&mut self, info: &ToolCallInfo) -> Result<(), Stopped> {
        let Some(failure) = self.chaos.strike(&info.name) else {
            return Ok(());
        };
        self.emit(SessionEvent::Injected {
            turn: self.turn,
            tool: info.name.clone(),
            call_id: info.call_id.clone(),
            mode: failure.mode,
        });
        let injected = |what: &str| {
            failure
                .message
                .clone()
                .unwrap_or_else(|| format!("tool `{}` {what} (injected failure)", info.name))
        };
        match failure.mode {
            FailureMode::Error => {
                self.skip_tool(info, CallStatus::Error, &injected("failed"));
                Err(Stopped::Answered)
            }
            FailureMode::Timeout => {
                self.skip_tool(info, CallStatus::Error, &injected("timed out"));
                Err(Stopped::Answered)
            }
            FailureMode::Slow => {
                tokio::time::sleep(SLOW_DELAY).await;
                Ok(())
            }
        }
    }

    /// The tool called (and decided on, when it waits on a decision): its status,
    /// the result as the model reads it, how long it took, and the content parts it
    /// returned beside a result.
    async fn run_tool(
        &mut self,
        info: &ToolCallInfo,
    ) -> Result<(CallStatus, String, u64, Vec<Json>), Stopped> {
        if let Some(end) = self.cancelled() {
            return Err(Stopped::TurnEnded(end));
        }
        if self.workflow_tool(&info.name).is_some() {
            let (status, content, duration_ms) = self.workflow_call(&info.name, &info.args);
            return Ok((status, content, duration_ms, Vec::new()));
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
        let settled = match report.status {
            ToolStatus::Pending => self
                .decide(info, &report)
                .await
                .map_err(Stopped::TurnEnded)?,
            _ => self.settle(&report),
        };
        self.hooks.event(
            "tool_exec_end",
            &json!({"Tool": info.name, "Status": settled.0}),
        );
        let parts = match report.status {
            ToolStatus::Ok => report.parts,
            _ => Vec::new(),
        };
        Ok((settled.0, settled.1, settled.2, parts))
    }

    /// The result through the `after_execution` hooks, then to the model.
    async fn result_gate(
        &mut self,
        info: &ToolCallInfo,
        status: CallStatus,
        content: String,
        duration_ms: u64,
        parts: Vec<Json>,
    ) -> Result<(), Stopped> {
        let result = ToolResultInfo {
            name: info.name.clone(),
            call_id: info.call_id.clone(),
            content,
            latency_ms: duration_ms,
            is_error: !status.is_ok(),
        };
        let after = self.hooks.after_execution(info, result).await;
        self.hooks_ran(HookPhase::AfterExecution, after.ran);
        let (status, result, parts) = match after.gate {
            Gate::Proceed(result) => (status, result, parts),
            Gate::Replaced {
                hook,
                reason,
                mut value,
                ..
            } => {
                self.hook_event(
                    HookPhase::AfterExecution,
                    &hook,
                    HookAction::Withheld,
                    Some(reason.clone()),
                );
                value.content = format!("result withheld by hook `{hook}`: {reason}");
                (CallStatus::Blocked, value, Vec::new())
            }
            gate => {
                let end = self.stop(HookPhase::AfterExecution, gate, self.turn);
                return Err(Stopped::TurnEnded(end));
            }
        };
        self.tool_result(info, status, &result.content, result.latency_ms, parts);
        Ok(())
    }

    /// A `pending` answer: the flags or a person decide; approval calls the tool
    /// again with the resolution, rejection tells the model. Without a decision the
    /// turn ends waiting.
    async fn decide(
        &mut self,
        info: &ToolCallInfo,
        report: &ToolReport,
    ) -> Result<(CallStatus, String, u64), TurnEnd> {
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
            self.end_turn(self.turn, TurnEndReason::Pending);
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
            return Ok((CallStatus::Rejected, text, report.duration_ms));
        }
        let resolution = json!({"approved": true, "call_id": info.call_id, "note": decision.note});
        let mut second = self.tools[&info.name]
            .resolve(&info.args, &resolution, &self.cancel)
            .await;
        if second.status == ToolStatus::Pending {
            // The protocol asks for `result` or `error` once a person decided.
            second.status = ToolStatus::Failed;
            second.error = Some("answered `pending` again after it was approved".into());
        }
        let (status, content, duration_ms) = self.settle(&second);
        Ok((status, content, report.duration_ms + duration_ms))
    }

    /// A call answered without running the tool: refused, denied, or answered by a
    /// hook. Observing hooks hear `tool_exec_skipped`.
    fn skip_tool(&mut self, call: &ToolCallInfo, status: CallStatus, content: &str) {
        self.hooks.event(
            "tool_exec_skipped",
            &json!({"Tool": call.name, "Status": status, "Reason": content}),
        );
        self.tool_result(call, status, content, 0, Vec::new());
    }

    fn tool_result(
        &mut self,
        call: &ToolCallInfo,
        status: CallStatus,
        content: &str,
        duration_ms: u64,
        parts: Vec<Json>,
    ) {
        if let Some(run) = &mut self.workflow {
            run.count_tool_call();
        }
        self.emit(SessionEvent::ToolCall {
            turn: self.turn,
            name: call.name.clone(),
            call_id: call.call_id.clone(),
            args: call.args.clone(),
            status,
            content: content.to_string(),
            duration_ms,
            parts: parts.clone(),
        });
        let error = (!status.is_ok()).then_some(content);
        self.messages.push(tool_message_with_parts(
            &call.call_id,
            &call.name,
            content,
            error,
            &parts,
        ));
    }

    /// A finished call as the model sees it; a tool process that failed is also
    /// reported as an extension failure.
    fn settle(&mut self, report: &ToolReport) -> (CallStatus, String, u64) {
        let settled = settled(report);
        if matches!(report.status, ToolStatus::Failed | ToolStatus::Timeout) {
            self.emit(SessionEvent::ExtensionFailed {
                turn: self.turn,
                kind: ExtensionKind::Tool,
                name: report.tool.clone(),
                phase: Phase::TOOL,
                reason: settled.1.clone(),
                stderr_tail: report.stderr_tail.clone(),
            });
        }
        settled
    }

    /// When a turn ends in the middle of its tool calls, the calls that got no result
    /// are answered with why, so the history stays one a model would accept.
    pub(super) fn close_unanswered(&mut self, calls: &[ToolCall], end: &TurnEnd) {
        let why = match end {
            TurnEnd::Aborted { hook, reason } | TurnEnd::HardAborted { hook, reason } => {
                format!("not run: the turn was ended by hook `{hook}`: {reason}")
            }
            TurnEnd::Pending { tool, .. } => format!("not run: `{tool}` waits on a decision"),
            _ => "not run: the turn ended".into(),
        };
        // Only this turn's messages can answer this turn's calls.
        for call in calls {
            let answered = self
                .messages
                .since(self.turn_messages)
                .any(|m| m["tool_result"]["id"] == call.id.as_str());
            if !answered {
                let msg = tool_message(&call.id, &call.name, &why, Some(&why));
                self.messages.push(msg);
            }
        }
    }
}

/// A finished call as the model sees it: status, content, duration.
fn settled(report: &ToolReport) -> (CallStatus, String, u64) {
    let status = CallStatus::from(report.status);
    let content = if status.is_ok() {
        report
            .result
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default()
    } else {
        report.error.clone().unwrap_or_default()
    };
    (status, content, report.duration_ms)
}

/// A call's tool and arguments, for counting identical calls.
fn identity(call: &ToolCallInfo) -> (String, String) {
    (call.name.clone(), call.args.to_string())
}

/// Why the model's arguments cannot be a call at all: text that is not JSON (kept as
/// a string by the provider), or JSON that is not an object.
fn malformed_args(args: &Json) -> Option<String> {
    const SHOWN: usize = 120;
    let shown = |text: &str| -> String {
        match text.char_indices().nth(SHOWN) {
            Some((end, _)) => format!("{}…", &text[..end]),
            None => text.to_string(),
        }
    };
    match args {
        Json::Object(_) => None,
        Json::String(text) => Some(match serde_json::from_str::<Json>(text) {
            Err(err) => format!(
                "the model's arguments are not valid JSON ({err}): {}",
                shown(text)
            ),
            Ok(_) => format!(
                "the model's arguments are not a JSON object: {}",
                shown(text)
            ),
        }),
        other => Some(format!(
            "the model's arguments are not a JSON object: {}",
            shown(&other.to_string())
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_that_are_not_an_object_are_named_with_the_reason() {
        assert_eq!(malformed_args(&json!({"a": 1})), None);
        let broken = malformed_args(&json!("{\"city\": \"Par")).expect("refused");
        assert!(
            broken.starts_with("the model's arguments are not valid JSON (EOF while parsing")
                && broken.ends_with(": {\"city\": \"Par"),
            "{broken}"
        );
        assert_eq!(
            malformed_args(&json!([1])).as_deref(),
            Some("the model's arguments are not a JSON object: [1]")
        );
    }
}
