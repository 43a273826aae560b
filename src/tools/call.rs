use serde::Serialize;
use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use std::time::Duration;

use crate::config::{ExecSpec, RuntimeMode};
use crate::exec::{self, Call, CallKind, Outcome, RawJson};

use super::{Pending, ToolAnswer, interpret_raw};

/// How much of an invalid answer a failure message shows.
const STDOUT_HEAD: usize = 300;

crate::wire_enum! {
    /// How one call to a tool process ended, as `invoke-tool` reports it.
    pub enum ToolStatus {
        Ok = "ok",
        Error = "error",
        Pending = "pending",
        Failed = "failed",
        Timeout = "timeout",
    }
}

crate::wire_enum! {
    /// How a tool runs: a process per call, a JSON-RPC server, an MCP server, a
    /// mock answer, or an HTTP request.
    pub enum ToolMode {
        Exec = "exec",
        Server = "server",
        Mcp = "mcp",
        Mock = "mock",
        Live = "live",
    }
}

impl From<RuntimeMode> for ToolMode {
    fn from(runtime: RuntimeMode) -> Self {
        match runtime {
            RuntimeMode::Exec => ToolMode::Exec,
            RuntimeMode::Server => ToolMode::Server,
        }
    }
}

/// Everything known about one tool call, in the shape `--format json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct ToolReport {
    pub tool: String,
    pub mode: ToolMode,
    pub status: ToolStatus,
    /// As the tool wrote it; it prints as the parsed value would.
    pub result: Option<RawJson>,
    pub error: Option<String>,
    pub pending: Option<PendingJson>,
    /// Content parts returned beside the result (a mock tool's `mock_parts`, a
    /// media part's file read into `data`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Json>,
    pub exit_code: Option<i32>,
    pub duration_ms: u64,
    pub stderr_tail: String,
    /// How the process ended, for failure messages; not part of the envelope.
    #[serde(skip)]
    pub outcome: Outcome,
    /// The start of stdout, to show what an invalid answer looked like.
    #[serde(skip)]
    pub stdout_head: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct PendingJson {
    pub reason: String,
    pub message: String,
}

impl From<Pending> for PendingJson {
    fn from(p: Pending) -> Self {
        Self {
            reason: p.reason,
            message: p.message,
        }
    }
}

impl ToolReport {
    /// A report for a call that has not ended yet.
    pub fn new(tool: &str, mode: ToolMode) -> Self {
        Self {
            tool: tool.to_string(),
            mode,
            status: ToolStatus::Failed,
            result: None,
            error: None,
            pending: None,
            parts: Vec::new(),
            exit_code: None,
            duration_ms: 0,
            stderr_tail: String::new(),
            outcome: Outcome::Interrupted,
            stdout_head: String::new(),
        }
    }

    /// Records how the call ended: an answer is read as result, error or pending;
    /// anything else is a failure (or a timeout).
    pub fn settle(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Answered(value) => self.answered(RawJson::from(&value)),
            Outcome::TimedOut { .. } => {
                self.status = ToolStatus::Timeout;
                self.error = Some(outcome.describe());
                self.outcome = outcome;
            }
            other => {
                self.status = ToolStatus::Failed;
                self.error = Some(other.describe());
                self.outcome = other;
            }
        }
    }

    /// Records an answer, read as result, error or pending. The answer itself is
    /// kept only there: the outcome just says that there was one.
    pub fn answered(&mut self, answer: RawJson) {
        self.outcome = Outcome::Answered(Json::Null);
        match interpret_raw(answer) {
            ToolAnswer::Result(result) => {
                self.status = ToolStatus::Ok;
                self.result = Some(result);
            }
            ToolAnswer::Error(error) => self.answered_error(error),
            ToolAnswer::Pending(pending) => {
                self.status = ToolStatus::Pending;
                self.pending = Some(pending.into());
            }
        }
    }

    /// A result as it is, with no protocol of its own to read (an MCP tool's).
    pub fn succeeded(&mut self, result: RawJson) {
        self.outcome = Outcome::Answered(Json::Null);
        self.status = ToolStatus::Ok;
        self.result = Some(result);
    }

    /// The tool itself said no.
    pub fn answered_error(&mut self, error: String) {
        self.outcome = Outcome::Answered(Json::Null);
        self.status = ToolStatus::Error;
        self.error = Some(error);
    }
}

/// What a tool reads: its arguments and, once a person decided on a `pending`
/// answer, the `resolution`. Borrowed, so it is serialised straight from them.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ToolRequest<'a> {
    pub args: &'a Json,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<&'a Json>,
}

/// The request for `args` (and the `resolution` of a `pending` answer).
pub fn tool_request<'a>(args: &'a Json, resolution: Option<&'a Json>) -> ToolRequest<'a> {
    ToolRequest { args, resolution }
}

/// Calls a one-shot tool with `request` (its arguments already checked against the
/// schema).
pub async fn call_tool(
    name: &str,
    exec_spec: &ExecSpec,
    request: &impl Serialize,
    timeout: Option<Duration>,
    cancel: &CancellationToken,
) -> ToolReport {
    // Writing a tree or borrowed parts of one cannot fail.
    let input = serde_json::to_vec(request).unwrap_or_default();
    let mut call = Call::new(name, CallKind::Tool, exec_spec, input);
    if let Some(timeout) = timeout {
        call.timeout = timeout;
    }
    let finished = exec::run(&call, cancel).await;
    let mut report = ToolReport::new(name, exec_spec.runtime.into());
    report.exit_code = match finished.end {
        Some(exec::ProcessEnd::Exited(code)) => Some(code),
        _ => None,
    };
    report.duration_ms = finished.duration.as_millis() as u64;
    report.stdout_head =
        String::from_utf8_lossy(&finished.stdout[..finished.stdout.len().min(STDOUT_HEAD)])
            .into_owned();
    match exec::classify_raw(&finished) {
        Ok(answer) => report.answered(answer),
        Err(outcome) => report.settle(outcome),
    }
    report.stderr_tail = finished.stderr_tail;
    report
}
