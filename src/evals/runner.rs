use std::time::Instant;

use futures::future::join_all;
use indexmap::IndexMap;
use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use crate::config::{EvalBinding, RuntimeMode};
use crate::exec::{self, Call, CallKind, Outcome};
use crate::pack::{EvalDef, Prompt, Trigger};
use crate::tools::{ToolServer, ToolStatus};

use super::builtin::{BUILTINS, check_params, run_builtin};
use super::exec_eval::{Scored, eval_request, read_score};
use super::{EvalInput, EvalResult, EvalStatus, Point, due, is_builtin, judge};

/// An eval that cannot run as written: its type is unknown, or a built-in check's
/// params are wrong.
#[derive(Debug, Clone, thiserror::Error)]
#[error("eval `{eval_id}`: {message}")]
pub struct EvalProblem {
    pub eval_id: String,
    pub message: String,
    pub pos: crate::doc::Pos,
}

/// The pack's evals, then the prompt's (a prompt eval replaces a pack eval of the
/// same id).
pub fn prompt_evals(pack_evals: &[EvalDef], prompt: &Prompt) -> Vec<EvalDef> {
    pack_evals
        .iter()
        .filter(|e| !prompt.evals.iter().any(|p| p.id == e.id))
        .chain(&prompt.evals)
        .cloned()
        .collect()
}

/// The evals of one prompt and how to run each.
pub struct Evaluator {
    evals: Vec<EvalDef>,
    bindings: IndexMap<String, EvalBinding>,
    /// One supervised process per `runtime: server` binding, started on first use.
    servers: IndexMap<String, ToolServer>,
    cancel: CancellationToken,
}

impl Evaluator {
    /// Every enabled eval of `evals` must be runnable: bound in the config (which
    /// overrides a built-in of the same name), or built in with valid params.
    pub fn new(
        mut evals: Vec<EvalDef>,
        bindings: &IndexMap<String, EvalBinding>,
        cancel: CancellationToken,
    ) -> Result<Self, Vec<EvalProblem>> {
        evals.retain(|e| e.enabled);
        let known: Vec<&str> = bindings
            .keys()
            .map(String::as_str)
            .chain(BUILTINS.iter().copied())
            .collect();
        let problems: Vec<EvalProblem> = evals
            .iter()
            .filter(|e| !bindings.contains_key(&e.eval_type))
            .filter_map(|e| {
                let message = if is_builtin(&e.eval_type) {
                    check_params(&e.eval_type, &e.params).err()?
                } else {
                    format!(
                        "type `{}` is neither bound in the config's spec.evals nor built in{}",
                        e.eval_type,
                        crate::doc::suggest(&e.eval_type, known.iter().copied())
                    )
                };
                Some(EvalProblem {
                    eval_id: e.id.clone(),
                    message,
                    pos: e.pos,
                })
            })
            .collect();
        if !problems.is_empty() {
            return Err(problems);
        }
        let servers = bindings
            .iter()
            .filter(|(_, b)| b.exec.runtime == RuntimeMode::Server)
            .map(|(name, b)| (name.clone(), ToolServer::new(name, &b.exec)))
            .collect();
        Ok(Self {
            evals,
            bindings: bindings.clone(),
            servers,
            cancel,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.evals.is_empty()
    }

    /// Runs, concurrently, every eval due at `point`; results in declaration order.
    pub async fn run_due(
        &self,
        point: Point,
        session_id: &str,
        input: &EvalInput,
    ) -> Vec<EvalResult> {
        let due: Vec<&EvalDef> = self
            .evals
            .iter()
            .filter(|e| due(e, point, session_id))
            .collect();
        let turn = match point {
            Point::TurnEnd(turn) => Some(turn),
            Point::SessionEnd => None,
        };
        join_all(due.into_iter().map(|e| async move {
            let mut result = self.run_one(e, input).await;
            result.turn = turn;
            result
        }))
        .await
    }

    /// Runs one eval now, whatever its trigger.
    pub async fn run_one(&self, eval: &EvalDef, input: &EvalInput) -> EvalResult {
        let started = Instant::now();
        let scored = match self.bindings.get(&eval.eval_type) {
            Some(binding) => self.run_exec(eval, binding, input).await,
            None => run_builtin(&eval.eval_type, &eval.params, input),
        };
        let duration_ms = started.elapsed().as_millis() as u64;
        let mut result = EvalResult {
            eval_id: eval.id.clone(),
            eval_type: eval.eval_type.clone(),
            score: None,
            passed: Some(false),
            status: EvalStatus::Error,
            duration_ms,
            explanation: String::new(),
            details: Json::Null,
            error: None,
            turn: None,
            trigger: trigger_name(eval.trigger).into(),
        };
        match scored {
            Ok(Scored {
                score,
                detail,
                data,
            }) => {
                result.status = judge(score, eval.threshold.as_ref());
                result.passed = match result.status {
                    EvalStatus::Measured => None,
                    status => Some(status == EvalStatus::Passed),
                };
                result.score = Some(score);
                result.explanation = detail;
                result.details = data;
            }
            Err(reason) => {
                result.explanation = reason.clone();
                result.error = Some(reason);
            }
        }
        result
    }

    async fn run_exec(
        &self,
        eval: &EvalDef,
        binding: &EvalBinding,
        input: &EvalInput,
    ) -> Result<Scored, String> {
        let request = eval_request(&eval.eval_type, &eval.params, input);
        if let Some(server) = self.servers.get(&eval.eval_type) {
            let report = server.execute(request, None).await;
            return match (report.status, report.result) {
                (ToolStatus::Ok, Some(answer)) => read_score(&answer),
                _ => Err(format!(
                    "eval `{}` {}",
                    eval.eval_type,
                    report.error.unwrap_or_else(|| "answered no score".into())
                )),
            };
        }
        let mut call = Call::new(
            &eval.id,
            CallKind::Eval,
            &binding.exec,
            request.to_string().into_bytes(),
        );
        call.context
            .push(("PROMPTEXEC_EVAL_TYPE".into(), eval.eval_type.clone()));
        let finished = exec::run(&call, &self.cancel).await;
        match exec::classify(&finished) {
            Outcome::Answered(answer) => read_score(&answer),
            failure => {
                let tail = finished.stderr_tail.trim();
                Err(if tail.is_empty() {
                    format!("eval `{}` {}", eval.eval_type, failure.describe())
                } else {
                    format!(
                        "eval `{}` {}; stderr: {}",
                        eval.eval_type,
                        failure.describe(),
                        last_line(tail)
                    )
                })
            }
        }
    }

    /// Stops the server-mode evals.
    pub async fn shutdown(&self) {
        for server in self.servers.values() {
            server.shutdown().await;
        }
    }
}

fn last_line(text: &str) -> &str {
    text.lines().last().unwrap_or_default()
}

pub fn trigger_name(trigger: Trigger) -> &'static str {
    match trigger {
        Trigger::EveryTurn => "every_turn",
        Trigger::OnSessionComplete => "on_session_complete",
        Trigger::SampleTurns => "sample_turns",
        Trigger::SampleSessions => "sample_sessions",
        Trigger::OnConversationComplete => "on_conversation_complete",
        Trigger::OnWorkflowStep => "on_workflow_step",
    }
}
