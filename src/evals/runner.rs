use std::time::Instant;

use futures::future::join_all;
use indexmap::IndexMap;
use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use crate::config::{EvalBinding, RuntimeMode};
use crate::exec::{self, Call, CallKind, Outcome};
use crate::pack::{EvalDef, Prompt};
use crate::tools::{ToolServer, ToolStatus};

use super::exec_eval::{ScoreError, eval_request, read_score};
use super::judge::{JudgeSpec, Judged, Judges, judge_type_names, run_judge};
use super::precondition::{skip_reason, unwrap_assertion};
use super::{EvalInput, EvalResult, EvalStatus, Point, due, judge};
use crate::pack::builtin::{Judge, JudgeError, Scored, builtin_names, prepare};

/// An eval that cannot run as written: its type is unknown, or a built-in check's
/// params are wrong.
#[derive(Debug, Clone, thiserror::Error)]
#[error("eval `{eval_id}`: {message}")]
pub struct EvalProblem {
    pub eval_id: String,
    pub message: String,
    pub pos: crate::doc::Pos,
}

impl EvalProblem {
    fn new(eval: &EvalDef, message: String) -> Self {
        Self {
            eval_id: eval.id.clone(),
            message,
            pos: eval.pos,
        }
    }
}

/// Why an eval has no score: what goes in its result's `error`.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum EvalError {
    /// A built-in check could not judge the input.
    #[error(transparent)]
    Check(#[from] JudgeError),
    /// The eval answered, but not with a valid score.
    #[error(transparent)]
    Answer(#[from] ScoreError),
    /// A judge eval had no verdict: no judge to call, no answer, or no verdict in it.
    #[error(transparent)]
    Judge(#[from] super::judge::JudgeError),
    /// The eval's process or server failed (`failure` says how), with the last line
    /// of its stderr when there is one.
    #[error("eval `{eval_type}` {failure}{}", stderr_line.as_ref().map(|l| format!("; stderr: {l}")).unwrap_or_default())]
    Failed {
        eval_type: String,
        failure: String,
        stderr_line: Option<String>,
    },
}

/// The pack's evals, then the prompt's (a prompt eval replaces a pack eval of the
/// same id).
pub(crate) fn prompt_evals(pack_evals: &[EvalDef], prompt: &Prompt) -> Vec<EvalDef> {
    pack_evals
        .iter()
        .filter(|e| !prompt.evals.iter().any(|p| p.id == e.id))
        .chain(&prompt.evals)
        .cloned()
        .collect()
}

/// How one eval runs.
enum Runner {
    /// A process per call.
    Exec(EvalBinding),
    /// One supervised process for every call, started on first use.
    Server(Box<ToolServer>),
    Builtin(Judge),
    /// A model judges: the request is built from the params, the judge chosen
    /// among the evaluator's judges.
    Judge(Box<JudgeSpec>),
}

/// The evals of one prompt, each ready to run.
pub struct Evaluator {
    evals: Vec<(EvalDef, Runner)>,
    cancel: CancellationToken,
    /// Who answers the judge evals; none until [`Evaluator::with_judges`].
    judges: Judges,
}

impl Evaluator {
    /// Every enabled eval of `evals` must be runnable: bound in the config (which
    /// overrides a built-in of the same name), or built in with valid params. An
    /// `assertion` wrapper becomes the eval it wraps, gated by its scores.
    pub fn new(
        evals: Vec<EvalDef>,
        bindings: &IndexMap<String, EvalBinding>,
        cancel: CancellationToken,
    ) -> Result<Self, Vec<EvalProblem>> {
        let mut ready = Vec::new();
        let mut problems = Vec::new();
        for eval in evals.into_iter().filter(|e| e.enabled) {
            match runner(eval, bindings) {
                Ok(pair) => ready.push(pair),
                Err(problem) => problems.push(problem),
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Self {
            evals: ready,
            cancel,
            judges: Judges::none(),
        })
    }

    /// The judges the judge evals call. Without any, those evals are skipped,
    /// each saying why.
    pub(crate) fn with_judges(mut self, judges: Judges) -> Self {
        self.judges = judges;
        self
    }

    /// Whether any eval is due at `point`: where none is, nothing about the session
    /// needs to be gathered for them.
    pub fn any_due(&self, point: Point, session_id: &str) -> bool {
        self.evals
            .iter()
            .any(|(eval, _)| due(eval, point, session_id))
    }

    /// Runs, concurrently, every eval due at `point`; results in declaration order.
    pub async fn run_due(
        &self,
        point: Point,
        session_id: &str,
        input: &EvalInput,
    ) -> Vec<EvalResult> {
        let turn = match point {
            Point::TurnEnd(turn) => Some(turn),
            Point::SessionEnd => None,
        };
        let due = self
            .evals
            .iter()
            .filter(|(eval, _)| due(eval, point, session_id));
        join_all(due.map(|(eval, runner)| async move {
            let mut result = match skip_reason(&eval.when, &input.tool_calls) {
                Some(reason) => {
                    EvalResult::skipped(&eval.id, &eval.eval_type, eval.trigger.as_str(), reason)
                }
                None => self.run(eval, runner, input).await,
            };
            result.turn = turn;
            result
        }))
        .await
    }

    /// Runs the eval with `id` now, whatever its trigger.
    pub async fn run_one(&self, id: &str, input: &EvalInput) -> Option<EvalResult> {
        let (eval, runner) = self.evals.iter().find(|(e, _)| e.id == id)?;
        Some(self.run(eval, runner, input).await)
    }

    async fn run(&self, eval: &EvalDef, runner: &Runner, input: &EvalInput) -> EvalResult {
        let started = Instant::now();
        let scored = match runner {
            Runner::Exec(binding) => self.run_exec(eval, binding, input).await,
            Runner::Server(server) => run_server(eval, server, input).await,
            Runner::Builtin(judge) => judge(input).map_err(EvalError::from),
            Runner::Judge(spec) => match run_judge(spec, &self.judges, input).await {
                Ok(Judged::Scored(scored)) => Ok(scored),
                Ok(Judged::Skipped(reason)) => {
                    let trigger = eval.trigger.as_str();
                    let mut skipped =
                        EvalResult::skipped(&eval.id, &eval.eval_type, trigger, reason);
                    skipped.duration_ms = started.elapsed().as_millis() as u64;
                    return skipped;
                }
                Err(err) => Err(err.into()),
            },
        };
        let mut result = EvalResult {
            eval_id: eval.id.clone(),
            eval_type: eval.eval_type.clone(),
            score: None,
            passed: Some(false),
            status: EvalStatus::Error,
            duration_ms: started.elapsed().as_millis() as u64,
            explanation: String::new(),
            details: Json::Null,
            error: None,
            turn: None,
            trigger: eval.trigger.as_str().into(),
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
                result.explanation = reason.to_string();
                result.error = Some(reason.to_string());
            }
        }
        result
    }

    async fn run_exec(
        &self,
        eval: &EvalDef,
        binding: &EvalBinding,
        input: &EvalInput,
    ) -> Result<Scored, EvalError> {
        let request = eval_request(&eval.eval_type, &eval.params, input);
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
            Outcome::Answered(answer) => Ok(read_score(&answer)?),
            failure => {
                let tail = finished.stderr_tail.trim();
                Err(EvalError::Failed {
                    eval_type: eval.eval_type.clone(),
                    failure: failure.describe(),
                    stderr_line: (!tail.is_empty()).then(|| last_line(tail).to_string()),
                })
            }
        }
    }

    /// Stops the server-mode evals.
    pub async fn shutdown(&self) {
        for (_, runner) in &self.evals {
            if let Runner::Server(server) = runner {
                server.shutdown().await;
            }
        }
    }
}

/// How `eval` runs, or why it cannot.
fn runner(
    eval: EvalDef,
    bindings: &IndexMap<String, EvalBinding>,
) -> Result<(EvalDef, Runner), EvalProblem> {
    let eval =
        unwrap_assertion(eval.clone()).map_err(|e| EvalProblem::new(&eval, e.to_string()))?;
    let runner = match bindings.get(&eval.eval_type) {
        Some(binding) if binding.exec.runtime == RuntimeMode::Server => {
            Runner::Server(Box::new(ToolServer::new(&eval.eval_type, &binding.exec)))
        }
        Some(binding) => Runner::Exec(binding.clone()),
        None if let Some(spec) = JudgeSpec::prepare(&eval.eval_type, &eval.params) => {
            Runner::Judge(Box::new(
                spec.map_err(|e| EvalProblem::new(&eval, e.to_string()))?,
            ))
        }
        None if crate::pack::builtin::is_builtin(&eval.eval_type) => Runner::Builtin(
            prepare(&eval.eval_type, &eval.params)
                .map_err(|e| EvalProblem::new(&eval, e.to_string()))?,
        ),
        None => {
            let mut known: Vec<&str> = bindings.keys().map(String::as_str).collect();
            for name in builtin_names()
                .chain(judge_type_names())
                .chain(["assertion"])
            {
                known.push(name);
            }
            return Err(EvalProblem::new(
                &eval,
                format!(
                    "type `{}` is neither bound in the config's spec.evals nor built in{}",
                    eval.eval_type,
                    crate::doc::suggest(&eval.eval_type, known)
                ),
            ));
        }
    };
    Ok((eval, runner))
}

async fn run_server(
    eval: &EvalDef,
    server: &ToolServer,
    input: &EvalInput,
) -> Result<Scored, EvalError> {
    let request = eval_request(&eval.eval_type, &eval.params, input);
    let report = server.execute(&request, None).await;
    match (report.status, report.result) {
        (ToolStatus::Ok, Some(answer)) => Ok(read_score(&answer.to_value())?),
        _ => Err(EvalError::Failed {
            eval_type: eval.eval_type.clone(),
            failure: report.error.unwrap_or_else(|| "answered no score".into()),
            stderr_line: None,
        }),
    }
}

fn last_line(text: &str) -> &str {
    text.lines().last().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_eval_says_how_with_its_last_stderr_line() {
        let failed = |stderr_line: Option<&str>| EvalError::Failed {
            eval_type: "tone".into(),
            failure: "exited with status 2".into(),
            stderr_line: stderr_line.map(str::to_string),
        };
        assert_eq!(failed(None).to_string(), "eval `tone` exited with status 2");
        assert_eq!(
            failed(Some("no model")).to_string(),
            "eval `tone` exited with status 2; stderr: no model"
        );
        assert_eq!(
            EvalError::from(ScoreError::NoScore).to_string(),
            "answered without a `score`"
        );
        assert_eq!(
            EvalError::from(JudgeError::NoLatency).to_string(),
            "the context has no `metadata.latency_ms` to judge"
        );
    }
}
