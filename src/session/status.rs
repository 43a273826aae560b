//! How a tool call in a session went: the fixed word its events carry. What a hook
//! did and why a turn ended are words of the conversation (`crate::conversation`).

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
