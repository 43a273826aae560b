//! What `check` prints: a table of verdicts per extension for people, the report as
//! JSON for scripts, and JUnit XML for CI.

use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
use serde::Serialize;

use super::style::{self, Tone};
use super::{CheckRecord, ExtensionCheck, ProbeResult};

use super::junit::non_success;
use super::table;

/// Per extension: a `PASS`/`FAIL` heading, a table of its probes, then what each
/// failure saw, how to fix it and how to see it again. An extension whose probes all
/// passed is its heading alone, with how many passed, unless `verbose`. One line of
/// totals ends it. Colour only when `color` is set (and the process-wide switch
/// allows it).
pub(crate) fn check_human(report: &CheckRecord, color: bool, verbose: bool) -> String {
    let paint = |text: &str, tone: Tone| {
        if color {
            style::paint(text, tone)
        } else {
            text.to_string()
        }
    };
    let mut text = String::new();
    for extension in &report.extensions {
        let (word, tone) = match extension.passed() {
            true => ("PASS", Tone::Good),
            false => ("FAIL", Tone::Bad),
        };
        text.push_str(&format!(
            "{} {} ({})",
            paint(word, tone),
            paint(&style::peer(&extension.name, false), Tone::Strong),
            extension.kind
        ));
        if extension.probes.is_empty() {
            text.push_str("\n  no probes ran\n");
            continue;
        }
        let warnings = extension.probes.iter().filter(|p| p.warning).count();
        if extension.passed() && !verbose {
            let took: Duration = extension.probes.iter().map(|p| p.duration).sum();
            let warned = match warnings {
                0 => String::new(),
                n => format!(", {}", plural(n, "warning")),
            };
            text.push_str(&format!(
                ": {} passed{warned} ({} ms)\n",
                plural(extension.probes.len(), "probe"),
                took.as_millis()
            ));
        } else {
            text.push('\n');
            text.push_str(&format!("{}\n", probe_table(extension)));
        }
        let noted = extension.probes.iter().filter(|p| !p.passed || p.warning);
        for probe in noted {
            let (word, tone) = match probe.passed {
                true => ("warning", Tone::Warn),
                false => ("failed", Tone::Bad),
            };
            text.push_str(&format!(
                "  {} {}: {}\n",
                probe.probe,
                paint(word, tone),
                style::peer(probe.reason.trim_end(), true).replace('\n', "\n    ")
            ));
            if let Some(hint) = &probe.hint {
                text.push_str(&format!("    {} {hint}\n", paint("hint:", Tone::Warn)));
            }
            if let Some(command) = &probe.reproduce {
                text.push_str(&format!(
                    "    {} {command}\n",
                    paint("reproduce:", Tone::Strong)
                ));
            }
        }
    }
    let Counts {
        passed,
        failed,
        skipped,
        warnings,
    } = counts(report);
    let failed_text = format!("{failed} failed");
    let mut extra = String::new();
    if skipped > 0 {
        extra.push_str(&format!(", {skipped} skipped"));
    }
    if warnings > 0 {
        extra.push_str(&format!(", {}", plural(warnings, "warning")));
    }
    text.push_str(&format!(
        "check: {}, {}: {passed} passed, {}{extra} (seed {})\n",
        plural(report.extensions.len(), "extension"),
        plural(passed + failed + skipped, "probe"),
        match failed {
            0 => failed_text,
            _ => paint(&failed_text, Tone::Bad),
        },
        report.seed
    ));
    text
}

/// One row per probe. The verdict stays uncoloured: escape codes inside a cell
/// would throw the column widths off.
fn probe_table(extension: &ExtensionCheck) -> String {
    let mut grid = table(&["probe", "verdict", "time", "reason"]);
    for probe in &extension.probes {
        grid.add_row(vec![
            probe.probe.to_string(),
            verdict(probe).to_string(),
            format!("{} ms", probe.duration.as_millis()),
            in_cell(&probe.reason),
        ]);
    }
    grid.to_string()
}

fn verdict(probe: &ProbeResult) -> &'static str {
    match (probe.passed, probe.skipped, probe.warning) {
        (false, ..) => "failed",
        (true, true, _) => "skipped",
        (true, false, true) => "warning",
        (true, false, false) => "passed",
    }
}

/// How much of a reason fits a cell; a failure's whole reason follows the table.
const CELL_CHARS: usize = 80;

/// A reason's first line (more would break the table's rows), cut to fit a cell,
/// with what an extension wrote in it safe for the terminal.
fn in_cell(text: &str) -> String {
    let line = style::peer(text.lines().next().unwrap_or_default(), false);
    match line.char_indices().nth(CELL_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    }
}

/// Probes by verdict; a warning is a pass too, a skipped probe is neither.
#[derive(Default)]
struct Counts {
    passed: usize,
    failed: usize,
    skipped: usize,
    warnings: usize,
}

fn counts(report: &CheckRecord) -> Counts {
    let mut counts = Counts::default();
    for probe in report.extensions.iter().flat_map(|e| &e.probes) {
        match (probe.passed, probe.skipped) {
            (false, _) => counts.failed += 1,
            (true, true) => counts.skipped += 1,
            (true, false) => counts.passed += 1,
        }
        counts.warnings += usize::from(probe.warning);
    }
    counts
}

fn plural(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

/// The report with whether it passed in front, so a script needs one lookup.
#[derive(Serialize)]
struct CheckJson<'a> {
    passed: bool,
    #[serde(flatten)]
    report: &'a CheckRecord,
}

