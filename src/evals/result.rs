use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use crate::pack::Threshold;

crate::wire_enum! {
    /// What an eval amounted to.
    pub enum EvalStatus {
        /// A gate whose score is within its threshold.
        Passed = "passed",
        /// A gate whose score is outside its threshold.
        Failed = "failed",
        /// A measurement: scored, never failing the run.
        Measured = "measured",
        /// No valid score: the eval crashed, timed out or answered nonsense.
        Error = "error",
        /// Not run, with the reason in `explanation`.
        Skipped = "skipped",
    }
}

/// One eval's result, in the shape eval hooks and reports read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalResult {
    pub eval_id: String,
    #[serde(rename = "type")]
    pub eval_type: String,
    pub score: Option<f64>,
    /// Whether a gate passed; `None` for measurements and skipped evals.
    pub passed: Option<bool>,
    pub status: EvalStatus,
    pub duration_ms: u64,
    pub explanation: String,
    pub details: Json,
    pub error: Option<String>,
    /// The turn it judged; `None` for session-level evals.
    pub turn: Option<u32>,
    pub trigger: String,
}

impl EvalResult {
    pub fn skipped(eval_id: &str, eval_type: &str, trigger: &str, reason: String) -> Self {
        Self {
            eval_id: eval_id.into(),
            eval_type: eval_type.into(),
            score: None,
            passed: None,
            status: EvalStatus::Skipped,
            duration_ms: 0,
            explanation: reason,
            details: Json::Null,
            error: None,
            turn: None,
            trigger: trigger.into(),
        }
    }
}

/// How many results ended each way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct EvalCounts {
    pub passed: usize,
    pub failed: usize,
    pub measured: usize,
    pub error: usize,
    pub skipped: usize,
}

pub(crate) fn eval_counts(results: &[&EvalResult]) -> EvalCounts {
    let mut counts = EvalCounts::default();
    for result in results {
        counts.add(result.status);
    }
    counts
}

impl EvalCounts {
    /// Counts one more result that ended `status`.
    pub(crate) fn add(&mut self, status: EvalStatus) {
        *match status {
            EvalStatus::Passed => &mut self.passed,
            EvalStatus::Failed => &mut self.failed,
            EvalStatus::Measured => &mut self.measured,
            EvalStatus::Error => &mut self.error,
            EvalStatus::Skipped => &mut self.skipped,
        } += 1;
    }

    pub(crate) fn to_json(self) -> Json {
        serde_json::json!({
            "passed": self.passed,
            "failed": self.failed,
            "measured": self.measured,
            "error": self.error,
            "skipped": self.skipped,
        })
    }
}

impl std::fmt::Display for EvalCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} passed, {} failed, {} measured, {} error(s), {} skipped",
            self.passed, self.failed, self.measured, self.error, self.skipped
        )
    }
}

/// The status a score earns: a gate passes within its (inclusive or exclusive)
/// bounds; without a threshold the eval only measures.
pub(crate) fn judge(score: f64, threshold: Option<&Threshold>) -> EvalStatus {
    let Some(threshold) = threshold else {
        return EvalStatus::Measured;
    };
    let above = threshold.min.is_none_or(|b| {
        if b.inclusive {
            score >= b.value
        } else {
            score > b.value
        }
    });
    let below = threshold.max.is_none_or(|b| {
        if b.inclusive {
            score <= b.value
        } else {
            score < b.value
        }
    });
    if above && below {
        EvalStatus::Passed
    } else {
        EvalStatus::Failed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::Bound;

    fn bound(value: f64, inclusive: bool) -> Option<Bound> {
        Some(Bound { value, inclusive })
    }

    #[test]
    fn thresholds_are_inclusive_unless_said_otherwise() {
        let min = Threshold {
            min: bound(0.5, true),
            max: None,
        };
        assert_eq!(judge(0.5, Some(&min)), EvalStatus::Passed);
        assert_eq!(judge(0.49, Some(&min)), EvalStatus::Failed);
        let strict = Threshold {
            min: bound(0.5, false),
            max: bound(0.9, true),
        };
        assert_eq!(judge(0.5, Some(&strict)), EvalStatus::Failed);
        assert_eq!(judge(0.9, Some(&strict)), EvalStatus::Passed);
        assert_eq!(judge(0.91, Some(&strict)), EvalStatus::Failed);
    }

    #[test]
    fn without_a_threshold_an_eval_only_measures() {
        assert_eq!(judge(0.0, None), EvalStatus::Measured);
    }
}
