//! A prompt's guardrails: on each user message before the model is called
//! (`direction: input` or `both`) and on each model answer (`output`, the default,
//! or `both`). Which fire, and what stands after them: an answer cut to a length
//! limit or replaced by the guardrail's message; a message the model never sees,
//! answered by the guardrail's message.

use serde_json::Value as Json;

use crate::conversation::EvalInput;
use crate::evals::{EvalStatus, judge};
use crate::pack::builtin::{Judge, canonical as canonical_check, prepare as prepare_check};
use crate::pack::{Prompt, Validator};

/// What a message or an answer a guardrail fired on is replaced by when the
/// guardrail has no message of its own: PromptKit's `DefaultBlockedMessage`.
pub const DEFAULT_BLOCKED_MESSAGE: &str =
    "Sorry, we can't provide this response as it would violate our content policy.";

/// The check name of PromptKit's `pii_leakage` guardrail, which runs here as its
/// offline pre-pass.
pub const PII_LEAKAGE: &str = "pii_leakage";

/// A guardrail's check, ready to judge text.
struct Check(Judge);

impl Check {
    fn of(validator: &Validator) -> Option<Self> {
        // `pii_leakage`'s params are for PromptKit's model judge, which is not run
        // (the loader said so of each); its offline pre-pass takes none.
        let params = if validator.check == PII_LEAKAGE {
            &Json::Null
        } else {
            &validator.params
        };
        prepare_check(&validator.check, params).ok().map(Check)
    }

    /// The detail when the guardrail fires on `text`; `None` when it passes. A check
    /// that cannot judge the text fires: it fails closed.
    fn fires(&self, validator: &Validator, text: &str) -> Option<String> {
        let input = EvalInput {
            content: text.to_string(),
            ..EvalInput::default()
        };
        match (self.0)(&input) {
            Ok(scored) => (judge(scored.score, Some(&validator.threshold)) != EvalStatus::Passed)
                .then_some(scored.detail),
            Err(err) => Some(format!("could not judge the text: {err}")),
        }
    }
}

/// The prompt's guardrails, each ready to judge.
#[derive(Default)]
pub struct Guardrails(Vec<(Validator, Check)>);

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

/// A user message an input guardrail kept from the model: the guardrail that
/// fired first (the others are not asked, as in PromptKit) and the turn's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Blocked {
    pub firing: Firing,
    pub answer: String,
}

impl Guardrails {
    /// The prompt's validators (their params were checked when the pack loaded).
    pub fn of(prompt: &Prompt) -> Self {
        Self(
            prompt
                .validators
                .iter()
                .filter_map(|v| Some((v.clone(), Check::of(v)?)))
                .collect(),
        )
    }

    /// No guardrail judges answers.
    pub fn is_empty(&self) -> bool {
        !self.0.iter().any(|(v, _)| v.direction.judges_output())
    }

    /// The first input guardrail that fires on the user's message, and the turn's
    /// answer in the model's place; `None` when none fires.
    pub fn check_input(&self, text: &str) -> Option<Blocked> {
        self.0
            .iter()
            .filter(|(v, _)| v.direction.judges_input())
            .find_map(|(validator, check)| {
                let detail = check.fires(validator, text)?;
                Some(Blocked {
                    firing: Firing {
                        validator: validator.kind.clone(),
                        detail,
                        fails_run: validator.fail_on_violation,
                    },
                    answer: blocked_text(validator),
                })
            })
    }

    /// Every output guardrail that fires on `text`, and the text that stands;
    /// `None` when none fires.
    pub fn check(&self, text: &str) -> Option<Guarded> {
        let mut firings = Vec::new();
        let mut stands = text.to_string();
        let mut enforced = "truncated";
        for (validator, check) in self.0.iter().filter(|(v, _)| v.direction.judges_output()) {
            let Some(detail) = check.fires(validator, text) else {
                continue;
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
                    stands = blocked_text(validator);
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

/// The guardrail's message, else PromptKit's default.
fn blocked_text(validator: &Validator) -> String {
    validator
        .message
        .clone()
        .unwrap_or_else(|| DEFAULT_BLOCKED_MESSAGE.to_string())
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
    use crate::pack::{Bound, Direction, Threshold};
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
            direction: Direction::Output,
            pos: Pos::START,
        }
    }

    fn guardrails(validators: Vec<Validator>) -> Guardrails {
        Guardrails(
            validators
                .into_iter()
                .map(|v| {
                    let check = Check::of(&v).expect("valid params");
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
        assert_eq!(
            g.check("abcdefgh").expect("fires").text,
            DEFAULT_BLOCKED_MESSAGE
        );
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
            (DEFAULT_BLOCKED_MESSAGE, "replaced")
        );
    }

    fn facing(mut v: Validator, direction: Direction) -> Validator {
        v.direction = direction;
        v
    }

    #[test]
    fn an_input_guardrail_judges_the_message_and_answers_with_its_message() {
        let routing = || {
            validator(
                "regex",
                "regex",
                json!({"pattern": "(?i)\\brouting number\\b", "expect_match": false}),
                Some("I can't help with bank routing numbers."),
            )
        };
        let g = guardrails(vec![facing(routing(), Direction::Input)]);
        let blocked = g
            .check_input("What's your bank's routing number?")
            .expect("fires");
        assert_eq!(blocked.answer, "I can't help with bank routing numbers.");
        assert_eq!(blocked.firing.validator, "regex");
        assert_eq!(g.check_input("What is the capital of France?"), None);
        assert!(g.is_empty(), "an input guardrail does not judge answers");
        assert_eq!(g.check("Your routing number is 123."), None);

        let g = guardrails(vec![routing()]);
        assert_eq!(g.check_input("What's your routing number?"), None);
        let g = guardrails(vec![facing(routing(), Direction::Both)]);
        assert!(g.check_input("my routing number").is_some());
        assert!(g.check("the routing number is 1").is_some());
    }

    #[test]
    fn the_first_input_guardrail_that_fires_decides_and_the_default_text_stands_in() {
        let g = guardrails(vec![
            facing(
                validator("pii_leakage", PII_LEAKAGE, json!({}), None),
                Direction::Input,
            ),
            facing(
                validator(
                    "banned_words",
                    "content_excludes",
                    json!({"words": ["ssn"]}),
                    Some("No."),
                ),
                Direction::Input,
            ),
        ]);
        let blocked = g.check_input("my ssn is 123-45-6789").expect("fires");
        assert_eq!(blocked.firing.validator, "pii_leakage");
        assert_eq!(blocked.answer, DEFAULT_BLOCKED_MESSAGE);
        assert!(
            blocked.firing.detail.contains("social security"),
            "{}",
            blocked.firing.detail
        );
    }

    #[test]
    fn pii_leakage_replaces_an_answer_that_holds_an_email() {
        let g = guardrails(vec![validator("pii_leakage", PII_LEAKAGE, json!({}), None)]);
        let guarded = g.check("Mail dana@example.com for it.").expect("fires");
        assert_eq!(
            (guarded.text.as_str(), guarded.enforced),
            (DEFAULT_BLOCKED_MESSAGE, "replaced")
        );
        assert_eq!(g.check("Mail the support desk."), None);
    }
}
