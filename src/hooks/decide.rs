//! How hook answers fold into one decision: pure, so it is tested without processes.

use serde_json::{Map, Value as Json};

use crate::config::HookMode;
use crate::exec::Outcome;

use super::read_verdict;

/// What one hook contributed.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Allow,
    Deny {
        hook: String,
        reason: String,
        enforced: bool,
        metadata: Map<String, Json>,
    },
    /// The hook could not give a valid answer; a filter hook's failure denies.
    Failed {
        hook: String,
        reason: String,
    },
    /// An observer: whatever happened, it has no say.
    Observed,
}

/// The decision for one phase.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    Allow,
    Deny {
        hook: String,
        reason: String,
        /// The hook applied its own enforcement; the run continues with the
        /// replacement content (from `metadata.replacement` when given).
        enforced: bool,
        replacement: Option<String>,
        metadata: Map<String, Json>,
    },
}

impl Decision {
    pub fn is_allow(&self) -> bool {
        matches!(self, Decision::Allow)
    }
}

/// Reads one hook's outcome as a step. Filter hooks fail closed: a crash, a timeout,
/// invalid or empty output, or an answer without a boolean `allow` all deny.
pub fn step_for(hook: &str, mode: HookMode, outcome: &Outcome) -> Step {
    match mode {
        HookMode::Observe => Step::Observed,
        HookMode::Filter => match outcome {
            Outcome::Answered(value) => match read_verdict(value) {
                Ok(v) if v.allow => Step::Allow,
                Ok(v) => Step::Deny {
                    hook: hook.to_string(),
                    reason: v.reason.unwrap_or_else(|| "denied without a reason".into()),
                    enforced: v.enforced,
                    metadata: v.metadata,
                },
                Err(why) => Step::Failed {
                    hook: hook.to_string(),
                    reason: format!("invalid answer: {why}"),
                },
            },
            other => Step::Failed {
                hook: hook.to_string(),
                reason: other.describe(),
            },
        },
    }
}

/// Folds steps in order; the first deny or failure decides.
pub fn fold<'a>(steps: impl IntoIterator<Item = &'a Step>) -> Decision {
    for step in steps {
        match step {
            Step::Allow | Step::Observed => {}
            Step::Deny {
                hook,
                reason,
                enforced,
                metadata,
            } => {
                let replacement = metadata
                    .get("replacement")
                    .and_then(Json::as_str)
                    .map(str::to_string);
                return Decision::Deny {
                    hook: hook.clone(),
                    reason: reason.clone(),
                    enforced: *enforced,
                    replacement: replacement.filter(|_| *enforced),
                    metadata: metadata.clone(),
                };
            }
            Step::Failed { hook, reason } => {
                return Decision::Deny {
                    hook: hook.clone(),
                    reason: format!("hook `{hook}` failed, so it denies: {reason}"),
                    enforced: false,
                    replacement: None,
                    metadata: Map::new(),
                };
            }
        }
    }
    Decision::Allow
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;
    use std::time::Duration;

    fn deny(hook: &str) -> Step {
        Step::Deny {
            hook: hook.into(),
            reason: format!("{hook} says no"),
            enforced: false,
            metadata: Map::new(),
        }
    }

    #[test]
    fn all_allow_is_allow() {
        assert_eq!(
            fold(&[Step::Allow, Step::Observed, Step::Allow]),
            Decision::Allow
        );
        assert_eq!(fold(&[]), Decision::Allow);
    }

    #[test]
    fn the_first_deny_decides() {
        let Decision::Deny { hook, .. } = fold(&[Step::Allow, deny("b"), deny("c")]) else {
            panic!("denied")
        };
        assert_eq!(hook, "b");
    }

    #[test]
    fn a_failure_denies_and_names_the_hook() {
        let steps = [Step::Failed {
            hook: "guard".into(),
            reason: "timed out after 10 ms".into(),
        }];
        let Decision::Deny { hook, reason, .. } = fold(&steps) else {
            panic!("denied")
        };
        assert_eq!(hook, "guard");
        assert_eq!(
            reason,
            "hook `guard` failed, so it denies: timed out after 10 ms"
        );
    }

    #[test]
    fn enforced_denials_carry_the_replacement() {
        let mut metadata = Map::new();
        metadata.insert("replacement".into(), json!("[redacted]"));
        let steps = [Step::Deny {
            hook: "pii".into(),
            reason: "PII redacted".into(),
            enforced: true,
            metadata: metadata.clone(),
        }];
        assert_eq!(
            fold(&steps),
            Decision::Deny {
                hook: "pii".into(),
                reason: "PII redacted".into(),
                enforced: true,
                replacement: Some("[redacted]".into()),
                metadata,
            }
        );
    }

    #[test]
    fn a_replacement_without_enforcement_is_ignored() {
        let mut metadata = Map::new();
        metadata.insert("replacement".into(), json!("x"));
        let steps = [Step::Deny {
            hook: "h".into(),
            reason: "no".into(),
            enforced: false,
            metadata,
        }];
        assert!(matches!(
            fold(&steps),
            Decision::Deny {
                replacement: None,
                ..
            }
        ));
    }

    #[test]
    fn filter_outcomes_map_to_steps() {
        let answered = |v| Outcome::Answered(v);
        assert_eq!(
            step_for("h", HookMode::Filter, &answered(json!({"allow": true}))),
            Step::Allow
        );
        assert!(matches!(
            step_for("h", HookMode::Filter, &answered(json!({"allow": false}))),
            Step::Deny { .. }
        ));
        for failing in [
            answered(json!({})),
            answered(json!({"allow": "true"})),
            Outcome::ExitedNonZero { code: 1 },
            Outcome::TimedOut {
                after: Duration::from_millis(5),
                nothing_read: false,
            },
            Outcome::InvalidOutput {
                offset: 0,
                reason: "empty output".into(),
            },
            Outcome::CouldNotStart {
                reason: "not found".into(),
            },
        ] {
            assert!(
                matches!(
                    step_for("h", HookMode::Filter, &failing),
                    Step::Failed { .. }
                ),
                "{failing:?}"
            );
            assert_eq!(step_for("h", HookMode::Observe, &failing), Step::Observed);
        }
    }

    fn any_step() -> impl Strategy<Value = Step> {
        prop_oneof![
            Just(Step::Allow),
            Just(Step::Observed),
            "[a-c]".prop_map(|h| deny(&h)),
            "[a-c]".prop_map(|h| Step::Failed {
                hook: h,
                reason: "crashed".into()
            }),
        ]
    }

    proptest! {
        #[test]
        fn folding_is_deterministic(steps in prop::collection::vec(any_step(), 0..12)) {
            prop_assert_eq!(fold(&steps), fold(&steps.clone()));
        }

        #[test]
        fn any_deny_or_failure_denies(steps in prop::collection::vec(any_step(), 0..12)) {
            let blocks = steps.iter().any(|s| matches!(s, Step::Deny { .. } | Step::Failed { .. }));
            prop_assert_eq!(!fold(&steps).is_allow(), blocks);
        }
    }
}
