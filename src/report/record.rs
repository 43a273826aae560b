use std::borrow::Borrow;

use serde_json::{Value as Json, json};

use crate::conversation::History;
use crate::doc::Diagnostics;
use crate::evals::EvalResult;
use crate::session::{EventLog, ExtensionKind, Phase, SessionEvent, TurnEnd};

/// Everything a finished run produced, for the reports made at its end.
#[derive(Debug)]
pub(crate) struct RunRecord {
    pub prompt: String,
    pub scenario: String,
    pub variables: Json,
    pub system_prompt: String,
    pub messages: History,
    /// Every event, on disk; each report reads it in a pass or a few.
    pub events: EventLog,
    pub turns: Vec<TurnEnd>,
    /// Events JSON-RPC hooks could not be sent.
    pub dropped_events: u64,
    pub duration_ms: u64,
    pub exit_code: u8,
    /// What loading the config, pack and mock file warned about.
    pub warnings: Diagnostics,
    /// The library prompt played as the system prompt (`run --library-prompt`).
    pub library_prompt: Option<LibraryPromptRef>,
}

/// Which version of which library prompt a run played.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct LibraryPromptRef {
    pub id: String,
    pub version: u64,
    pub content_hash: String,
}

impl std::fmt::Display for LibraryPromptRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}@v{} ({})", self.id, self.version, self.content_hash)
    }
}

impl RunRecord {
    /// The exit code the run comes to.
    pub(crate) fn exit(&self) -> super::Exit {
        super::Exit::from_code(self.exit_code)
    }

    /// The eval results, read as they are reached.
    pub(crate) fn evals(&self) -> impl Iterator<Item = EvalResult> + '_ {
        evals_of(self.events.iter())
    }

    /// The extension failures, in the order they happened.
    pub(crate) fn failures(&self) -> impl Iterator<Item = Failure> + '_ {
        failures_of(self.events.iter())
    }
}

/// One [`SessionEvent::ExtensionFailed`].
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    pub turn: u32,
    pub kind: ExtensionKind,
    pub name: String,
    pub phase: Phase,
    pub reason: String,
    pub stderr_tail: String,
}

impl Failure {
    /// One line: which extension, where, and why.
    pub(crate) fn headline(&self) -> String {
        let kind = match self.kind {
            ExtensionKind::McpServer => "MCP server",
            other => other.as_str(),
        };
        // A tool only ever fails as a tool: saying where adds nothing.
        let place = match (self.kind, self.phase) {
            (ExtensionKind::Tool, Phase::TOOL)
            | (ExtensionKind::Model, Phase::MODEL)
            | (ExtensionKind::McpServer, _) => String::new(),
            (_, phase) => format!(" at {phase}"),
        };
        format!("{kind} `{}` failed{place}: {}", self.name, self.reason)
    }
}

pub(crate) fn failures_of<E: Borrow<SessionEvent>>(
    events: impl IntoIterator<Item = E>,
) -> impl Iterator<Item = Failure> {
    events.into_iter().filter_map(|e| match e.borrow() {
        SessionEvent::ExtensionFailed {
            turn,
            kind,
            name,
            phase,
            reason,
            stderr_tail,
        } => Some(Failure {
            turn: *turn,
            kind: *kind,
            name: name.clone(),
            phase: *phase,
            reason: reason.clone(),
            stderr_tail: stderr_tail.clone(),
        }),
        _ => None,
    })
}

pub(crate) fn evals_of(
    events: impl IntoIterator<Item = SessionEvent>,
) -> impl Iterator<Item = EvalResult> {
    events.into_iter().filter_map(|e| match e {
        SessionEvent::Eval(result) => Some(*result),
        _ => None,
    })
}

/// Warnings as JSON objects: `file`, `line`, `column` (null when the warning is
/// about a whole file or the command line) and `message`.
pub(crate) fn warnings_json(warnings: &Diagnostics) -> Json {
    warnings
        .iter()
        .map(|d| {
            json!({
                "file": d.file.display().to_string(),
                "line": d.pos.map(|p| p.line),
                "column": d.pos.map(|p| p.col),
                "message": d.message,
            })
        })
        .collect()
}

/// How turn `number` ended, as a JSON object: `outcome` plus what explains it.
pub(crate) fn turn_outcome(number: usize, end: &TurnEnd) -> Json {
    let turn = number + 1;
    match end {
        TurnEnd::Answered => json!({"turn": turn, "outcome": "answered"}),
        TurnEnd::RoundLimit => json!({"turn": turn, "outcome": "round_limit"}),
        TurnEnd::Aborted { hook, reason } => {
            json!({"turn": turn, "outcome": "aborted", "hook": hook, "reason": reason})
        }
        TurnEnd::HardAborted { hook, reason } => {
            json!({"turn": turn, "outcome": "hard_aborted", "hook": hook, "reason": reason})
        }
        TurnEnd::Pending {
            tool,
            call_id,
            message,
        } => {
            json!({"turn": turn, "outcome": "pending", "tool": tool, "call_id": call_id, "message": message})
        }
        TurnEnd::Failed { reason } => json!({"turn": turn, "outcome": "failed", "reason": reason}),
    }
}
