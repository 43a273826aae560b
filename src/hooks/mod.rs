//! Exec hooks: payloads for every hook type and phase, the reading of a hook's
//! answer, the pure fold of answers into one decision, and the dispatcher that runs
//! filter hooks in order and observers beside the pipeline.

mod action;
mod decide;
mod dispatch;
mod events;
mod failure;
mod observer;
mod payload;
mod rpc_hook;
mod runner;
mod shape;
mod verdict;

pub use action::{Action, Approval, method_name, on_failure, read_action, read_approval};
pub use decide::{Decision, Step, fold, step_for};
pub use dispatch::{Gate, HookDispatcher, Phase, ordered, tool_result};
pub use events::{EVENT_NAMES, is_runtime_name, runtime_name, selects, selects_any};
pub use failure::HookFailure;
pub use observer::OBSERVER_QUEUE;
pub use payload::{
    ProviderRequest, ProviderResponse, SessionInfo, ToolCallInfo, ToolResultInfo, message,
    provider_payload, session_payload, tool_payload,
};
pub use rpc_hook::{Intercepted, RpcHook};
pub use runner::{HookRun, hook_type, run_hook};
pub use shape::{openai_call, read_call};
pub use verdict::{Verdict, read_verdict};
