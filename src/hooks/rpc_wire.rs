//! What travels to a JSON-RPC hook: the `hook.hello` handshake, each interceptor
//! method's params, and event notifications, in PicoClaw's shapes. The run and
//! `hook test` build them here, so a hook sees the same shapes from both.

use serde_json::{Value as Json, json};

use crate::config::{EventMethod, Intercept, ObserveEvents, ServerHook};
use crate::exec::rpc::{Refused, Reply};

use super::shape::openai_message;
use crate::conversation::runtime_name;
use crate::conversation::{ToolCallInfo, ToolResultInfo};

/// The protocol version promptexec speaks in `hook.hello`.
pub const PROTOCOL_VERSION: u64 = 1;

/// The JSON-RPC method an interceptor is called with.
pub fn method_name(intercept: Intercept) -> String {
    format!("hook.{intercept}")
}

/// The identity every message carries; `iteration` is the model round (0 outside one).
pub fn meta(iteration: u32) -> Json {
    json!({"AgentID": "promptexec", "TurnID": "turn-1", "SessionKey": "sess_1", "Iteration": iteration})
}

/// `hook.hello`'s params: who is calling and what the hook is asked to do.
pub fn hello_params(name: &str, server: &ServerHook) -> Json {
    json!({"name": name, "version": PROTOCOL_VERSION, "modes": modes(server)})
}

/// The capabilities announced in `hook.hello`.
fn modes(server: &ServerHook) -> Vec<&'static str> {
    let mut modes = Vec::new();
    if server.observe != ObserveEvents::None {
        modes.push("observe");
    }
    let has = |i: &[Intercept]| server.intercept.iter().any(|x| i.contains(x));
    if has(&[Intercept::BeforeLlm, Intercept::AfterLlm]) {
        modes.push("llm");
    }
    if has(&[Intercept::BeforeTool, Intercept::AfterTool]) {
        modes.push("tool");
    }
    if has(&[Intercept::ApproveTool]) {
        modes.push("approve");
    }
    modes
}

/// Accepts a `hook.hello` reply only when it says `"ok": true`.
pub fn read_hello(reply: &Reply) -> Result<(), Refused> {
    match reply {
        Reply::Result(result) if result.get("ok") == Some(&Json::Bool(true)) => Ok(()),
        Reply::Result(result) => Err(Refused::Unexpected {
            answered: result.clone(),
            wanted: "\"ok\": true",
        }),
        Reply::Error { code, message } => Err(Refused::Error {
            code: *code,
            message: message.clone(),
        }),
    }
}

/// `hook.before_llm`: the model, the conversation (tool calls in the OpenAI shape) and
/// the tools offered.
pub fn before_llm_params(iteration: u32, model: &str, messages: &[Json], tools: &[Json]) -> Json {
    let messages: Vec<Json> = messages.iter().map(openai_message).collect();
    json!({"meta": meta(iteration), "model": model, "messages": messages, "tools": tools,
           "options": {}, "channel": "cli", "chat_id": "chat-1"})
}

/// `hook.after_llm`: the model's message, its tool calls in the OpenAI shape.
pub fn after_llm_params(iteration: u32, model: &str, message: &Json) -> Json {
    json!({"meta": meta(iteration), "model": model, "response": openai_message(message),
           "channel": "cli", "chat_id": "chat-1"})
}

/// `hook.before_tool` and `hook.approve_tool`: the call about to run.
pub fn tool_params(call: &ToolCallInfo) -> Json {
    json!({"meta": meta(0), "tool": call.name, "arguments": call.args, "channel": "cli", "chat_id": "chat-1"})
}

/// `hook.after_tool`: the call, its result and how long it took (in nanoseconds).
pub fn after_tool_params(call: &ToolCallInfo, result: &ToolResultInfo) -> Json {
    let mut params = tool_params(call);
    params["result"] = tool_result(result);
    params["duration"] = json!(result.latency_ms * 1_000_000);
    params
}

/// A tool's result with every field of PicoClaw's ToolResult, as `after_tool` sees it.
pub fn tool_result(result: &ToolResultInfo) -> Json {
    json!({
        "for_llm": result.content,
        "for_user": "",
        "silent": false,
        "is_error": result.is_error,
        "async": false,
        "media": [],
        "artifact_tags": [],
        "response_handled": false,
    })
}

/// An event notification's params for `method`: classic `{Kind, Meta, Payload}`, or a
/// runtime event with its runtime kind name, source and scope.
pub fn event_params(method: EventMethod, kind: &str, meta: &Json, payload: &Json) -> Json {
    match method {
        EventMethod::RuntimeEvent => json!({
            "kind": runtime_name(kind),
            "source": {"component": "agent", "name": "promptexec"},
            "scope": {"agent_id": meta["AgentID"], "session_key": meta["SessionKey"],
                      "turn_id": meta["TurnID"], "channel": "cli", "chat_id": "chat-1"},
            "meta": meta,
            "payload": payload,
        }),
        EventMethod::Event => json!({"Kind": kind, "Meta": meta, "Payload": payload}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::payload::samples::result;

    #[test]
    fn after_tool_sees_every_tool_result_field() {
        let fields = tool_result(&result(true));
        assert_eq!(fields["is_error"], true);
        assert_eq!(fields["for_llm"], "out of stock");
        let mut keys: Vec<&String> = fields.as_object().expect("object").keys().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "artifact_tags",
                "async",
                "for_llm",
                "for_user",
                "is_error",
                "media",
                "response_handled",
                "silent"
            ]
        );
    }

    #[test]
    fn methods_are_named_after_what_they_intercept() {
        assert_eq!(method_name(Intercept::ApproveTool), "hook.approve_tool");
        assert_eq!(method_name(Intercept::BeforeLlm), "hook.before_llm");
    }

    #[test]
    fn hello_needs_ok_true() {
        assert_eq!(read_hello(&Reply::Result(json!({"ok": true}))), Ok(()));
        let refused = read_hello(&Reply::Result(json!({"ok": false}))).expect_err("refused");
        assert_eq!(
            refused.to_string(),
            "it answered {\"ok\":false}, without \"ok\": true"
        );
        let error = Reply::Error {
            code: -32601,
            message: "no such method".into(),
        };
        assert_eq!(
            read_hello(&error).expect_err("an error").to_string(),
            "it answered JSON-RPC error -32601: no such method"
        );
    }
}
