//! One item's results across many reports (a scenario over a week of nightly runs):
//! its result in each, its pass rate, and whether it is flaky. Items are what
//! [`super::items`] reads from each kind of report, so a history agrees with `diff`.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value as Json;

use super::items::{ReportKind, items};

/// One report of a history, in the order the history should follow (oldest first).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReportAt<'a> {
    /// How the report is named to the reader (its path).
    pub file: &'a str,
    /// When it was written, as the reader should see it.
    pub when: &'a str,
    pub report: &'a Json,
}

/// An item's result in one report.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Point {
    pub report: String,
    pub modified: String,
    pub result: String,
    /// `None` when the item was not judged (interrupted, skipped, not run).
    pub pass: Option<bool>,
    pub trials_passed: usize,
    /// The trials judged (passed or failed).
    pub trials: usize,
    /// Its trials in this report disagree.
    pub flaky: bool,
}

/// An item across every report that holds it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ItemHistory {
    pub id: String,
    pub kind: &'static str,
    /// Passed runs of those judged: each trial when the item has trials, else the
    /// item itself; `None` when nothing was judged.
    pub pass_rate: Option<f64>,
    /// Its trials disagreed in some report, or it both passed and failed.
    pub flaky: bool,
    pub points: Vec<Point>,
}

/// The history of every item of `reports` (files that are no report are passed
/// over), by kind and then id.
pub(crate) fn histories(reports: &[ReportAt<'_>]) -> Vec<ItemHistory> {
    let mut found: BTreeMap<(&'static str, String), Vec<Point>> = BTreeMap::new();
    for at in reports {
        let Some(kind) = ReportKind::of(at.report) else {
            continue;
        };
        for item in items(kind, at.report) {
            let trials = item.trial_passes();
            let passed = trials.iter().filter(|t| **t == Some(true)).count();
            let failed = trials.iter().filter(|t| **t == Some(false)).count();
            found
                .entry((kind.words(), item.id))
                .or_default()
                .push(Point {
                    report: at.file.to_string(),
                    modified: at.when.to_string(),
                    result: item.result,
                    pass: item.pass,
                    trials_passed: passed,
                    trials: passed + failed,
                    flaky: passed > 0 && failed > 0,
                });
        }
    }
    found
        .into_iter()
        .map(|((kind, id), points)| ItemHistory {
            id,
            kind,
            pass_rate: pass_rate(&points),
            flaky: flaky(&points),
            points,
        })
        .collect()
}

fn pass_rate(points: &[Point]) -> Option<f64> {
    let (mut passed, mut judged) = (0, 0);
    for point in points {
        if point.trials > 0 {
            passed += point.trials_passed;
            judged += point.trials;
        } else if let Some(pass) = point.pass {
            passed += usize::from(pass);
            judged += 1;
        }
    }
    (judged > 0).then(|| passed as f64 / judged as f64)
}

fn flaky(points: &[Point]) -> bool {
    let both = [true, false]
        .iter()
        .all(|want| points.iter().any(|p| p.pass == Some(*want)));
    both || points.iter().any(|p| p.flaky)
}
