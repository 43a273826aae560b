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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn suite(trials: &[(&str, &str, &[u64])]) -> Json {
        let scenarios: Vec<Json> = trials
            .iter()
            .map(|(id, result, codes)| {
                let trials: Vec<Json> = codes.iter().map(|c| json!({"exit_code": c})).collect();
                json!({"id": id, "result": result, "trials": trials})
            })
            .collect();
        json!({"scenarios": scenarios})
    }

    #[test]
    fn each_item_is_traced_oldest_first_with_its_pass_rate_and_flaky_mark() {
        let monday = suite(&[("steady", "passed", &[0, 0]), ("wobbly", "passed", &[0])]);
        let tuesday = suite(&[("steady", "passed", &[0]), ("wobbly", "failed", &[1])]);
        let wednesday = suite(&[("steady", "partial", &[0, 1]), ("new", "failed", &[1])]);
        let at = |file, report| ReportAt {
            file,
            when: "2026-11-29T00:00:00Z",
            report,
        };
        let not_a_report = json!({"hello": 1});
        let found = histories(&[
            at("mon.json", &monday),
            at("notes.json", &not_a_report),
            at("tue.json", &tuesday),
            at("wed.json", &wednesday),
        ]);
        let ids: Vec<&str> = found.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(ids, ["new", "steady", "wobbly"]);
        let steady = &found[1];
        let files: Vec<&str> = steady.points.iter().map(|p| p.report.as_str()).collect();
        assert_eq!(files, ["mon.json", "tue.json", "wed.json"]);
        assert_eq!(steady.pass_rate, Some(4.0 / 5.0), "trials, not reports");
        assert!(steady.points[2].flaky, "its trials disagreed on wednesday");
        assert!(steady.flaky);
        let wobbly = &found[2];
        assert_eq!(wobbly.pass_rate, Some(0.5));
        assert!(wobbly.flaky, "passed, then failed");
        assert!(!wobbly.points.iter().any(|p| p.flaky));
        assert!(!found[0].flaky, "one failure is not flaky");
        assert_eq!(found[0].pass_rate, Some(0.0));
    }
}
