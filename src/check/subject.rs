//! What `check` probes: each extension with the requests an ordinary call sends and
//! the shape its replies must have. The command builds these from the config and
//! the pack; the probes only run them.

use std::path::PathBuf;

use serde_json::Value as Json;

use crate::config::{ExecSpec, Intercept, McpServer};
use crate::evals::read_score;
use crate::exec::CallKind;
use crate::exec::rpc::Reply;
use crate::hooks::{read_action, read_approval, read_hello, read_verdict};

use super::CheckedKind;
use super::error::ReplyError;

/// One extension to check.
#[derive(Debug, Clone)]
pub(crate) enum Subject {
    /// A process per call: exec tools, exec hooks and exec evals.
    OneShot(OneShot),
    /// A long-running line-delimited JSON-RPC process: server tools and JSON-RPC hooks.
    Line(LineServer),
    Mcp(McpSubject),
}

impl Subject {
    pub(crate) fn name(&self) -> &str {
        match self {
            Subject::OneShot(s) => &s.name,
            Subject::Line(s) => &s.name,
            Subject::Mcp(s) => &s.server.name,
        }
    }

    pub(crate) fn kind(&self) -> CheckedKind {
        match self {
            Subject::OneShot(s) => s.kind,
            Subject::Line(s) => s.kind,
            Subject::Mcp(_) => CheckedKind::McpServer,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct OneShot {
    pub name: String,
    pub kind: CheckedKind,
    pub call_kind: CallKind,
    pub spec: ExecSpec,
    /// What an ordinary call writes to stdin.
    pub request: Json,
    pub reply: ReplyShape,
    /// Hooks: every declared phase, its payload and the reply it needs.
    pub phases: Vec<(String, Json, ReplyShape)>,
    pub tool: Option<ToolSchemas>,
}

#[derive(Debug, Clone)]
pub(crate) struct LineServer {
    pub name: String,
    pub kind: CheckedKind,
    pub call_kind: CallKind,
    pub spec: ExecSpec,
    /// Requests that open every conversation (`hook.hello`), with the reply each needs.
    pub preamble: Vec<(String, Json, ReplyShape)>,
    /// An ordinary request: method, params and the reply it needs.
    pub request: (String, Json, ReplyShape),
    /// A notification the protocol may send.
    pub notification: (String, Json),
    /// JSON-RPC hooks: every declared method, its params and the reply it needs.
    pub methods: Vec<(String, Json, ReplyShape)>,
    pub tool: Option<ToolSchemas>,
}

#[derive(Debug, Clone)]
pub(crate) struct McpSubject {
    pub server: McpServer,
}

/// A tool's schemas from the pack, for fuzzing and output contracts.
#[derive(Debug, Clone)]
pub(crate) struct ToolSchemas {
    pub input: Json,
    pub output: Option<Json>,
    /// The config says the tool writes (`side_effects: writes`).
    pub writes: bool,
}

/// How a check run goes, shared by every probe.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub seed: u64,
    pub cases: usize,
    /// Only this probe, when given.
    pub only: Option<super::Probe>,
    /// Where the config and pack are, for reproducing commands.
    pub config_path: PathBuf,
    /// Tools that may write are called with generated arguments too.
    pub allow_writes: bool,
    /// Schema-breaking arguments are sent too; `Some(true)` when a crash on them
    /// fails rather than advises.
    pub invalid_args: Option<bool>,
    /// The only MCP revision spoken, when given.
    pub spec_version: Option<crate::mcp::Revision>,
}

impl Options {
    pub(crate) fn wants(&self, probe: super::Probe) -> bool {
        self.only.is_none_or(|only| only == probe)
    }
}

/// The reply a request needs, as the reference texts shape it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReplyShape {
    /// `{"result": …}`, `{"error": "…"}` or `{"pending": {…}}`.
    Tool,
    /// A filter hook: `{"allow": bool, …}`.
    Filter,
    /// An observing hook: any object; `ack`, when present, a boolean.
    Observe,
    /// An eval: an object with a numeric `score` (its range is a probe of its own).
    Eval,
    /// `hook.hello`: `{"ok": true}`, with a `name` of the hook's choosing or none.
    Hello,
    /// A JSON-RPC interceptor's decision.
    Action(Intercept),
    /// A server tool's result: any JSON.
    AnyResult,
    /// An eval hook: its stdout is not read, so only its exit counts.
    Ignored,
}

impl ReplyShape {
    /// Ok with a short summary of the reply, or what is wrong with it.
    pub(crate) fn read(self, reply: &Json) -> Result<String, ReplyError> {
        match self {
            ReplyShape::Tool => {
                let object = reply.as_object().ok_or(ReplyError::NotAnObject)?;
                ["result", "error", "pending"]
                    .into_iter()
                    .find(|key| object.contains_key(*key))
                    .map(|key| format!("answered `{key}`"))
                    .ok_or(ReplyError::NoToolKey)
            }
            ReplyShape::Filter => Ok(if read_verdict(reply)?.allow {
                "allowed"
            } else {
                "denied"
            }
            .to_string()),
            ReplyShape::Observe => match reply.as_object() {
                None => Err(ReplyError::NotAnObject),
                Some(o) => match o.get("ack") {
                    None | Some(Json::Bool(_)) => Ok("acknowledged".into()),
                    Some(other) => Err(ReplyError::Ack(other.clone())),
                },
            },
            ReplyShape::Eval => {
                let object = reply.as_object().ok_or(ReplyError::NotAnObject)?;
                match object.get("score") {
                    Some(Json::Number(_)) => Ok("answered a score".into()),
                    Some(other) => Err(ReplyError::ScoreNotANumber(other.clone())),
                    None => Err(ReplyError::NoScore),
                }
            }
            // Exactly what a run accepts: `"ok": true`, a name of the hook's own or none.
            ReplyShape::Hello => {
                read_hello(&Reply::Result(reply.clone())).map_err(ReplyError::Hello)?;
                Ok(match reply.get("name").and_then(Json::as_str) {
                    Some(name) => format!("said hello as `{name}`"),
                    None => "said hello".into(),
                })
            }
            ReplyShape::Action(Intercept::ApproveTool) => {
                Ok(format!("{:?}", read_approval(reply)?).to_lowercase())
            }
            ReplyShape::Action(intercept) => Ok(format!(
                "answered `{}`",
                read_action(intercept, reply)?.name()
            )),
            ReplyShape::AnyResult | ReplyShape::Ignored => Ok("answered".into()),
        }
    }

