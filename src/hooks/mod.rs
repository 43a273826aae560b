//! Exec hooks: payloads for every hook type and phase, the reading of a hook's
//! answer, the pure fold of answers into one decision, and the dispatcher that runs
//! filter hooks in order and observers beside the pipeline.

mod action;
mod decide;
mod dispatch;
mod payload;
mod rpc_hook;
mod verdict;

pub use action::{
    Action, Approval, intercept_name, method_name, on_failure, read_action, read_approval,
};
pub use decide::{Decision, Step, fold, step_for};
pub use dispatch::{Gate, HookDispatcher, HookFailure, HookRun, Phase, ordered, run_hook};
pub use payload::{
    ProviderRequest, ProviderResponse, SessionInfo, ToolCallInfo, ToolResultInfo, message,
    provider_payload, session_payload, tool_payload,
};
pub use rpc_hook::{Intercepted, RpcHook};
pub use verdict::{Verdict, read_verdict};
