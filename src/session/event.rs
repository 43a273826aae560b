use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use crate::evals::{EvalInput, EvalResult};

/// Everything that happens in a session, in order. Reports and transcripts are
/// made from these alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum SessionEvent {
    SessionStart {
        session_id: String,
        prompt: String,
        system_prompt: String,
        variables: Json,
    },
    User {
        turn: u32,
        content: String,
    },
    ModelCall {
        turn: u32,
        round: u32,
        /// Which rule of the mock script answered.
        answered_by: String,
    },
    Assistant {
        turn: u32,
        content: String,
        tool_calls: Vec<Json>,
    },
    /// The hooks a phase consulted, in order (whether or not they changed anything).
    HooksRan {
        phase: String,
        hooks: Vec<String>,
    },
    /// A hook changed what happens next: stopped, replaced, answered for a tool.
    Hook {
        phase: String,
        hook: String,
        action: String,
        reason: Option<String>,
    },
    /// A tool process is about to be called; its result follows as `tool_call`.
    ToolStarted {
        turn: u32,
        name: String,
        call_id: String,
    },
    ToolCall {
        turn: u32,
        name: String,
        call_id: String,
        args: Json,
        /// `ok`, `error` (the tool's own answer or a refusal), `failed` (the process
        /// failed: crash, timeout, invalid output), `blocked` or `rejected`.
        status: String,
        content: String,
        duration_ms: u64,
    },
    /// A tool answered `pending`: it waits on a person's decision.
    Pending {
        turn: u32,
        tool: String,
        call_id: String,
        reason: String,
        message: String,
    },
    /// A decision on a pending call, and who made it.
    Decision {
        turn: u32,
        tool: String,
        call_id: String,
        approved: bool,
        by: String,
        note: String,
    },
    /// Where evals may run: after a turn the model answered (`turn`), or at the end
    /// of the session; with exactly what evals there see.
    EvalPoint {
        turn: Option<u32>,
        input: EvalInput,
    },
    Eval(EvalResult),
    TurnEnd {
        turn: u32,
        reason: String,
    },
    SessionEnd {
        turns: u32,
    },
    /// An extension failed: crashed, exited non-zero, answered invalid output, timed
    /// out or could not be started. The conversation goes on where it can; the run
    /// exits 3.
    ExtensionFailed {
        /// The turn in progress (0: before the first).
        turn: u32,
        kind: ExtensionKind,
        name: String,
        /// Where it ran: a hook phase, or `tool`. (An eval that fails is an eval result
        /// with status `error`.)
        phase: String,
        reason: String,
        stderr_tail: String,
    },
}

/// Which kind of extension an [`SessionEvent::ExtensionFailed`] names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtensionKind {
    Tool,
    Hook,
}

impl ExtensionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ExtensionKind::Tool => "tool",
            ExtensionKind::Hook => "hook",
        }
    }
}
