//! Reading the judge's answer: a JSON object (alone, or inside other text such as
//! a fenced block) with `score` from 0 to 1, `passed` and `reasoning`. An answer
//! that is not one is an error, never a pass.

use serde_json::{Map, Value as Json};

/// The judge's verdict.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Verdict {
    pub score: f64,
    /// The judge's own opinion; when it gives none, whether the score is at least 0.5.
    pub passed: bool,
    pub reasoning: String,
}

/// Why an answer is no verdict. Each names what the judge said (cut short).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum VerdictError {
    #[error("answered no JSON object: {0}")]
    NotJson(String),
    #[error("answered no `score` (nor `passed`): {0}")]
    NoScore(String),
    #[error("answered a `score` that is not a number: {0}")]
    NotANumber(String),
    #[error("answered a score of {0}, outside [0, 1]")]
    OutOfRange(f64),
}

/// The longest part of an answer an error quotes.
const QUOTED: usize = 160;

/// `answer`, on one line and cut short, for messages.
fn quoted(answer: &str) -> String {
    let line = answer.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= QUOTED {
        return format!("`{line}`");
    }
    let cut: String = line.chars().take(QUOTED).collect();
    format!("`{cut}…`")
}

/// Reads the verdict in `answer`. A missing `score` is taken from `passed` (1 or
/// 0); a missing `passed` from the score (at least 0.5 passes).
pub(crate) fn read_verdict(answer: &str) -> Result<Verdict, VerdictError> {
    let object = json_object(answer).ok_or_else(|| VerdictError::NotJson(quoted(answer)))?;
    let passed = object.get("passed").and_then(Json::as_bool);
    let score = match (object.get("score"), passed) {
        (Some(Json::Number(n)), _) => n.as_f64().unwrap_or(f64::NAN),
        (Some(Json::String(s)), _) => s
            .trim()
            .parse::<f64>()
            .map_err(|_| VerdictError::NotANumber(quoted(answer)))?,
        (None | Some(Json::Null), Some(passed)) => f64::from(u8::from(passed)),
        (None | Some(Json::Null), None) => return Err(VerdictError::NoScore(quoted(answer))),
        (Some(_), _) => return Err(VerdictError::NotANumber(quoted(answer))),
    };
    if !(0.0..=1.0).contains(&score) {
        return Err(VerdictError::OutOfRange(score));
    }
    let reasoning = match object.get("reasoning") {
        Some(Json::String(text)) => text.clone(),
        None | Some(Json::Null) => String::new(),
        Some(other) => other.to_string(),
    };
    Ok(Verdict {
        score,
        passed: passed.unwrap_or(score >= 0.5),
        reasoning,
    })
}

/// The JSON object in `answer`: all of it, else from its first `{` to its last `}`.
fn json_object(answer: &str) -> Option<Map<String, Json>> {
    if let Ok(Json::Object(object)) = serde_json::from_str(answer.trim()) {
        return Some(object);
    }
    let start = answer.find('{')?;
    let end = answer.rfind('}')?;
    if end < start {
        return None;
    }
    match serde_json::from_str(&answer[start..=end]) {
        Ok(Json::Object(object)) => Some(object),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_is_read_alone_or_inside_other_text() {
        let plain = read_verdict(r#"{"passed": true, "score": 0.92, "reasoning": "clear"}"#)
            .expect("a verdict");
        assert_eq!(
            plain,
            Verdict {
                score: 0.92,
                passed: true,
                reasoning: "clear".into()
            }
        );
        let fenced =
            read_verdict("Here it is:\n```json\n{\"score\": 0.3, \"reasoning\": \"vague\"}\n```")
                .expect("a verdict");
        assert_eq!((fenced.score, fenced.passed), (0.3, false));
        let only_passed = read_verdict(r#"{"passed": true}"#).expect("a verdict");
        assert_eq!(only_passed.score, 1.0);
        assert_eq!(
            read_verdict(r#"{"score": "0.5"}"#)
                .expect("a verdict")
                .score,
            0.5
        );
        // The judge's own opinion is kept even where the score says otherwise.
        let own = read_verdict(r#"{"passed": false, "score": 0.9}"#).expect("a verdict");
        assert!(!own.passed);
    }

    #[test]
    fn anything_else_is_an_error_that_quotes_the_answer() {
        for (answer, says) in [
            ("Mock response", "answered no JSON object: `Mock response`"),
            ("{not json}", "no JSON object"),
            ("[0.9]", "no JSON object"),
            (r#"{"reasoning": "fine"}"#, "no `score`"),
            (r#"{"score": "high"}"#, "not a number"),
            (r#"{"score": [1]}"#, "not a number"),
            (r#"{"score": 8}"#, "outside [0, 1]"),
            (r#"{"score": -0.5}"#, "outside [0, 1]"),
        ] {
            let err = read_verdict(answer).expect_err(answer).to_string();
            assert!(err.contains(says), "{answer}: {err}");
        }
        let long = "x".repeat(500);
        let err = read_verdict(&long).expect_err("long").to_string();
        assert!(err.len() < 200 && err.ends_with("…`"), "{err}");
    }
}
