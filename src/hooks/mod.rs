//! Hooks: exec hooks' payloads for every hook type and phase and JSON-RPC hooks'
//! params (`rpc_wire`), the reading of a hook's answer, the pure fold of answers into
//! one decision, and the dispatcher that runs filter hooks and interceptors as one
//! chain and observers beside the pipeline.
//!
//! What it promises: at each phase the session asks once and gets one [`Gate`]:
//! go on with this (possibly modified) value, answer in the tool's or model's place,
//! deny, or stop. Why it is shaped so: reading answers (`action`, `judge`,
//! `verdict`) and folding them (`decide`) are pure functions tested on values, and
//! only the dispatcher and the runners touch processes, so a hook's policy can be
//! checked without starting anything. Hooks speak the conversation's words
//! (`crate::conversation`) and never see the session that calls them; observers
//! have queues of their own, so a slow one never holds up a turn.

mod action;
mod call;
mod chain;
mod decide;
mod dispatch;
mod exec_step;
mod failure;
mod judge;
mod modify;
mod observer;
mod payload;
mod rpc_hook;
mod rpc_wire;
mod runner;
mod samples;
mod shape;
mod trial;
mod verdict;

#[cfg(test)]
mod chain_tests;
#[cfg(test)]
mod dispatch_tests;
#[cfg(test)]
mod failure_tests;
#[cfg(test)]
mod rpc_hook_tests;

pub use action::{
    Action, ActionKind, AnswerError, Approval, on_failure, read_action, read_approval,
};
pub(crate) use call::{HookReport, call_exec, call_rpc, start_rpc, wrap_event};
pub use chain::{Gate, Phase, ordered};
pub use decide::{Decision, Step, fold, step_for};
pub use dispatch::HookDispatcher;
pub use failure::HookFailure;
pub use judge::{ExecAnswer, HookDecision, read_exec_answer};
pub use modify::ModifyError;
pub use observer::OBSERVER_QUEUE;
pub use payload::{provider_payload, session_payload, tool_payload, wrap_bare};
pub use rpc_hook::{Intercepted, RpcHook, StartError};
pub use rpc_wire::{
    PROTOCOL_VERSION, after_llm_params, after_tool_params, before_llm_params, event_params,
    hello_params, meta, method_name, read_hello, tool_params, tool_result,
};
pub(crate) use runner::ExecHook;
pub use runner::{HookRun, hook_context, hook_type, run_hook};
pub(crate) use samples::{params as sample_params, payload as sample_payload};
pub use shape::{ArgumentsError, ShapeError, openai_call, read_call};
pub(crate) use trial::{HookCalls, HookTrialError, HookTrialPlan, run_trial};
pub use verdict::{Verdict, VerdictError, read_verdict};
