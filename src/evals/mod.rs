//! Evals: exec evals (an external script scores a turn from 0 to 1) and built-in
//! checks, run at their triggers, with thresholds that make an eval a gate. The
//! checks themselves live in `pack::builtin`, beside the pack that names them.

mod builtins;
mod exec_eval;
mod judge;
mod precondition;
mod result;
mod runner;
mod schedule;
mod unread;

#[cfg(test)]
mod runner_tests;

// The built-in checks live with the pack that names them; these paths stay for
// the modules above that still use them.
pub(crate) use crate::conversation::EvalInput;
pub(crate) use builtins::{drop_unread, is_builtin};
pub(crate) use exec_eval::{eval_request, read_score};
pub(crate) use judge::Judges;
pub(crate) use result::{EvalCounts, EvalResult, EvalStatus, eval_counts, judge};
pub(crate) use runner::{Evaluator, prompt_evals};
pub(crate) use schedule::{Point, due};
pub(crate) use unread::drop_unread_params;
