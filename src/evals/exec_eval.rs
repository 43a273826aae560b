//! The exec eval protocol: a request on stdin, `{score, detail, data}` on stdout.

use serde_json::{Value as Json, json};

use crate::conversation::EvalInput;
use crate::pack::builtin::Scored;

/// The request an exec eval reads on stdin.
pub(crate) fn eval_request(eval_type: &str, params: &Json, input: &EvalInput) -> Json {
    json!({
        "type": eval_type,
        "params": params,
        "content": input.content,
        "context": input.context(),
    })
}

/// Why an eval's answer is not a valid score.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum ScoreError {
    #[error("answered {0} instead of an object with `score`")]
    NotAnObject(Json),
    #[error("answered without a `score`")]
    NoScore,
    #[error("answered a score of {0}, which is not a number")]
    NotANumber(Json),
    #[error("answered a score of {0}, outside [0, 1]")]
    OutOfRange(f64),
}

/// Reads an eval's answer. A score that is missing, not a number, or outside [0, 1]
/// is an error, never a silent 0.
pub(crate) fn read_score(answer: &Json) -> Result<Scored, ScoreError> {
    let Some(object) = answer.as_object() else {
        return Err(ScoreError::NotAnObject(answer.clone()));
    };
    let score = match object.get("score") {
        None | Some(Json::Null) => return Err(ScoreError::NoScore),
        Some(Json::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
        Some(other) => return Err(ScoreError::NotANumber(other.clone())),
    };
    if !(0.0..=1.0).contains(&score) {
        return Err(ScoreError::OutOfRange(score));
    }
    let detail = match object.get("detail") {
        Some(Json::String(text)) => text.clone(),
        Some(Json::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    Ok(Scored {
        score,
        detail,
        data: object.get("data").cloned().unwrap_or(Json::Null),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_score_in_range_is_read_with_its_detail_and_data() {
        let scored = read_score(&json!({"score": 0.85, "detail": "polite", "data": {"p": 1}}))
            .expect("valid");
        assert_eq!(scored.score, 0.85);
        assert_eq!(scored.detail, "polite");
        assert_eq!(scored.data, json!({"p": 1}));
        assert_eq!(read_score(&json!({"score": 1})).expect("valid").score, 1.0);
    }

    #[test]
    fn anything_but_a_number_in_range_is_an_error() {
        for (answer, says) in [
            (json!({"score": 1.7}), "outside [0, 1]"),
            (json!({"score": -0.1}), "outside [0, 1]"),
            (json!({"score": "high"}), "not a number"),
            (json!({"detail": "fine"}), "without a `score`"),
            (json!({"score": null}), "without a `score`"),
            (json!([0.5]), "instead of an object"),
        ] {
            let err = read_score(&answer).expect_err("an error").to_string();
            assert!(err.contains(says), "{answer}: {err}");
        }
    }
}
