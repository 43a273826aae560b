use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use crate::conversation::EvalInput;
use crate::evals::EvalResult;

use crate::pack::Direction;
use crate::provider::Usage;

use super::{CallStatus, FailureMode, HookAction, Phase, TurnEndReason};

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
        /// Which rule of the mock script, which recording or which API answered.
        answered_by: String,
        /// How long the model took to answer (0 in transcripts written before this
        /// was kept).
        #[serde(default)]
        latency_ms: u64,
        /// Tokens, and their cost when the provider has `pricing`; none from the mock.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
    },
    /// The model's answer was malformed in a way the session worked around: shown in
    /// every report, judged by assertions, and not by itself a failure of the run.
    ModelFinding {
        turn: u32,
        round: u32,
        finding: String,
    },
    Assistant {
        turn: u32,
        content: String,
        tool_calls: Vec<Json>,
    },
    /// The hooks a phase consulted, in order (whether or not they changed anything).
    HooksRan {
        phase: Phase,
        hooks: Vec<String>,
    },
    /// A hook changed what happens next: stopped, replaced, answered for a tool.
    Hook {
        phase: Phase,
        hook: String,
        action: HookAction,
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
        status: CallStatus,
        content: String,
        duration_ms: u64,
        /// Content parts the tool returned beside the result (a mock tool's
        /// `mock_parts`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        parts: Vec<Json>,
    },
    /// A prompt's guardrail fired: on a model answer (`direction: output`), which
    /// was cut or replaced (`enforced`: `truncated`, `replaced`), or on a user
    /// message (`input`), which the model never saw (`blocked`); with `fails_run`
    /// the run fails too.
    Guardrail {
        turn: u32,
        validator: String,
        detail: String,
        enforced: String,
        #[serde(default)]
        fails_run: bool,
        #[serde(default)]
        direction: Direction,
    },
    /// A scenario's chaos rule struck this call: it failed without running, or
    /// ran late.
    Injected {
        turn: u32,
        tool: String,
        call_id: String,
        mode: FailureMode,
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
    /// Where evals ran: after a turn the model answered (`turn`), or at the end of
    /// the session (`null`). Recorded only where some eval was due. What they saw is
    /// told by reference, never copied: the first `messages` messages of the
    /// conversation, the turn's (or the session's) last answer and tool calls, all in
    /// the events before this one, and the `metadata` given to them.
    EvalPoint {
        turn: Option<u32>,
        #[serde(default)]
        messages: usize,
        #[serde(default)]
        metadata: Json,
        /// The whole input, as transcripts written before eval points referred to the
        /// messages carried it: read, so they still replay as they were; never written.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        input: Option<Box<EvalInput>>,
    },
    /// The workflow entered a state: its entry when the session starts (no `from`,
    /// no `trigger`), or the state a transition the model asked for led to. A
    /// transition refused says why (`refused`) and leaves `state` as it was.
    Workflow {
        turn: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<String>,
        state: String,
        /// The workflow event that moved it (PromptKit's `event`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        trigger: Option<String>,
        /// The state the event led to, when its `max_visits` sent the workflow to
        /// its `on_max_visits` instead.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        redirected_from: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        refused: Option<String>,
        /// `state` ends the workflow.
        #[serde(default)]
        terminal: bool,
        /// The system prompt the conversation goes on with, rendered for the state
        /// entered by a transition.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        system_prompt: Option<String>,
    },
    /// Boxed: a result is the largest event by far, and every event would be its size.
    Eval(Box<EvalResult>),
    TurnEnd {
        turn: u32,
        reason: TurnEndReason,
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
        /// Where it ran: a hook phase or interception, `eval` (an eval hook), or
        /// `tool`. (An eval that fails is an eval result with status `error`.)
        phase: Phase,
        reason: String,
        stderr_tail: String,
    },
}

crate::wire_enum! {
    /// Which kind of extension an [`SessionEvent::ExtensionFailed`] names.
    pub enum ExtensionKind {
        Tool = "tool",
        Hook = "hook",
        /// The model, as a provider or a recording.
        Model = "model",
        /// An MCP server that could not be started or asked for its tools.
        McpServer = "mcp_server",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as transcripts written before these fields were enums carry them.
    const OLD_LINES: &[&str] = &[
        r#"{"event":"hooks_ran","phase":"eval","hooks":["audit"]}"#,
        r#"{"event":"hook","phase":"before_execution","hook":"guard","action":"deny_tool","reason":"no"}"#,
        r#"{"event":"hook","phase":"before_call","hook":"guard","action":"deny","reason":"no"}"#,
        r#"{"event":"tool_call","turn":1,"name":"refund","call_id":"c1","args":{},"status":"rejected","content":"x","duration_ms":3}"#,
        r#"{"event":"turn_end","turn":1,"reason":"answered (finish reason safety)"}"#,
        r#"{"event":"turn_end","turn":2,"reason":"round limit"}"#,
        r#"{"event":"extension_failed","turn":0,"kind":"hook","name":"rpc","phase":"before_llm","reason":"closed","stderr_tail":""}"#,
        r#"{"event":"extension_failed","turn":1,"kind":"tool","name":"t","phase":"tool","reason":"crashed","stderr_tail":"boom"}"#,
    ];

    #[test]
    fn old_transcript_lines_read_and_write_back_the_same() {
        for line in OLD_LINES {
            let event: SessionEvent = serde_json::from_str(line).expect("an old line reads");
            let back = serde_json::to_string(&event).expect("serializes");
            assert_eq!(&back, line);
        }
        let event: SessionEvent = serde_json::from_str(OLD_LINES[3]).expect("reads");
        assert!(matches!(
            event,
            SessionEvent::ToolCall {
                status: CallStatus::Rejected,
                ..
            }
        ));
    }

    #[test]
    fn an_eval_point_that_carried_its_input_still_reads_with_it() {
        let line = r#"{"event":"eval_point","turn":2,"input":{"content":"hi","messages":[{"role":"user","content":"x"}],"turn_index":2,"tool_calls":[],"variables":{},"metadata":{"latency_ms":3}}}"#;
        let event: SessionEvent = serde_json::from_str(line).expect("an old eval point reads");
        let SessionEvent::EvalPoint {
            turn,
            input: Some(input),
            ..
        } = event
        else {
            panic!("an eval point with its input: {event:?}")
        };
        assert_eq!(
            (turn, input.content.as_str(), input.messages.len()),
            (Some(2), "hi", 1)
        );
        let new = SessionEvent::EvalPoint {
            turn: None,
            messages: 4,
            metadata: serde_json::json!({}),
            input: None,
        };
        assert_eq!(
            serde_json::to_string(&new).expect("serializes"),
            r#"{"event":"eval_point","turn":null,"messages":4,"metadata":{}}"#
        );
    }

    #[test]
    fn a_word_no_version_wrote_is_refused_with_the_known_ones() {
        let line = r#"{"event":"tool_call","turn":1,"name":"t","call_id":"c","args":{},"status":"timeout","content":"","duration_ms":0}"#;
        let err = serde_json::from_str::<SessionEvent>(line)
            .expect_err("`timeout` is no call status")
            .to_string();
        assert!(err.contains("blocked"), "{err}");
        let line = r#"{"event":"turn_end","turn":1,"reason":"Answered"}"#;
        assert!(serde_json::from_str::<SessionEvent>(line).is_err());
    }
}
