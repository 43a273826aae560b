//! The fixed words a conversation's events carry about how things ended: what a hook
//! did, why a turn ended. Each is written once, here, and reports match on the values.

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
