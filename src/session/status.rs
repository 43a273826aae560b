//! The fixed words events carry: how a tool call went, what a hook did, why a turn
//! ended. Each is written once, here, and reports match on the values.

use crate::tools::ToolStatus;

crate::wire_enum! {
    /// How a tool call in a session went, as the model was told. Unlike
    /// [`ToolStatus`] (one process's answer) it has no `pending` (a decision settles
    /// it) and no `timeout` (a failure like any other), and it names the calls that
    /// never ran: blocked by a hook or rejected by a person.
    pub enum CallStatus {
        /// The tool answered with a result, or a hook answered for it.
        Ok = "ok",
        /// The tool's own error answer, or a refusal before it ran.
        Error = "error",
        /// The process failed: crash, timeout, invalid output.
        Failed = "failed",
        /// A hook denied the call or withheld its result.
        Blocked = "blocked",
        /// A person rejected the pending call.
        Rejected = "rejected",
    }
}

impl CallStatus {
    /// Whether the model got a result rather than an error.
    pub fn is_ok(self) -> bool {
        self == CallStatus::Ok
    }
}

impl From<ToolStatus> for CallStatus {
    /// A tool's answer as the model is told it; a `pending` left over is an error.
    fn from(status: ToolStatus) -> Self {
        match status {
            ToolStatus::Ok => CallStatus::Ok,
            ToolStatus::Error | ToolStatus::Pending => CallStatus::Error,
            ToolStatus::Failed | ToolStatus::Timeout => CallStatus::Failed,
        }
    }
}

crate::wire_enum! {
    /// What a hook did that changed what happens next.
    pub enum HookAction {
        /// Replaced a model request's answer or a model answer.
        Replaced = "replaced",
        /// Answered for a tool, which did not run.
        Respond = "respond",
        /// Denied a tool call; the turn goes on.
        DenyTool = "deny_tool",
        /// Denied where no tool call was at stake; the turn ended.
        Deny = "deny",
        /// Withheld a tool's result from the model.
        Withheld = "withheld",
        /// Ended the turn.
        AbortTurn = "abort_turn",
        /// Stopped the whole run.
        HardAbort = "hard_abort",
    }
}

crate::wire_enum! {
    /// Why a turn ended, as its `turn_end` event says.
    pub enum TurnEndReason {
        /// The model answered without calling tools.
        Answered = "answered",
        /// A provider filter answered in the model's place.
        AnsweredForSafety = "answered (finish reason safety)",
        /// The round limit came first.
        RoundLimit = "round limit",
        /// A tool waits on a decision.
        Pending = "pending",
        /// A hook ended the turn.
        Aborted = "aborted",
        /// A hook stopped the run.
        Stopped = "stopped by a hook",
        /// The model could not be called, or its replay did not match.
        ModelFailed = "model call failed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_answer_has_a_call_status() {
        assert_eq!(CallStatus::from(ToolStatus::Ok), CallStatus::Ok);
        assert_eq!(CallStatus::from(ToolStatus::Pending), CallStatus::Error);
        assert_eq!(CallStatus::from(ToolStatus::Timeout), CallStatus::Failed);
        assert!(CallStatus::Ok.is_ok() && !CallStatus::Blocked.is_ok());
    }
}
