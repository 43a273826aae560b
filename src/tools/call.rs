use serde::Serialize;
use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use std::time::Duration;

use crate::config::{ExecSpec, RuntimeMode};
use crate::exec::{self, Call, CallKind, Outcome};

use super::{Pending, ToolAnswer, interpret};

/// How much of an invalid answer a failure message shows.
const STDOUT_HEAD: usize = 300;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolStatus {
    Ok,
    Error,
    Pending,
    Failed,
    Timeout,
}

/// Everything known about one tool call, in the shape `--format json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct ToolReport {
    pub tool: String,
    pub mode: &'static str,
    pub status: ToolStatus,
    pub result: Option<Json>,
    pub error: Option<String>,
    pub pending: Option<PendingJson>,
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

/// Calls a one-shot tool with `args` (already checked against its schema).
pub async fn call_tool(
    name: &str,
    exec_spec: &ExecSpec,
    args: &Json,
    timeout: Option<Duration>,
    cancel: &CancellationToken,
) -> ToolReport {
    let request = serde_json::json!({ "args": args });
    let mut call = Call::new(
        name,
        CallKind::Tool,
        exec_spec,
        request.to_string().into_bytes(),
    );
    if let Some(timeout) = timeout {
        call.timeout = timeout;
    }
    let finished = exec::run(&call, cancel).await;
    let outcome = exec::classify(&finished);
    let mut report = ToolReport {
        tool: name.to_string(),
        mode: match exec_spec.runtime {
            RuntimeMode::Exec => "exec",
            RuntimeMode::Server => "server",
        },
        status: ToolStatus::Failed,
        result: None,
        error: None,
        pending: None,
        exit_code: match finished.end {
            exec::ProcessEnd::Exited(code) => Some(code),
            _ => None,
        },
        duration_ms: finished.duration.as_millis() as u64,
        stderr_tail: finished.stderr_tail.clone(),
        outcome: outcome.clone(),
        stdout_head: String::from_utf8_lossy(
            &finished.stdout[..finished.stdout.len().min(STDOUT_HEAD)],
        )
        .into_owned(),
    };
    match outcome {
        Outcome::Answered(value) => match interpret(value) {
            ToolAnswer::Result(result) => {
                report.status = ToolStatus::Ok;
                report.result = Some(result);
            }
            ToolAnswer::Error(error) => {
                report.status = ToolStatus::Error;
                report.error = Some(error);
            }
            ToolAnswer::Pending(pending) => {
                report.status = ToolStatus::Pending;
                report.pending = Some(pending.into());
            }
        },
        Outcome::TimedOut { .. } => {
            report.status = ToolStatus::Timeout;
            report.error = Some(outcome.describe());
        }
        other => report.error = Some(other.describe()),
    }
    report
}
