//! Exact tests on trial outcomes: whether a change in how often a scenario passes
//! is more than chance.
//!
//! - Paired (both runs played the same number of trials; trial k of one is set
//!   beside trial k of the other): the exact McNemar test, a two-sided binomial
//!   sign test on the discordant pairs (passed then failed, failed then passed),
//!   each direction having probability 1/2 when nothing changed.
//! - Unpaired (different numbers of trials): Fisher's exact test, two-sided, on
//!   the 2×2 table of passes and failures of each run.

use serde::Serialize;

/// The level below which a change in pass rate is taken to be real.
pub(crate) const ALPHA: f64 = 0.05;

/// Which test was used, and its p-value.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct Tested {
    pub test: TestName,
    pub p_value: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TestName {
    /// The exact McNemar test on paired trials.
    Mcnemar,
    /// Fisher's exact test on pass counts.
    Fisher,
}

impl TestName {
    pub(crate) fn words(self) -> &'static str {
        match self {
            TestName::Mcnemar => "exact McNemar test",
            TestName::Fisher => "Fisher's exact test",
        }
    }
}

/// Trial outcomes of one item in two runs (`true` passed), judged trials only.
pub(crate) fn test(base: &[Option<bool>], head: &[Option<bool>]) -> Tested {
    if base.len() == head.len() {
        let pairs = base
            .iter()
            .zip(head)
            .filter_map(|(b, h)| Some(((*b)?, (*h)?)));
        let (mut worse, mut better) = (0, 0);
        for pair in pairs {
            match pair {
                (true, false) => worse += 1,
                (false, true) => better += 1,
                _ => {}
            }
        }
        return Tested {
            test: TestName::Mcnemar,
            p_value: mcnemar(worse, better),
        };
    }
    let count = |side: &[Option<bool>]| {
        let passed = side.iter().filter(|t| **t == Some(true)).count() as u64;
        let failed = side.iter().filter(|t| **t == Some(false)).count() as u64;
        (passed, failed)
    };
    let (a, b) = count(base);
    let (c, d) = count(head);
    Tested {
        test: TestName::Fisher,
        p_value: fisher(a, b, c, d),
    }
}

/// The two-sided exact McNemar p-value of `worse` pairs that went from pass to fail
/// and `better` ones that went from fail to pass.
pub(crate) fn mcnemar(worse: u64, better: u64) -> f64 {
    let n = worse + better;
    if n == 0 {
        return 1.0;
    }
    let table = LnFactorials::up_to(n);
    let tail: f64 = (0..=worse.min(better))
        .map(|k| (table.ln_choose(n, k) - n as f64 * std::f64::consts::LN_2).exp())
        .sum();
    (2.0 * tail).min(1.0)
}

/// The two-sided Fisher exact p-value of the table `[[a, b], [c, d]]` (rows: the
/// runs; columns: passed, failed): the probability, with the margins fixed, of a
/// table no likelier than this one.
pub(crate) fn fisher(a: u64, b: u64, c: u64, d: u64) -> f64 {
    let (row1, row2, col1) = (a + b, c + d, a + c);
    let n = row1 + row2;
    if row1 == 0 || row2 == 0 || col1 == 0 || col1 == n {
        return 1.0;
    }
    let table = LnFactorials::up_to(n);
    let ln_p = |x: u64| {
        table.ln_choose(row1, x) + table.ln_choose(row2, col1 - x) - table.ln_choose(n, col1)
    };
    let observed = ln_p(a);
    // A relative margin, so that tables exactly as likely are not lost to rounding.
    let limit = observed + 1e-7;
    let p: f64 = (col1.saturating_sub(row2)..=row1.min(col1))
        .map(ln_p)
        .filter(|&lp| lp <= limit)
        .map(f64::exp)
        .sum();
    p.min(1.0)
}

/// `ln(k!)` for every `k` up to a bound.
struct LnFactorials(Vec<f64>);

impl LnFactorials {
    fn up_to(n: u64) -> Self {
        let mut table = Vec::with_capacity(n as usize + 1);
        let mut sum = 0.0;
        table.push(0.0);
        for k in 1..=n {
            sum += (k as f64).ln();
            table.push(sum);
        }
        LnFactorials(table)
    }

    fn ln_choose(&self, n: u64, k: u64) -> f64 {
        self.0[n as usize] - self.0[k as usize] - self.0[(n - k) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn mcnemar_p_values_are_exact() {
        // 2 * P(X <= min) for X ~ Binomial(n, 1/2).
        assert!(close(mcnemar(10, 0), 0.001953125));
        assert!(close(mcnemar(6, 0), 0.03125));
        assert!(close(mcnemar(5, 0), 0.0625));
        assert!(close(mcnemar(3, 1), 0.625));
        assert!(close(mcnemar(7, 2), 0.1796875));
        assert!(close(mcnemar(2, 7), 0.1796875));
        assert!(close(mcnemar(0, 0), 1.0));
        assert!(close(mcnemar(1, 1), 1.0));
    }

    #[test]
    fn fisher_p_values_are_exact() {
        // The tea-tasting table, and others checked against exact fractions.
        assert!(close(fisher(3, 1, 1, 3), 0.4857142857142857));
        assert!(close(fisher(10, 0, 4, 6), 0.010835913312693499));
        assert!(close(fisher(5, 0, 0, 5), 0.007936507936507936));
        assert!(close(fisher(8, 2, 1, 5), 0.03496503496503496));
        assert!(close(fisher(1, 9, 11, 3), 0.002759456185220083));
        assert!(close(fisher(3, 0, 0, 3), 0.1));
        assert!(close(fisher(3, 0, 2, 1), 1.0));
        assert!(close(fisher(0, 0, 2, 1), 1.0));
        assert!(close(fisher(4, 0, 3, 0), 1.0));
    }

    #[test]
    fn paired_trials_use_mcnemar_and_unpaired_use_fisher() {
        let t = Some(true);
        let f = Some(false);
        let paired = test(&[t; 6], &[f; 6]);
        assert_eq!(paired.test, TestName::Mcnemar);
        assert!(close(paired.p_value, 0.03125));
        assert!(paired.p_value < ALPHA);
        // Trials not judged on either side are left out of the pairs.
        let with_gaps = test(&[t, t, None, t], &[f, None, f, t]);
        assert!(close(with_gaps.p_value, mcnemar(1, 0)));
        let unpaired = test(&[t; 5], &[f, f, f, f, f, None]);
        assert_eq!(unpaired.test, TestName::Fisher);
        assert!(close(unpaired.p_value, fisher(5, 0, 0, 5)));
        // Three trials each way can never be told from chance at 0.05.
        assert!(test(&[t; 3], &[f; 3]).p_value > ALPHA);
    }
}
