//! A comparison for people: text for the terminal, Markdown for a CI step summary
//! or a pull-request comment. Unchanged items are counted, not listed.

use crate::report::style::{self, Tone};

use super::{Diff, DiffItem, Status, Summary};

/// The comparison as lines of text: each item that did not stay the same with what
/// changed under it, a closing count, and the gate's reasons when it failed.
pub(crate) fn human(diff: &Diff) -> String {
    let mut out = String::new();
    let width = diff
        .items
        .iter()
        .filter(|i| i.status != Status::Unchanged)
        .map(|i| i.status.word().len())
        .max()
        .unwrap_or(0);
    for item in diff.items.iter().filter(|i| i.status != Status::Unchanged) {
        let word = item.status.word();
        let padded = format!("{word:width$}");
        out.push_str(&format!(
            "{}  {}{}\n",
            paint_status(item.status, &padded),
            style::peer(&item.id, false),
            results(item)
        ));
        // The result's change is on the item's line already.
        for change in item
            .changes
            .iter()
            .filter(|c| c.kind != "result" && c.kind != "trials")
        {
            out.push_str(&format!("    {}\n", style::peer(&change.text, false)));
        }
        if let Some(known) = &item.known_failure {
            let reason = known
                .reason
                .as_deref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default();
            out.push_str(&format!(
                "    a known failure{}\n",
                style::peer(&reason, false)
            ));
        }
    }
    out.push_str(&closing(diff));
    out.push('\n');
    if !diff.unverifiable_parts.is_empty() {
        out.push_str(&format!(
            "{}: the fingerprints differ in {}; bless a new baseline to compare again\n",
            style::paint("not comparable", Tone::Warn),
            diff.unverifiable_parts.join(", ")
        ));
    }
    for note in &diff.notes {
        out.push_str(&format!("note: {}\n", style::peer(note, false)));
    }
    if diff.gate.failed {
        let said = match diff.gate.enforced {
            true => style::paint("gate failed:", Tone::Bad),
            false => style::paint("the gate fails (--fail-on-regression):", Tone::Warn),
        };
        out.push_str(&format!("{said}\n"));
        for reason in &diff.gate.reasons {
            out.push_str(&format!("  {}\n", style::peer(reason, false)));
        }
    }
    out
}

/// `  passed → failed`, `  failed` for a new item, `  (was passed)` for a removed
/// one; then the trials passed and the exact test, when the runs played several.
fn results(item: &DiffItem) -> String {
    let mut text = match (&item.base, &item.head) {
        (Some(b), Some(h)) if b != h => format!("  {} → {}", style::status(b), style::status(h)),
        (None, Some(h)) => format!("  {}", style::status(h)),
        (Some(b), None) => format!("  (was {})", style::status(b)),
        _ => String::new(),
    };
    if let Some(counts) = &item.trials {
        text.push_str(&format!(
            "  trials passed {} → {}",
            counts.base, counts.head
        ));
        if let Some(tested) = &item.test {
            text.push_str(&format!(
                " ({}, p = {:.3})",
                tested.test.words(),
                tested.p_value
            ));
        }
    }
    text
}

fn paint_status(status: Status, text: &str) -> String {
    let tone = match status {
        Status::Regressed => Tone::Bad,
        Status::Fixed => Tone::Good,
        Status::Flaky | Status::Unverifiable | Status::Changed => Tone::Warn,
        Status::New | Status::Removed => Tone::Strong,
        Status::Unchanged => Tone::Faint,
    };
    style::paint(text, tone)
}

/// `no change: 5 scenarios compared (a.json → b.json)` or
/// `5 scenarios compared (a.json → b.json): 1 regressed, 4 unchanged`.
fn closing(diff: &Diff) -> String {
    let total = diff.items.len();
    let noun = diff.report.noun();
    let what = format!(
        "{total} {noun}{} compared ({} → {})",
        if total == 1 { "" } else { "s" },
        diff.base.file,
        diff.head.file
    );
    if diff.summary.unchanged == total {
        return format!("no change: {what}");
    }
    format!("{what}: {}", counts(&diff.summary).join(", "))
}