/// The report as pretty JSON, with a top-level `"passed"`.
pub(crate) fn check_json(report: &CheckRecord) -> String {
    let document = CheckJson {
        passed: report.passed(),
        report,
    };
    // The report holds only strings, numbers and lists, so this cannot fail; should it
    // ever, the document still parses and says the check did not pass.
    serde_json::to_string_pretty(&document).unwrap_or_else(|error| {
        serde_json::json!({ "passed": false, "error": error.to_string() }).to_string()
    })
}

/// One `<testsuite>` per extension (its kind, the seed and the case count as
/// properties), one `<testcase>` per
/// probe, classname `<kind>.<name>`. A failed probe is a `<failure>`: the reason is
/// its message, the hint and the command that reproduces it its text.
pub(crate) fn check_junit(report: &CheckRecord) -> Result<String, quick_junit::SerializeError> {
    let mut junit = Report::new("promptexec check");
    for extension in &report.extensions {
        let mut suite = TestSuite::new(extension.name.as_str());
        suite.add_property(Property::new("kind", extension.kind.as_str()));
        // JUnit has no report-wide properties; each suite carries the seed and case
        // count, so a CI run can be repeated from its XML alone.
        suite.add_property(Property::new("seed", report.seed.to_string()));
        suite.add_property(Property::new("cases", report.cases.to_string()));
        suite.set_time(
            extension
                .probes
                .iter()
                .map(|p| p.duration)
                .sum::<Duration>(),
        );
        for probe in &extension.probes {
            let mut case = TestCase::new(probe.probe.as_str(), junit_status(probe));
            case.set_classname(format!("{}.{}", extension.kind, extension.name));
            case.set_time(probe.duration);
            if probe.warning {
                case.set_system_out(format!("warning: {}", probe.reason));
            }
            suite.add_test_case(case);
        }
        junit.add_test_suite(suite);
    }
    junit.to_string()
}

fn junit_status(probe: &ProbeResult) -> TestCaseStatus {
    if probe.skipped {
        let mut status = TestCaseStatus::skipped();
        status.set_message(probe.reason.clone());
        return status;
    }
    if probe.passed {
        return TestCaseStatus::success();
    }
    let mut status = non_success(NonSuccessKind::Failure, probe.reason.clone());
    let text: Vec<String> = [("hint", &probe.hint), ("reproduce", &probe.reproduce)]
        .into_iter()
        .filter_map(|(label, value)| value.as_ref().map(|v| format!("{label}: {v}")))
        .collect();
    if !text.is_empty() {
        status.set_description(text.join("\n"));
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{CheckedKind, Probe};

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// A tool that passes everything and a server tool that loses one id.
    fn report() -> CheckRecord {
        let search = ExtensionCheck {
            name: "search".into(),
            kind: CheckedKind::Tool,
            probes: vec![
                ProbeResult::pass(Probe::OneJsonAnswer, "answered `result`").took(ms(31)),
                ProbeResult::pass(Probe::ClosedStdin, "exited 1 without a signal").took(ms(12)),
                ProbeResult::pass(Probe::Fuzz, "100 generated cases, all answered").took(ms(2040)),
            ],
        };
        let lookup = ExtensionCheck {
            name: "lookup".into(),
            kind: CheckedKind::ServerTool,
            probes: vec![
                ProbeResult::pass(Probe::OneJsonAnswer, "answered `result`").took(ms(45)),
                ProbeResult::fail(
                    Probe::EchoesIds,
                    "reply 2 had id 7, the request id 9007199254740991",
                    "copy each request's id into its reply unchanged",
                )
                .took(ms(48))
                .reproduced_by(
                    "promptexec check -c tools.yaml --only lookup --probe echoes_ids --seed 42"
                        .into(),
                ),
                ProbeResult::fail(
                    Probe::ExitsOnEof,
                    "still running 2 s after stdin closed\nsecond line",
                    "exit when a read from stdin returns end of file",
                )
                .took(ms(2003)),
            ],
        };
        CheckRecord {
            seed: 42,
            cases: 100,
            extensions: vec![search, lookup],
        }
    }

    #[test]
    fn human_report_shows_each_extension_and_its_failures() {
        insta::assert_snapshot!(check_human(&report(), false, true));
    }

    #[test]
    fn a_passing_extension_is_one_line_without_verbose() {
        insta::assert_snapshot!(check_human(&report(), false, false));
    }

    #[test]
    fn human_report_in_colour_reads_the_same_without_the_codes() {
        let report = report();
        assert_eq!(
            style::strip(&check_human(&report, true, true)),
            check_human(&report, false, true)
        );
    }

    #[test]
    fn human_report_without_colour_has_no_escape_codes() {
        assert!(!check_human(&report(), false, true).contains('\x1b'));
    }

    #[test]
    fn human_summary_counts_a_clean_run_in_the_singular() {
        let mut report = report();
        report.extensions.truncate(1);
        report.extensions[0].probes.truncate(1);
        let text = check_human(&report, false, false);
        assert_eq!(
            text,
            "PASS search (tool): 1 probe passed (31 ms)\n\
             check: 1 extension, 1 probe: 1 passed, 0 failed (seed 42)\n"
        );
    }

    #[test]
    fn json_report_says_whether_it_passed() {
        insta::assert_snapshot!(check_json(&report()));
    }

    #[test]
    fn json_report_of_a_clean_run_passed() {
        let mut report = report();
        report.extensions.truncate(1);
        let json: serde_json::Value =
            serde_json::from_str(&check_json(&report)).expect("the document is JSON");
        assert_eq!(json["passed"], true);
        assert_eq!(
            json["extensions"][0]["probes"]
                .as_array()
                .expect("a list of probes")
                .len(),
            3
        );
    }

    #[test]
    fn junit_report_has_a_suite_per_extension_and_a_case_per_probe() {
        insta::assert_snapshot!(check_junit(&report()).expect("XML"));
    }
}
