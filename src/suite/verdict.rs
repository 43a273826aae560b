//! Folding each assertion's results over a scenario's trials into one verdict:
//! it passes when its share of passing trials reaches its `pass_threshold`.

use crate::evals::{EvalResult, EvalStatus};
use crate::report::{Check, Outcome, Verdict};

/// Each check's verdict, given each trial's eval results. A check with no result
/// in a trial was never reached there (its turn ended early, or the conversation
/// stopped) and counts as failed: an assertion that did not run never passes. A
/// check promptexec does not play is skipped, with its reason.
pub(crate) fn fold(checks: &[Check], trials: &[Vec<EvalResult>]) -> Vec<Verdict> {
    checks
        .iter()
        .map(|check| {
            if let Some(reason) = &check.not_played {
                return Verdict {
                    check: check.clone(),
                    outcome: Outcome::Skipped,
                    passes: 0,
                    trials: trials.len() as u32,
                    detail: Some(reason.clone()),
                    skipped: true,
                };
            }
            let mut passes = 0;
            let mut judged = 0;
            let mut skips = 0;
            let mut error = false;
            let mut detail = None;
            for results in trials {
                let result = results.iter().find(|r| r.eval_id == check.id);
                judged += u32::from(result.is_some());
                match result {
                    Some(r) if r.status == EvalStatus::Passed => passes += 1,
                    Some(r) if r.status == EvalStatus::Skipped => {
                        passes += 1;
                        skips += 1;
                        detail.get_or_insert_with(|| r.explanation.clone());
                    }
                    Some(r) => {
                        error |= r.status == EvalStatus::Error;
                        let why = r.error.clone().unwrap_or_else(|| r.explanation.clone());
                        detail = Some(why);
                    }
                    None => {
                        let place = match check.turn {
                            Some(turn) => format!("turn {turn} did not end with an answer"),
                            None => "the conversation did not run to its end".to_string(),
                        };
                        detail.get_or_insert(format!("not judged: {place}"));
                    }
                }
            }
            let runs = trials.len() as u32;
            let share = if runs == 0 {
                0.0
            } else {
                f64::from(passes) / f64::from(runs)
            };
            let outcome = if error {
                Outcome::Error
            } else if judged > 0 && share >= check.pass_threshold {
                Outcome::Passed
            } else {
                Outcome::Failed
            };
            let skipped = runs > 0 && skips == runs;
            Verdict {
                check: check.clone(),
                outcome,
                passes,
                trials: runs,
                detail: match outcome {
                    Outcome::Passed if !skipped => None,
                    _ => detail,
                },
                skipped,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Pos;

    fn check(id: &str, turn: Option<u32>, pass_threshold: f64) -> Check {
        Check {
            id: id.into(),
            kind: "contains".into(),
            message: None,
            turn,
            pass_threshold,
            place: String::new(),
            not_played: None,
            pos: Pos::START,
        }
    }

    fn result(id: &str, status: EvalStatus, why: &str) -> EvalResult {
        let mut r = EvalResult::skipped(id, "contains", "every_turn", why.into());
        r.status = status;
        r
    }

    #[test]
    fn a_threshold_is_a_share_of_trials() {
        let trials = vec![
            vec![result("a", EvalStatus::Passed, "")],
            vec![result("a", EvalStatus::Failed, "missing `x`")],
            vec![result("a", EvalStatus::Passed, "")],
        ];
        let strict = fold(&[check("a", Some(1), 1.0)], &trials);
        assert_eq!(strict[0].outcome, Outcome::Failed);
        assert_eq!((strict[0].passes, strict[0].trials), (2, 3));
        assert_eq!(strict[0].detail.as_deref(), Some("missing `x`"));
        let lenient = fold(&[check("a", Some(1), 0.6)], &trials);
        assert_eq!(lenient[0].outcome, Outcome::Passed);
        assert_eq!(lenient[0].detail, None);
    }

    #[test]
    fn an_assertion_never_reached_fails_and_says_why() {
        let verdicts = fold(
            &[check("t", Some(2), 1.0), check("c", None, 0.0)],
            &[vec![]],
        );
        assert_eq!(verdicts[0].outcome, Outcome::Failed);
        assert_eq!(
            verdicts[0].detail.as_deref(),
            Some("not judged: turn 2 did not end with an answer")
        );
        // Even a threshold of 0 needs the assertion to have been judged once.
        assert_eq!(verdicts[1].outcome, Outcome::Failed);
        assert_eq!(
            fold(&[check("c", None, 0.0)], &[])[0].outcome,
            Outcome::Failed
        );
        let judged_once = fold(
            &[check("c", None, 0.0)],
            &[vec![result("c", EvalStatus::Failed, "no")], vec![]],
        );
        assert_eq!(judged_once[0].outcome, Outcome::Passed);
    }

    #[test]
    fn skips_pass_and_errors_win() {
        let skipped = fold(
            &[check("a", None, 1.0)],
            &[vec![result(
                "a",
                EvalStatus::Skipped,
                "skipped: no tool was called",
            )]],
        );
        assert_eq!(skipped[0].outcome, Outcome::Passed);
        assert!(skipped[0].skipped);
        let errored = fold(
            &[check("a", None, 0.5)],
            &[
                vec![result("a", EvalStatus::Passed, "")],
                vec![result("a", EvalStatus::Error, "eval `x` crashed")],
            ],
        );
        assert_eq!(errored[0].outcome, Outcome::Error);
    }

    #[test]
    fn a_check_not_played_is_skipped_with_its_reason_whatever_the_trials_hold() {
        let mut unplayed = check("u", None, 1.0);
        unplayed.not_played = Some("not played: an `assistant` turn".into());
        let verdicts = fold(
            &[unplayed],
            &[vec![result("u", EvalStatus::Passed, "")], vec![]],
        );
        assert_eq!(verdicts[0].outcome, Outcome::Skipped);
        assert!(verdicts[0].skipped);
        assert_eq!((verdicts[0].passes, verdicts[0].trials), (0, 2));
        assert_eq!(
            verdicts[0].detail.as_deref(),
            Some("not played: an `assistant` turn")
        );
    }
}