    /// Evals only: the score's range.
    pub(crate) fn score_in_range(reply: &Json) -> Result<String, ReplyError> {
        read_score(reply)
            .map(|s| format!("scored {}", s.score))
            .map_err(|e| ReplyError::Score(Box::new(e)))
    }
}

impl ReplyShape {
    /// What to change when a reply does not have this shape.
    pub(crate) fn hint(self) -> &'static str {
        match self {
            ReplyShape::Tool => {
                r#"answer {"result": …}, {"error": "…"} or {"pending": {"reason": …, "message": …}}"#
            }
            ReplyShape::Filter => r#"answer {"allow": true} or {"allow": false, "reason": "…"}"#,
            ReplyShape::Observe => r#"answer a JSON object, such as {"ack": true}"#,
            ReplyShape::Eval => r#"answer {"score": 0.0–1.0, "detail": "…"}"#,
            ReplyShape::Hello => r#"answer hook.hello with {"ok": true} (a "name" may go with it)"#,
            ReplyShape::Action(_) => {
                r#"answer {"action": "continue"} or another action the method allows"#
            }
            ReplyShape::AnyResult | ReplyShape::Ignored => "answer with a JSON-RPC result",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_shape_reads_the_replies_the_reference_gives_and_names_what_is_wrong() {
        let ok = |shape: ReplyShape, reply: Json| shape.read(&reply).expect("valid");
        let bad =
            |shape: ReplyShape, reply: Json| shape.read(&reply).expect_err("invalid").to_string();
        assert_eq!(
            ok(ReplyShape::Tool, json!({"result": 1})),
            "answered `result`"
        );
        assert_eq!(
            ok(ReplyShape::Tool, json!({"error": "no"})),
            "answered `error`"
        );
        assert_eq!(
            bad(ReplyShape::Tool, json!({"rows": []})),
            "the answer has none of `result`, `error`, `pending`"
        );
        assert_eq!(
            bad(ReplyShape::Tool, json!([1])),
            "the answer is not a JSON object"
        );
        assert_eq!(ok(ReplyShape::Filter, json!({"allow": false})), "denied");
        assert!(bad(ReplyShape::Filter, json!({"allow": "yes"})).contains("true or false"));
        assert_eq!(ok(ReplyShape::Observe, json!({})), "acknowledged");
        assert!(bad(ReplyShape::Observe, json!({"ack": "yes"})).contains("`ack`"));
        assert_eq!(
            ok(ReplyShape::Eval, json!({"score": 1.7})),
            "answered a score"
        );
        assert_eq!(
            bad(ReplyShape::Eval, json!({"score": "high"})),
            "`score` must be a number, found \"high\""
        );
        assert_eq!(
            ok(ReplyShape::Hello, json!({"ok": true, "name": "g"})),
            "said hello as `g`"
        );
        assert_eq!(ok(ReplyShape::Hello, json!({"ok": true})), "said hello");
        assert_eq!(
            ok(ReplyShape::Hello, json!({"ok": true, "name": 7})),
            "said hello"
        );
        assert_eq!(
            bad(ReplyShape::Hello, json!({"ok": false, "name": "g"})),
            r#"`hook.hello` not accepted: it answered {"ok":false,"name":"g"}, without "ok": true"#
        );
        assert_eq!(
            bad(ReplyShape::Hello, json!({"name": "g"})),
            r#"`hook.hello` not accepted: it answered {"name":"g"}, without "ok": true"#
        );
        assert_eq!(
            ok(
                ReplyShape::Action(Intercept::BeforeTool),
                json!({"action": "deny_tool", "reason": "x"})
            ),
            "answered `deny_tool`"
        );
        assert!(
            bad(
                ReplyShape::Action(Intercept::BeforeLlm),
                json!({"action": "deny_tool"})
            )
            .contains("before_tool")
        );
        assert_eq!(
            ok(
                ReplyShape::Action(Intercept::ApproveTool),
                json!({"approved": true})
            ),
            "approved"
        );
    }

    #[test]
    fn only_a_score_in_zero_to_one_is_in_range() {
        assert_eq!(
            ReplyShape::score_in_range(&json!({"score": 1})).expect("in range"),
            "scored 1"
        );
        assert!(
            ReplyShape::score_in_range(&json!({"score": 1.7}))
                .expect_err("out")
                .to_string()
                .contains("1.7")
        );
        assert!(ReplyShape::score_in_range(&json!({"score": -0.1})).is_err());
    }
}
