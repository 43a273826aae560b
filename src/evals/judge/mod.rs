//! Judge-based evals: a model (the judge) reads what the eval shows it and answers
//! a verdict, `{"passed", "score", "reasoning"}`. The request is built as
//! PromptKit builds it (`request`), sent to a provider of the run (`judges`), and
//! the answer read strictly (`verdict`): a judge that cannot be reached or answers
//! no verdict gives an eval error, never a pass.

mod judges;
mod kinds;
mod prompts;
mod request;
mod spec;
mod verdict;

use serde_json::json;

use crate::conversation::EvalInput;
use crate::pack::builtin::Scored;

pub(crate) use judges::{JudgeCallError, Judges};
pub(crate) use kinds::{JudgeKind, is_judge_type, judge_type_names};
pub(crate) use request::{Asked, Unjudgeable};
pub(crate) use spec::{JudgeParamError, JudgeSpec};
pub(crate) use verdict::{VerdictError, read_verdict};

/// Why a judge eval has no score.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum JudgeError {
    #[error("`{eval_type}`: {source}")]
    Unjudgeable {
        eval_type: String,
        #[source]
        source: Unjudgeable,
    },
    #[error("`{eval_type}`: {source}")]
    Call {
        eval_type: String,
        #[source]
        source: JudgeCallError,
    },
    #[error("`{eval_type}`: judge `{judge}` {source}")]
    Verdict {
        eval_type: String,
        judge: String,
        #[source]
        source: VerdictError,
    },
}

/// What a judge eval came to.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Judged {
    Scored(Scored),
    /// Not judged, and why (no judge for the run, nothing to judge).
    Skipped(String),
}

/// Runs the judge eval `spec` over `input` with the run's `judges`.
pub(crate) async fn run_judge(
    spec: &JudgeSpec,
    judges: &Judges,
    input: &EvalInput,
) -> Result<Judged, JudgeError> {
    let eval_type = || spec.eval_type.clone();
    if judges.is_empty() {
        return Ok(Judged::Skipped(format!(
            "not played: `{}` needs a judge provider and this run has none",
            spec.eval_type
        )));
    }
    let judge = match judges.pick(spec.judge.as_deref()) {
        Ok(Some(judge)) => judge,
        Ok(None) => {
            return Ok(Judged::Skipped(format!(
                "not played: `{}` names no judge and the run's provider cannot judge (it replays a recording); name one with `judge`",
                spec.eval_type
            )));
        }
        Err(source) => {
            return Err(JudgeError::Call {
                eval_type: eval_type(),
                source,
            });
        }
    };
    let request = match spec.ask(input) {
        Ok(Asked::Call(request)) => request,
        Ok(Asked::Nothing(reason)) => return Ok(Judged::Skipped(reason)),
        Err(source) => {
            return Err(JudgeError::Unjudgeable {
                eval_type: eval_type(),
                source,
            });
        }
    };
    let answer = judge
        .ask(&request, spec.model.as_deref())
        .await
        .map_err(|source| JudgeError::Call {
            eval_type: eval_type(),
            source,
        })?;
    let verdict = read_verdict(&answer).map_err(|source| JudgeError::Verdict {
        eval_type: eval_type(),
        judge: judge.name().to_string(),
        source,
    })?;
    let mut data = json!({
        "score": verdict.score,
        "passed": verdict.passed,
        "reasoning": verdict.reasoning,
        "judge": judge.name(),
        "model": judge.model(spec.model.as_deref()),
    });
    if let Some(sent) = request.tool_calls_sent {
        data["tool_calls_sent"] = json!(sent);
    }
    Ok(Judged::Scored(Scored {
        score: verdict.score,
        detail: verdict.reasoning,
        data,
    }))
}

#[cfg(test)]
mod request_tests;
#[cfg(test)]
mod tests;
