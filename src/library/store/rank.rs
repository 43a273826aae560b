//! Ranking prompt versions by the evidence the library holds about them: their
//! ratings, the checks (assertions and evals) of the runs and chains that used them,
//! and whether their recorded uses succeeded.
//!
//! Each kind of evidence is a proportion out of a number of samples: the mean rating
//! over 5 out of the number of ratings, the checks passed out of those checked, the
//! uses that succeeded out of those whose outcome is known. A proportion is scored by
//! the lower bound of its Wilson interval at 95 % ([`wilson_lower_bound`]), so one
//! lucky sample scores low and the score grows as evidence builds up. The rank score
//! is the weighted mean of the bounds of the kinds a version has evidence of
//! ([`WEIGHTS`]): a kind without evidence is left out, not counted as zero, and a
//! version without any evidence has no score.

use serde::Serialize;

/// The z-score of a two-sided 95 % interval.
const Z: f64 = 1.96;

/// How much each kind of evidence weighs: ratings, checks, success.
pub(super) const WEIGHTS: [f64; 3] = [0.4, 0.4, 0.2];

/// One kind of evidence: a proportion from 0 to 1 out of `samples`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(super) struct Evidence {
    pub(super) rate: f64,
    pub(super) samples: u64,
}

/// The lower bound of the Wilson score interval of a proportion `p` observed over `n`
/// samples (0 without samples).
pub(super) fn wilson_lower_bound(p: f64, n: u64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let n = n as f64;
    let z2 = Z * Z;
    let centre = p + z2 / (2.0 * n);
    let spread = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - spread) / (1.0 + z2 / n)).clamp(0.0, 1.0)
}

/// The rank score of a version from its evidence (ratings, checks, success), from 0
/// to 1; `None` without any evidence.
pub(super) fn rank_score(evidence: [Option<Evidence>; 3]) -> Option<f64> {
    let (sum, weight) = evidence
        .iter()
        .zip(WEIGHTS)
        .filter_map(|(e, w)| e.filter(|e| e.samples > 0).map(|e| (e, w)))
        .fold((0.0, 0.0), |(sum, weight), (e, w)| {
            (sum + w * wilson_lower_bound(e.rate, e.samples), weight + w)
        });
    (weight > 0.0).then(|| sum / weight)
}

/// Orders scores best first, no score at all last; equal scores are `Equal`, for the
/// caller to break by its own key.
pub(super) fn better(a: Option<f64>, b: Option<f64>) -> std::cmp::Ordering {
    match (a, b) {
        (Some(a), Some(b)) => b.total_cmp(&a),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(rate: f64, samples: u64) -> Option<Evidence> {
        Some(Evidence { rate, samples })
    }

    #[test]
    fn one_lucky_sample_does_not_beat_steady_evidence() {
        let lucky = wilson_lower_bound(1.0, 1);
        let steady = wilson_lower_bound(0.8, 10);
        assert!((lucky - 0.2065).abs() < 1e-3, "{lucky}");
        assert!((steady - 0.4902).abs() < 1e-3, "{steady}");
        assert!(wilson_lower_bound(1.0, 100) > 0.96);
        assert_eq!(wilson_lower_bound(0.0, 5), 0.0);
        assert_eq!(wilson_lower_bound(1.0, 0), 0.0);
    }

    #[test]
    fn kinds_without_evidence_are_left_out_of_the_weighted_mean() {
        assert_eq!(rank_score([None, None, None]), None);
        assert_eq!(rank_score([e(1.0, 0), None, None]), None);
        let only_checks = rank_score([None, e(0.9, 50), None]).expect("a score");
        assert!((only_checks - wilson_lower_bound(0.9, 50)).abs() < 1e-12);
        let all = rank_score([e(0.8, 10), e(0.9, 50), e(1.0, 4)]).expect("a score");
        let expected = (0.4 * wilson_lower_bound(0.8, 10)
            + 0.4 * wilson_lower_bound(0.9, 50)
            + 0.2 * wilson_lower_bound(1.0, 4))
            / 1.0;
        assert!((all - expected).abs() < 1e-12);
        let mut scores = [Some(0.2), None, Some(0.7)];
        scores.sort_by(|a, b| better(*a, *b));
        assert_eq!(scores, [Some(0.7), Some(0.2), None]);
    }
}
