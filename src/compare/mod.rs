//! Two reports of one kind compared item by item (scenarios, the conversation, test
//! cases, check probes) and trial by trial: what regressed, was fixed, is new or
//! gone, flaky, not comparable, or changed below its verdict; and the gate a CI
//! job holds a change to.
//!
//! - [`items`]: what each kind of report holds, as items with results and trials.
//! - [`exact`]: the exact tests that tell a change in pass rate from chance.
//! - [`details`]: what changed below an item's verdict.
//! - [`gate`]: what fails the gate, and the counts.
//! - [`known`]: the known-failures file.
//! - [`history`]: one item across many reports.
//! - [`render`]: the comparison for people (text, Markdown).
//!
//! Status, for an item in both reports: `unverifiable` when the reports'
//! comparability keys (their top-level `fingerprint`) differ; else, when the trials
//! of either run disagree, the exact test decides: a pass rate significantly lower
//! (p < [`exact::ALPHA`]) is `regressed`, higher `fixed`, otherwise `flaky`; else
//! passed then failed is `regressed`, failed then passed `fixed`, and otherwise
//! `changed` or `unchanged` by what changed below.

mod details;
mod exact;
mod gate;
mod history;
mod items;
mod known;
mod render;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value as Json;

use crate::diff::{Paired, pair};

pub(crate) use history::{ReportAt, histories};
pub(crate) use items::{ReportKind, items};
pub(crate) use known::{KnownFailure, read_known};
pub(crate) use render::{human, markdown};

use gate::{gate, summary};
use items::Item;

/// The default latency tolerance: a time up to 50% longer is not reported.
pub(crate) const DEFAULT_LATENCY_TOLERANCE: f64 = 0.5;

/// How far a score, a time or a cost may move before it is reported. Each one
/// given also gates: moving further for the worse fails [`Gate`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Tolerances {
    /// Absolute, on scores (0 to 1); default 0.
    pub score: Option<f64>,
    /// A fraction of the base's time; default [`DEFAULT_LATENCY_TOLERANCE`].
    pub latency: Option<f64>,
    /// A fraction of the base's tokens or cost; default 0.
    pub cost: Option<f64>,
}

impl Tolerances {
    fn score(&self) -> f64 {
        self.score.unwrap_or(0.0)
    }

    fn latency(&self) -> f64 {
        self.latency.unwrap_or(DEFAULT_LATENCY_TOLERANCE)
    }

    fn cost(&self) -> f64 {
        self.cost.unwrap_or(0.0)
    }

    fn gates(&self, metric: Metric) -> bool {
        match metric {
            Metric::Score => self.score.is_some(),
            Metric::Latency => self.latency.is_some(),
            Metric::Cost => self.cost.is_some(),
        }
    }
}

/// What a change that went beyond its tolerance for the worse measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Metric {
    Score,
    Latency,
    Cost,
}

/// One report to compare: its file, as shown, and its JSON.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Side<'a> {
    pub file: &'a str,
    pub report: &'a Json,
}

/// Why two reports cannot be compared.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CompareError {
    #[error(
        "{file} is not a promptexec report (the JSON of run, test or check with --format json)"
    )]
    NotAReport { file: String },
    #[error(
        "{base} is a {base_kind} report and {head} a {head_kind} report; compare two reports of one kind"
    )]
    Mismatch {
        base: String,
        base_kind: &'static str,
        head: String,
        head_kind: &'static str,
    },
}

/// The whole comparison, as `diff --format json` prints it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Diff {
    /// Always `diff`.
    pub kind: &'static str,
    pub report: ReportKind,
    pub base: SideInfo,
    pub head: SideInfo,
    /// The parts of the comparability key that differ (empty when they agree or
    /// when either report has none).
    pub unverifiable_parts: Vec<String>,
    pub tolerances: TolerancesShown,
    pub summary: Summary,
    /// Every item: the base's in its order, then those only the head has.
    pub items: Vec<DiffItem>,
    /// Known failures that name no item of either report, and the like.
    pub notes: Vec<String>,
    pub gate: Gate,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct SideInfo {
    pub file: String,
    /// How many items the report holds.
    pub items: usize,
    /// Its comparability key, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<BTreeMap<String, String>>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct TolerancesShown {
    pub score: f64,
    pub latency: f64,
    pub cost: f64,
    pub latency_floor_ms: f64,
    /// The metrics whose tolerance was given, which gate.
    pub gating: Vec<Metric>,
    /// The exact tests' level.
    pub alpha: f64,
}

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub(crate) struct Summary {
    pub regressed: usize,
    pub fixed: usize,
    pub new: usize,
    pub removed: usize,
    pub flaky: usize,
    pub unverifiable: usize,
    pub changed: usize,
    pub unchanged: usize,
    /// Items that fail in the head and are listed as known failures.
    pub known_failures: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    Regressed,
    Fixed,
    New,
    Removed,
    Flaky,
    Unverifiable,
    Changed,
    Unchanged,
}

