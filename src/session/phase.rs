//! Where in a session something happened, as events and reports name it.

use crate::config::{HookPhase, Intercept};

crate::wire_enum! {
    /// Where a hook ran or decided, or where an extension failed: a hook phase of
    /// the config, a JSON-RPC hook's interception, the eval hooks, or a tool call.
    /// The hook phases and interceptions keep the names the config gives them.
    pub enum Phase {
        BeforeCall = "before_call",
        AfterCall = "after_call",
        BeforeExecution = "before_execution",
        AfterExecution = "after_execution",
        SessionStart = "session_start",
        SessionUpdate = "session_update",
        SessionEnd = "session_end",
        BeforeLlm = "before_llm",
        AfterLlm = "after_llm",
        BeforeTool = "before_tool",
        AfterTool = "after_tool",
        ApproveTool = "approve_tool",
        /// Eval hooks hearing a result.
        Eval = "eval",
        /// A tool process.
        Tool = "tool",
    }
}

impl From<HookPhase> for Phase {
    fn from(phase: HookPhase) -> Self {
        match phase {
            HookPhase::BeforeCall => Phase::BeforeCall,
            HookPhase::AfterCall => Phase::AfterCall,
            HookPhase::BeforeExecution => Phase::BeforeExecution,
            HookPhase::AfterExecution => Phase::AfterExecution,
            HookPhase::SessionStart => Phase::SessionStart,
            HookPhase::SessionUpdate => Phase::SessionUpdate,
            HookPhase::SessionEnd => Phase::SessionEnd,
        }
    }
}

impl From<Intercept> for Phase {
    fn from(intercept: Intercept) -> Self {
        match intercept {
            Intercept::BeforeLlm => Phase::BeforeLlm,
            Intercept::AfterLlm => Phase::AfterLlm,
            Intercept::BeforeTool => Phase::BeforeTool,
            Intercept::AfterTool => Phase::AfterTool,
            Intercept::ApproveTool => Phase::ApproveTool,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hook_phase_keeps_its_config_name() {
        for (name, phase) in HookPhase::WIRE {
            assert_eq!(Phase::from(*phase).as_str(), *name);
        }
    }

    #[test]
    fn an_interception_keeps_the_name_hook_failures_give_it() {
        for intercept in [
            Intercept::BeforeLlm,
            Intercept::AfterLlm,
            Intercept::BeforeTool,
            Intercept::AfterTool,
            Intercept::ApproveTool,
        ] {
            assert_eq!(
                Phase::from(intercept).as_str(),
                crate::hooks::intercept_name(intercept)
            );
        }
    }
}