/// The non-zero counts, in a fixed order.
fn counts(summary: &Summary) -> Vec<String> {
    let mut parts: Vec<String> = [
        (summary.regressed, "regressed"),
        (summary.fixed, "fixed"),
        (summary.new, "new"),
        (summary.removed, "removed"),
        (summary.flaky, "flaky"),
        (summary.unverifiable, "unverifiable"),
        (summary.changed, "changed"),
        (summary.unchanged, "unchanged"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, word)| format!("{n} {word}"))
    .collect();
    if summary.known_failures > 0 {
        parts.push(format!("{} known failure(s)", summary.known_failures));
    }
    parts
}

/// How many items the Markdown table lists: a pull-request comment has a size limit.
const MOST_ROWS: usize = 100;

/// The comparison in Markdown: a count, a table of the items that did not stay the
/// same (at most [`MOST_ROWS`]), and the gate.
pub(crate) fn markdown(diff: &Diff) -> String {
    let mut out = String::from("## promptexec diff\n\n");
    let counted = match counts(&diff.summary).join(", ") {
        parts if diff.summary.unchanged == diff.items.len() => format!("no change ({parts})"),
        parts => parts,
    };
    out.push_str(&format!(
        "`{}` → `{}` ({} report): {}\n\n",
        cell(&diff.base.file),
        cell(&diff.head.file),
        diff.report.words(),
        counted
    ));
    if !diff.unverifiable_parts.is_empty() {
        out.push_str(&format!(
            "**Not comparable:** the fingerprints differ in {}.\n\n",
            diff.unverifiable_parts.join(", ")
        ));
    }
    let listed: Vec<&DiffItem> = diff
        .items
        .iter()
        .filter(|i| i.status != Status::Unchanged)
        .collect();
    if !listed.is_empty() {
        out.push_str("| status | id | base | head | what changed |\n|---|---|---|---|---|\n");
        for item in listed.iter().take(MOST_ROWS) {
            let mut changed: Vec<String> = item
                .changes
                .iter()
                .filter(|c| c.kind != "result")
                .map(|c| cell(&c.text))
                .collect();
            if let Some(known) = &item.known_failure {
                changed.push(match &known.reason {
                    Some(reason) => format!("a known failure: {}", cell(reason)),
                    None => "a known failure".into(),
                });
            }
            out.push_str(&format!(
                "| {} | `{}` | {} | {} | {} |\n",
                item.status.word(),
                cell(&item.id),
                item.base.as_deref().unwrap_or("–"),
                item.head.as_deref().unwrap_or("–"),
                changed.join("<br>")
            ));
        }
        if listed.len() > MOST_ROWS {
            out.push_str(&format!(
                "\n…and {} more; the JSON report (`--format json`) has them all.\n",
                listed.len() - MOST_ROWS
            ));
        }
        out.push('\n');
    }
    for note in &diff.notes {
        out.push_str(&format!("- note: {}\n", cell(note)));
    }
    if diff.gate.failed {
        out.push_str(match diff.gate.enforced {
            true => "**Gate failed:**\n\n",
            false => "**The gate fails** (with `--fail-on-regression`):\n\n",
        });
        for reason in diff.gate.reasons.iter().take(MOST_ROWS) {
            out.push_str(&format!("- {}\n", cell(reason)));
        }
        if diff.gate.reasons.len() > MOST_ROWS {
            out.push_str(&format!(
                "- …and {} more\n",
                diff.gate.reasons.len() - MOST_ROWS
            ));
        }
    } else {
        out.push_str("Gate passed.\n");
    }
    out
}

/// Text safe in a table cell: no bar, no line break, no markup.
fn cell(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace(['\n', '\r'], " ")
}