impl Status {
    pub(crate) fn word(self) -> &'static str {
        match self {
            Status::Regressed => "regressed",
            Status::Fixed => "fixed",
            Status::New => "new",
            Status::Removed => "removed",
            Status::Flaky => "flaky",
            Status::Unverifiable => "unverifiable",
            Status::Changed => "changed",
            Status::Unchanged => "unchanged",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct DiffItem {
    pub id: String,
    pub status: Status,
    /// The result in each report (`passed`, `failed`, …); `None` where absent.
    pub base: Option<String>,
    pub head: Option<String>,
    /// Trials passed of those played, in each report (`2/3`), when either played
    /// more than one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trials: Option<TrialCounts>,
    /// The exact test, when the trials of either run disagree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test: Option<exact::Tested>,
    /// Listed in the known-failures file (with its reason, if any).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub known_failure: Option<KnownNote>,
    pub changes: Vec<Change>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct TrialCounts {
    pub base: String,
    pub head: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct KnownNote {
    pub reason: Option<String>,
}

/// One thing that changed, in a sentence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Change {
    /// `result`, `trials`, `tool-args`, `tool-call-added`, `hook-decision`, `score`,
    /// `latency`, … (kebab-case).
    pub kind: &'static str,
    pub text: String,
    /// The trial (from 1), when the runs played several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trial: Option<usize>,
    /// Where inside the arguments or answer, as a JSON Pointer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    /// Beyond its tolerance for the worse: which metric.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worse: Option<Metric>,
}

impl Change {
    pub(crate) fn new(kind: &'static str, text: String) -> Change {
        Change {
            kind,
            text,
            trial: None,
            pointer: None,
            worse: None,
        }
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Gate {
    pub failed: bool,
    pub reasons: Vec<String>,
    /// Whether a failed gate fails the command (`--fail-on-regression`); the
    /// caller says.
    pub enforced: bool,
}

/// `base` and `head` compared. The gate's verdict is worked out whatever the
/// caller does with it.
pub(crate) fn compare(
    base: Side<'_>,
    head: Side<'_>,
    tolerances: &Tolerances,
    known: &[KnownFailure],
) -> Result<Diff, CompareError> {
    let not_a_report = |side: Side<'_>| CompareError::NotAReport {
        file: side.file.to_string(),
    };
    let kind = ReportKind::of(base.report).ok_or_else(|| not_a_report(base))?;
    let head_kind = ReportKind::of(head.report).ok_or_else(|| not_a_report(head))?;
    if kind != head_kind {
        return Err(CompareError::Mismatch {
            base: base.file.to_string(),
            base_kind: kind.words(),
            head: head.file.to_string(),
            head_kind: head_kind.words(),
        });
    }
    let base_items = items(kind, base.report);
    let head_items = items(kind, head.report);
    let (base_key, head_key) = (fingerprint(base.report), fingerprint(head.report));
    let unverifiable_parts = differing(base_key.as_ref(), head_key.as_ref());
    let mut found: Vec<DiffItem> = pair(&base_items, &head_items, |item| item.id.clone())
        .into_iter()
        .map(|paired| match paired {
            Paired::Both(b, h) => judge(kind, b, h, !unverifiable_parts.is_empty(), tolerances),
            Paired::OnlyLeft(b) => alone(Status::Removed, b),
            Paired::OnlyRight(h) => alone(Status::New, h),
        })
        .collect();
    let mut notes = Vec::new();
    for entry in known {
        match found.iter_mut().find(|item| item.id == entry.id) {
            Some(item) => {
                item.known_failure = Some(KnownNote {
                    reason: entry.reason.clone(),
                });
            }
            None => notes.push(format!(
                "known failure `{}` names no item of either report",
                entry.id
            )),
        }
    }
    let head_passes: BTreeMap<&str, Option<bool>> = head_items
        .iter()
        .map(|item| (item.id.as_str(), item.pass))
        .collect();
    let gate = gate(&found, &head_passes, tolerances);
    let summary = summary(&found, &head_passes);
    let gating = [Metric::Score, Metric::Latency, Metric::Cost]
        .into_iter()
        .filter(|m| tolerances.gates(*m))
        .collect();
    Ok(Diff {
        kind: "diff",
        report: kind,
        base: SideInfo {
            file: base.file.to_string(),
            items: base_items.len(),
            fingerprint: base_key,
        },
        head: SideInfo {
            file: head.file.to_string(),
            items: head_items.len(),
            fingerprint: head_key,
        },
        unverifiable_parts,
        tolerances: TolerancesShown {
            score: tolerances.score(),
            latency: tolerances.latency(),
            cost: tolerances.cost(),
            latency_floor_ms: details::LATENCY_FLOOR_MS,
            gating,
            alpha: exact::ALPHA,
        },
        summary,
        items: found,
        notes,
        gate,
    })
}

/// A report's comparability key: its top-level `fingerprint` object of strings.
fn fingerprint(report: &Json) -> Option<BTreeMap<String, String>> {
    let parts = report.get("fingerprint")?.as_object()?;
    let key: BTreeMap<String, String> = parts
        .iter()
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
        .collect();
    (!key.is_empty()).then_some(key)
}

/// The parts two keys disagree on (one has and the other has not counts); none
/// when either report has no key.
fn differing(
    base: Option<&BTreeMap<String, String>>,
    head: Option<&BTreeMap<String, String>>,
) -> Vec<String> {
    let (Some(base), Some(head)) = (base, head) else {
        return Vec::new();
    };
    let names: std::collections::BTreeSet<&String> = base.keys().chain(head.keys()).collect();
    names
        .into_iter()
        .filter(|name| base.get(*name) != head.get(*name))
        .cloned()
        .collect()
}

/// An item only one report has.
fn alone(status: Status, item: &Item<'_>) -> DiffItem {
    let (base, head) = match status {
        Status::Removed => (Some(item.result.clone()), None),
        _ => (None, Some(item.result.clone())),
    };
    DiffItem {
        id: item.id.clone(),
        status,
        base,
        head,
        trials: None,
        test: None,
        known_failure: None,
        changes: Vec::new(),
    }
}

/// An item both reports have: its status and what changed.
fn judge(
    kind: ReportKind,
    base: &Item<'_>,
    head: &Item<'_>,
    unverifiable: bool,
    tolerances: &Tolerances,
) -> DiffItem {
    let mut changes = Vec::new();
    if base.result != head.result {
        changes.push(Change::new(
            "result",
            format!("{} → {}", base.result, head.result),
        ));
    }
    let (bt, ht) = (base.trial_passes(), head.trial_passes());
    let several = bt.len() > 1 || ht.len() > 1;
    let disagree = |t: &[Option<bool>]| t.contains(&Some(true)) && t.contains(&Some(false));
    let test = (disagree(&bt) || disagree(&ht)).then(|| exact::test(&bt, &ht));
    let counts = several.then(|| TrialCounts {
        base: count(&bt),
        head: count(&ht),
    });
    if let Some(counts) = counts.as_ref().filter(|_| bt != ht) {
        let mut text = format!("trials passed: {} → {}", counts.base, counts.head);
        if let Some(tested) = &test {
            text.push_str(&format!(
                " ({}, p = {:.3})",
                tested.test.words(),
                tested.p_value
            ));
        }
        changes.push(Change::new("trials", text));
    }
    match kind {
        ReportKind::Suite | ReportKind::Conversation => {
            details::assertions(base.record, head.record, tolerances, &mut changes);
            let assertion_ids: Vec<&str> = [base.record, head.record]
                .iter()
                .filter_map(|r| r.get("assertions")?.as_array())
                .flatten()
                .filter_map(|a| a.get("id")?.as_str())
                .collect();
            for (n, (b, h)) in base.trials.iter().zip(&head.trials).enumerate() {
                let (b_pass, h_pass) = (bt[n], ht[n]);
                if several && b_pass != h_pass {
                    let word = |p: Option<bool>| match p {
                        Some(true) => "passed",
                        Some(false) => "failed",
                        None => "not judged",
                    };
                    let mut change = Change::new(
                        "trial-result",
                        format!("trial {}: {} → {}", n + 1, word(b_pass), word(h_pass)),
                    );
                    change.trial = Some(n + 1);
                    changes.push(change);
                }
                let at = several.then_some(n + 1);
                details::trial(at, b, h, tolerances, &assertion_ids, &mut changes);
            }
        }
        ReportKind::Test => details::case(base.record, head.record, tolerances, &mut changes),
        ReportKind::Check => details::probe(base.record, head.record, tolerances, &mut changes),
    }
    let status = if unverifiable {
        Status::Unverifiable
    } else if let Some(tested) = &test {
        let (b_rate, h_rate) = (rate(&bt), rate(&ht));
        match tested.p_value < exact::ALPHA {
            true if h_rate < b_rate => Status::Regressed,
            true if h_rate > b_rate => Status::Fixed,
            _ => Status::Flaky,
        }
    } else {
        match (base.pass, head.pass) {
            (Some(true), Some(false)) => Status::Regressed,
            (Some(false), Some(true)) => Status::Fixed,
            _ if changes.is_empty() => Status::Unchanged,
            _ => Status::Changed,
        }
    };
    DiffItem {
        id: head.id.clone(),
        status,
        base: Some(base.result.clone()),
        head: Some(head.result.clone()),
        trials: counts,
        test,
        known_failure: None,
        changes,
    }
}

/// `passed/judged`.
fn count(trials: &[Option<bool>]) -> String {
    let passed = trials.iter().filter(|t| **t == Some(true)).count();
    let judged = trials.iter().filter(|t| t.is_some()).count();
    format!("{passed}/{judged}")
}

fn rate(trials: &[Option<bool>]) -> f64 {
    let passed = trials.iter().filter(|t| **t == Some(true)).count();
    let judged = trials.iter().filter(|t| t.is_some()).count();
    if judged == 0 {
        0.0
    } else {
        passed as f64 / judged as f64
    }
}

#[cfg(test)]
mod tests;
