//! What `check` concludes: a verdict per probe, grouped by extension, and the exit
//! code of the whole run.

use std::time::Duration;

use serde::Serialize;

use super::Exit;

crate::wire_enum! {
    /// The kind of extension a check is for, as reports name it.
    pub(crate) enum CheckedKind {
        /// A one-shot exec tool.
        Tool = "tool",
        /// An exec tool with `runtime: server`.
        ServerTool = "server_tool",
        /// A one-shot exec hook (provider, tool, session or eval).
        Hook = "hook",
        /// A long-running JSON-RPC hook.
        RpcHook = "rpc_hook",
        /// An exec eval.
        Eval = "eval",
        /// An MCP server.
        McpServer = "mcp_server",
    }
}

crate::wire_enum! {
    /// Every probe `check` knows, by the name `--probe` takes.
    pub(crate) enum Probe {
        /// One-shot: stdout holds exactly one JSON object of the kind's reply shape.
        OneJsonAnswer = "one_json_answer",
        /// Server: every reply is one line holding one JSON-RPC response.
        OneLinePerReply = "one_line_per_reply",
        /// A request spread over several lines gets the same kind of answer.
        ReadsWholeRequest = "reads_whole_request",
        /// Stdin closed before anything is written: the process ends on its own.
        ClosedStdin = "closed_stdin",
        /// Server: a reply arrives while stdin is still open.
        FlushesReplies = "flushes_replies",
        /// Server: ids 0 and past 32 bits, pipelined, come back in any order.
        EchoesIds = "echoes_ids",
        /// A request with fields the protocol does not define gets the same answer.
        IgnoresUnknownFields = "ignores_unknown_fields",
        /// Server: a notification gets no reply and the next request is answered.
        Notifications = "notifications",
        /// Hooks: every phase (or method) the config declares gets a valid reply.
        AnswersEachPhase = "answers_each_phase",
        /// JSON-RPC hooks: `hook.hello` answers with the documented fields.
        Hello = "hello",
        /// Evals: the score is a number in [0, 1].
        ScoreInRange = "score_in_range",
        /// Server: the process exits within the grace period once stdin closes.
        ExitsOnEof = "exits_on_eof",
        /// Nothing the process started is alive once it has ended.
        NoLeftoverProcesses = "no_leftover_processes",
        /// An ordinary request is answered within the deadline.
        WithinDeadline = "within_deadline",
        /// MCP: `initialize` completes under the deadline.
        Initialize = "initialize",
        /// MCP: every tool `tools/list` gives has a valid JSON Schema.
        ToolSchemas = "tool_schemas",
        /// MCP: `tools/call` on each tool with valid arguments gets a result.
        CallsEachTool = "calls_each_tool",
        /// Arguments generated from the schema: no crash, non-JSON answer or hang.
        Fuzz = "fuzz",
        /// Results match the tool's declared output schema.
        OutputContract = "output_contract",
        /// MCP: the handshake settles on a revision promptexec speaks (the one
        /// `--spec-version` names, when given).
        SpeaksRevision = "speaks_revision",
        /// MCP: a method the server does not have is answered -32601.
        UnknownMethod = "unknown_method",
        /// MCP: `tools/list` gives the same tools in the same order twice
        /// (2026-07-28 requires it; advice before).
        ListOrder = "list_order",
        /// MCP 2026-07-28: list results carry `ttlMs` and `cacheScope`.
        CacheFields = "cache_fields",
        /// MCP: `tools/call` of an unknown tool is answered -32602.
        UnknownTool = "unknown_tool",
        /// MCP 2025-11-25 and later: arguments that break a read-only tool's schema
        /// come back as a tool error (`isError`), not a protocol error.
        InputValidation = "input_validation",
        /// MCP 2026-07-28: a request without its `_meta` is turned down.
        RequestMeta = "request_meta",
    }
}

/// One probe's verdict on one extension.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ProbeResult {
    pub probe: Probe,
    pub passed: bool,
    /// One line: what was seen.
    pub reason: String,
    /// What to change, for a failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// A command that shows the failure again, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reproduce: Option<String>,
    #[serde(rename = "duration_ms", serialize_with = "millis")]
    pub duration: Duration,
    /// Not run, for the reason given: it would have been unsafe or could not apply.
    /// A skipped probe counts as neither passed nor failed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
    /// Passed, with something the author should look at (the hint says what).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub warning: bool,
}

impl ProbeResult {
    pub(crate) fn pass(probe: Probe, reason: impl Into<String>) -> Self {
        Self {
            probe,
            passed: true,
            reason: reason.into(),
            hint: None,
            reproduce: None,
            duration: Duration::ZERO,
            skipped: false,
            warning: false,
        }
    }

    pub(crate) fn fail(probe: Probe, reason: impl Into<String>, hint: impl Into<String>) -> Self {
        Self {
            probe,
            passed: false,
            reason: reason.into(),
            hint: Some(hint.into()),
            reproduce: None,
            duration: Duration::ZERO,
            skipped: false,
            warning: false,
        }
    }

    /// A probe not run, and why; it neither passes nor fails the extension.
    pub(crate) fn skip(probe: Probe, reason: impl Into<String>) -> Self {
        Self {
            skipped: true,
            ..Self::pass(probe, reason)
        }
    }

    /// A pass with advice: what was seen, and what to look at.
    pub(crate) fn warn(probe: Probe, reason: impl Into<String>, hint: impl Into<String>) -> Self {
        Self {
            warning: true,
            hint: Some(hint.into()),
            ..Self::pass(probe, reason)
        }
    }

    pub(crate) fn took(mut self, duration: Duration) -> Self {
        self.duration = duration;
        self
    }

    /// The same verdict on another probe: one failure that decides two probes.
    pub(crate) fn for_probe(self, probe: Probe) -> Self {
        Self { probe, ..self }
    }

    pub(crate) fn reproduced_by(mut self, command: String) -> Self {
        self.reproduce = Some(command);
        self
    }
}

/// Every verdict on one extension, in the order the probes ran.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ExtensionCheck {
    pub name: String,
    pub kind: CheckedKind,
    pub probes: Vec<ProbeResult>,
}

impl ExtensionCheck {
    pub(crate) fn passed(&self) -> bool {
        self.probes.iter().all(|p| p.passed)
    }
}

/// A whole `check` run.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CheckRecord {
    /// The fuzzing seed, so a run can be repeated exactly.
    pub seed: u64,
    /// Generated cases per tool.
    pub cases: usize,
    pub extensions: Vec<ExtensionCheck>,
}

impl CheckRecord {
    pub(crate) fn passed(&self) -> bool {
        self.extensions.iter().all(ExtensionCheck::passed)
    }

    /// 0 when every probe passed, else 1.
    pub(crate) fn exit(&self) -> Exit {
        if self.passed() {
            Exit::Success
        } else {
            Exit::No
        }
    }
}

fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_millis() as u64)
}
