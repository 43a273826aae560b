//! The gate a comparison holds a change to, and the counts by status.

use std::collections::BTreeMap;

use super::{DiffItem, Gate, Metric, Status, Summary, Tolerances};

/// The gate: what regressed (unless a known failure), a new item that fails
/// (likewise), a known failure that passes now, and a change for the worse beyond
/// a tolerance that was given. Items that cannot be compared do not gate.
pub(super) fn gate(
    found: &[DiffItem],
    head_passes: &BTreeMap<&str, Option<bool>>,
    tol: &Tolerances,
) -> Gate {
    let mut reasons = Vec::new();
    for item in found {
        let known = item.known_failure.is_some();
        let head_pass = head_passes.get(item.id.as_str()).copied().flatten();
        let results = || {
            format!(
                "{} → {}",
                item.base.as_deref().unwrap_or("-"),
                item.head.as_deref().unwrap_or("-")
            )
        };
        match item.status {
            Status::Regressed if !known => {
                let mut reason = format!("`{}` regressed: {}", item.id, results());
                if let Some(counts) = &item.trials {
                    reason.push_str(&format!(
                        " (trials passed {} → {})",
                        counts.base, counts.head
                    ));
                }
                reasons.push(reason);
            }
            Status::New if !known && head_pass == Some(false) => {
                reasons.push(format!(
                    "`{}` is new and {}",
                    item.id,
                    item.head.as_deref().unwrap_or("failed")
                ));
            }
            _ => {}
        }
        if known && head_pass == Some(true) {
            reasons.push(format!(
                "known failure `{}` passes now: take it out of the known failures",
                item.id
            ));
        }
        if item.status == Status::Unverifiable {
            continue;
        }
        for change in &item.changes {
            if let Some(metric) = change.worse.filter(|m| tol.gates(*m)) {
                let name = match metric {
                    Metric::Score => "score",
                    Metric::Latency => "latency",
                    Metric::Cost => "cost",
                };
                reasons.push(format!(
                    "`{}`: {} (beyond the {name} tolerance)",
                    item.id, change.text
                ));
            }
        }
    }
    Gate {
        failed: !reasons.is_empty(),
        reasons,
        enforced: false,
    }
}

pub(super) fn summary(found: &[DiffItem], head_passes: &BTreeMap<&str, Option<bool>>) -> Summary {
    let mut summary = Summary::default();
    for item in found {
        let slot = match item.status {
            Status::Regressed => &mut summary.regressed,
            Status::Fixed => &mut summary.fixed,
            Status::New => &mut summary.new,
            Status::Removed => &mut summary.removed,
            Status::Flaky => &mut summary.flaky,
            Status::Unverifiable => &mut summary.unverifiable,
            Status::Changed => &mut summary.changed,
            Status::Unchanged => &mut summary.unchanged,
        };
        *slot += 1;
        let fails = head_passes.get(item.id.as_str()).copied().flatten() == Some(false);
        if item.known_failure.is_some() && fails {
            summary.known_failures += 1;
        }
    }
    summary
}
