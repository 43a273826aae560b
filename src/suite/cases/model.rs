//! A case file as promptexec runs it: every value typed and checked, names not yet
//! matched against the config (that is [`super::bind`]'s job).

use std::path::PathBuf;
use std::time::Duration;

use regex::Regex;
use serde_json::Value as Json;

use crate::doc::Pos;
use crate::tools::ToolStatus;

/// One case file: the cases in file order, and the pack their tool arguments are
/// checked against.
#[derive(Debug, Clone)]
pub(crate) struct CaseFile {
    pub path: PathBuf,
    /// `pack:`, resolved against the case file's directory.
    pub pack: Option<Located<PathBuf>>,
    pub cases: Vec<Case>,
}

/// A value and where the case file writes it, for messages about it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Located<T> {
    pub value: T,
    pub pos: Pos,
}

#[derive(Debug, Clone)]
pub(crate) struct Case {
    pub name: String,
    /// Where the case's mapping starts.
    pub pos: Pos,
    pub target: Target,
}

/// What a case calls: exactly one tool or one hook.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    Tool(ToolCase),
    Hook(HookCase),
}

#[derive(Debug, Clone)]
pub(crate) struct ToolCase {
    pub tool: Located<String>,
    /// A JSON object; `{}` when the case gives none.
    pub args: Located<Json>,
    /// Overrides the config's deadline for this call, as `invoke-tool --timeout-ms`.
    pub timeout: Option<Duration>,
    pub expect: ToolExpect,
}

#[derive(Debug, Clone)]
pub(crate) struct ToolExpect {
    pub status: CallStatus,
    /// Equal to the result, numbers by value.
    pub result: Option<Json>,
    /// JSON pointer into the result, and the value expected there.
    pub pointers: Vec<(String, Json)>,
    /// Searched in the result as JSON text, or in the error, pending or schema text.
    pub matches: Option<Regex>,
    /// The result equals the stored snapshot.
    pub snapshot: bool,
}

impl Default for ToolExpect {
    /// What a case without `expect` asks: that the tool answers with a result.
    fn default() -> Self {
        Self {
            status: CallStatus::Ok,
            result: None,
            pointers: Vec::new(),
            matches: None,
            snapshot: false,
        }
    }
}

crate::wire_enum! {
    /// How a tool call ended: `invoke-tool`'s statuses, and the arguments breaking the
    /// pack's schema (the tool is then not called).
    pub(crate) enum CallStatus {
        Ok = "ok",
        Error = "error",
        Pending = "pending",
        Failed = "failed",
        Timeout = "timeout",
        InvalidArgs = "invalid_args",
    }
}

impl CallStatus {
    /// The tool process itself failed: a crash, invalid output, a timeout.
    pub(crate) fn is_extension_failure(self) -> bool {
        matches!(self, CallStatus::Failed | CallStatus::Timeout)
    }
}

impl From<ToolStatus> for CallStatus {
    fn from(status: ToolStatus) -> Self {
        match status {
            ToolStatus::Ok => CallStatus::Ok,
            ToolStatus::Error => CallStatus::Error,
            ToolStatus::Pending => CallStatus::Pending,
            ToolStatus::Failed => CallStatus::Failed,
            ToolStatus::Timeout => CallStatus::Timeout,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct HookCase {
    pub hook: Located<String>,
    /// The exec hook phase or JSON-RPC method; `None` for the hook's first.
    pub phase: Option<Located<String>>,
    /// The payload; `None` for the sample `hook test` generates.
    pub event: Option<Located<Json>>,
    pub expect: HookExpect,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct HookExpect {
    /// A word `hook test` prints: the decision, or a JSON-RPC hook's action.
    /// `None` accepts any answer, but not a failure.
    pub decision: Option<Located<String>>,
    /// Searched in the hook's reason.
    pub reason: Option<Regex>,
}
