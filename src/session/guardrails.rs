//! A prompt's guardrails on each model answer: which fire, and the answer that
//! stands after them (cut to a length limit, or replaced by the guardrail's
//! message).

use crate::evals::{EvalInput, EvalStatus, Judge, canonical_check, judge, prepare_check};
use crate::pack::{Prompt, Validator};

/// What an answer a guardrail fired on is replaced by when the guardrail has no
/// message of its own.
pub const WITHHELD_ANSWER: &str = "This answer was withheld by a guardrail.";

/// The prompt's guardrails, each ready to judge.
#[derive(Default)]
pub struct Guardrails(Vec<(Validator, Judge)>);

/// A guardrail that fired on an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Firing {
    /// Its type as written.
    pub validator: String,
    pub detail: String,
    /// It also fails the run (`fail_on_violation`).
    pub fails_run: bool,
}

/// An answer after its guardrails: the text that stands, and how it came to be.
#[derive(Debug, Clone, PartialEq)]
pub struct Guarded {
    pub text: String,
    pub firings: Vec<Firing>,
    /// `truncated` or `replaced`.
    pub enforced: &'static str,
}

impl Guardrails {
    /// The prompt's validators (their params were checked when the pack loaded).
    pub fn of(prompt: &Prompt) -> Self {
        Self(
            prompt
                .validators
                .iter()
                .filter_map(|v| Some((v.clone(), prepare_check(&v.check, &v.params).ok()?)))
                .collect(),
        )
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every guardrail that fires on `text`, and the text that stands; `None` when
    /// none fires. A guardrail that cannot judge the text fires: it fails closed.
    pub fn check(&self, text: &str) -> Option<Guarded> {
        let input = EvalInput {
            content: text.to_string(),
            ..EvalInput::default()
        };
        let mut firings = Vec::new();
        let mut stands = text.to_string();
        let mut enforced = "truncated";
        for (validator, check) in &self.0 {
            let detail = match check(&input) {
                Ok(scored)
                    if judge(scored.score, Some(&validator.threshold)) == EvalStatus::Passed =>
                {
                    continue;
                }
                Ok(scored) => scored.detail,
                Err(err) => format!("could not judge the answer: {err}"),
            };
            firings.push(Firing {
                validator: validator.kind.clone(),
                detail,
                fails_run: validator.fail_on_violation,
            });
            if enforced == "replaced" {
                continue;
            }
            match length_limit(validator) {
                Some(max) if stands.chars().count() > max => {
                    stands = stands.chars().take(max).collect();
                }
                _ => {
                    stands = validator
                        .message
                        .clone()
                        .unwrap_or_else(|| WITHHELD_ANSWER.to_string());
                    enforced = "replaced";
                }
            }
        }
        (!firings.is_empty()).then_some(Guarded {
            text: stands,
            firings,
            enforced,
        })
    }
}

/// The characters a length guardrail allows: its `max` (or `max_characters`,
/// `max_chars`) when positive. Other checks' `max` counts something else.
fn length_limit(validator: &Validator) -> Option<usize> {
    if canonical_check(&validator.check) != Some("max_length") {
        return None;
    }
    ["max", "max_characters", "max_chars"]
        .iter()
        .find_map(|key| validator.params.get(key)?.as_u64())
        .filter(|max| *max > 0)
        .map(|max| max as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Pos;
    use crate::pack::{Bound, Threshold};
    use serde_json::{Value as Json, json};

    fn validator(kind: &str, check: &str, params: Json, message: Option<&str>) -> Validator {
        Validator {
            kind: kind.into(),
            check: check.into(),
            params,
            threshold: Threshold {
                min: Some(Bound {
                    value: 1.0,
                    inclusive: true,
                }),
                max: None,
            },
            message: message.map(str::to_string),
            fail_on_violation: false,
            pos: Pos::START,
        }
    }

    fn guardrails(validators: Vec<Validator>) -> Guardrails {
        Guardrails(
            validators
                .into_iter()
                .map(|v| {
                    let check = prepare_check(&v.check, &v.params).expect("valid params");
                    (v, check)
                })
                .collect(),
        )
    }

    #[test]
    fn a_clean_answer_passes_untouched() {
        let g = guardrails(vec![validator(
            "banned_words",
            "content_excludes",
            json!({"words": ["guarantee"]}),
            None,
        )]);
        assert_eq!(g.check("We will look into it."), None);
    }

    #[test]
    fn a_banned_word_replaces_the_answer_with_the_message() {
        let g = guardrails(vec![validator(
            "banned_words",
            "content_excludes",
            json!({"words": ["guarantee"]}),
            Some("I can't promise that."),
        )]);
        let guarded = g.check("I guarantee a refund.").expect("fires");
        assert_eq!(guarded.text, "I can't promise that.");
        assert_eq!(guarded.enforced, "replaced");
        assert_eq!(guarded.firings[0].validator, "banned_words");
    }

    #[test]
    fn a_length_limit_cuts_the_answer() {
        let g = guardrails(vec![validator(
            "length",
            "max_length",
            json!({"max": 5}),
            None,
        )]);
        let guarded = g.check("abcdefgh").expect("fires");
        assert_eq!(
            (guarded.text.as_str(), guarded.enforced),
            ("abcde", "truncated")
        );
        let g = guardrails(vec![validator(
            "length",
            "max_length",
            json!({"max_tokens": 1}),
            None,
        )]);
        assert_eq!(g.check("abcdefgh").expect("fires").text, WITHHELD_ANSWER);
    }

    #[test]
    fn only_a_length_check_cuts_other_maxima_replace() {
        let g = guardrails(vec![validator(
            "max_sentences",
            "sentence_count",
            json!({"max": 1}),
            None,
        )]);
        let guarded = g.check("One. Two. Three.").expect("fires");
        assert_eq!(
            (guarded.text.as_str(), guarded.enforced),
            (WITHHELD_ANSWER, "replaced")
        );
    }
}
