//! Evals end to end (tests/fixtures/evals): `promptexec eval` on exec evals that
//! cannot score, JUnit reports a CI system accepts, `eval --pack --transcript`
//! replaying a run's evals, and the pack features that decide whether an eval runs
//! (`assertion`, `when`, `enabled`, sampling) or whether the pack is refused.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value as Json;

use crate::util::{Outcome, dana_asks, fixtures, promptexec, repo_root, run_all};

fn evals_dir() -> PathBuf {
    fixtures().join("evals")
}

/// `promptexec -c evals.yaml eval TYPE --content "Thank you" EXTRA...`.
#[track_caller]
fn eval_once(eval_type: &str, extra: &[&str]) -> Outcome {
    promptexec()
        .in_dir(evals_dir())
        .args([
            "-c",
            "evals.yaml",
            "eval",
            eval_type,
            "--content",
            "Thank you",
        ])
        .args(extra)
        .run()
}

/// `promptexec -c evals.yaml run evals.pack.json --prompt PROMPT`, one `--message` per
/// entry of `messages`, then EXTRA.
#[track_caller]
fn play(prompt: &str, messages: &[&str], extra: &[&str]) -> Outcome {
    promptexec()
        .in_dir(evals_dir())
        .args([
            "-c",
            "evals.yaml",
            "run",
            "evals.pack.json",
            "--prompt",
            prompt,
        ])
        .args(messages.iter().flat_map(|message| ["--message", message]))
        .args(extra)
        .run()
}

/// Like [`play`] with `--format json`: the outcome and its report.
#[track_caller]
fn play_json(prompt: &str, messages: &[&str]) -> (Outcome, Json) {
    let out = play(prompt, messages, &["--format", "json"]);
    let report = report_of(&out);
    (out, report)
}

/// The one JSON document on stdout; its `exit_code` (when it has one) must be the
/// process's.
#[track_caller]
fn report_of(out: &Outcome) -> Json {
    let report = out.json_report();
    if let Some(code) = report.get("exit_code") {
        assert_eq!(*code, out.code, "{}", out.report());
    }
    report
}

fn evals_of(report: &Json) -> &Vec<Json> {
    report["evals"]
        .as_array()
        .unwrap_or_else(|| panic!("an `evals` array in {report:#}"))
}

/// The results of eval `id`, in order.
fn results_of<'r>(report: &'r Json, id: &str) -> Vec<&'r Json> {
    evals_of(report)
        .iter()
        .filter(|e| e["eval_id"] == id)
        .collect()
}

/// What a replay must reproduce of each result: id, turn, status and score.
fn essentials(evals: &[Json]) -> Vec<(String, Json, String, Option<f64>)> {
    evals
        .iter()
        .map(|e| {
            (
                e["eval_id"].as_str().unwrap_or_default().to_string(),
                e["turn"].clone(),
                e["status"].as_str().unwrap_or_default().to_string(),
                e["score"].as_f64(),
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------
// JUnit

/// The JUnit elements a `<testcase>` may hold, as CI systems' JUnit XSD allows.
const CASE_CHILDREN: &[&str] = &[
    "failure",
    "error",
    "skipped",
    "system-out",
    "system-err",
    "properties",
];

/// The elements a `<testsuite>` may hold.
const SUITE_CHILDREN: &[&str] = &["testcase", "properties", "system-out", "system-err"];

fn elements<'a, 'i>(
    node: roxmltree::Node<'a, 'i>,
) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> {
    node.children().filter(roxmltree::Node::is_element)
}

/// An attribute that must be there.
#[track_caller]
fn attribute<'a>(node: roxmltree::Node<'a, '_>, name: &str, xml: &str) -> &'a str {
    node.attribute(name)
        .unwrap_or_else(|| panic!("<{}> without `{name}`:\n{xml}", node.tag_name().name()))
}

/// A count attribute that must be there and be a whole number.
#[track_caller]
fn count(node: roxmltree::Node, name: &str, xml: &str) -> usize {
    let value = attribute(node, name, xml);
    value.parse().unwrap_or_else(|_| {
        panic!(
            "<{}> {name}=\"{value}\" is not a count:\n{xml}",
            node.tag_name().name()
        )
    })
}

/// `time`, when present, is a number of seconds.
#[track_caller]
fn check_time(node: roxmltree::Node, xml: &str) {
    if let Some(time) = node.attribute("time") {
        let seconds: f64 = time.parse().unwrap_or_else(|_| {
            panic!(
                "<{}> time=\"{time}\" is not a number:\n{xml}",
                node.tag_name().name()
            )
        });
        assert!(seconds >= 0.0, "negative time {time}:\n{xml}");
    }
}

/// How many of `cases` hold a `<tag>` child.
fn with_child(cases: &[roxmltree::Node], tag: &str) -> usize {
    cases
        .iter()
        .filter(|c| elements(**c).any(|e| e.has_tag_name(tag)))
        .count()
}

/// Checks `xml` against what CI systems' JUnit XSD requires: a `testsuites` root whose
/// `tests`, `failures` and `errors` agree with its testcases; suites with `name`,
/// `tests`, `failures`, `errors` (also agreeing) and a numeric `time` when present;
/// testcases with `name` and `classname`, holding only the allowed elements, at most
/// one outcome, and a `message` on each `failure` and `error`.
#[track_caller]
fn assert_valid_junit(xml: &str) {
    let doc = roxmltree::Document::parse(xml)
        .unwrap_or_else(|err| panic!("well-formed XML ({err}):\n{xml}"));
    let root = doc.root_element();
    assert!(
        root.has_tag_name("testsuites"),
        "the root is <{}>, not <testsuites>:\n{xml}",
        root.tag_name().name()
    );
    let mut all_cases = Vec::new();
    let suites: Vec<_> = elements(root).collect();
    assert!(!suites.is_empty(), "no <testsuite>:\n{xml}");
    for suite in suites {
        assert!(
            suite.has_tag_name("testsuite"),
            "<testsuites> holds <{}>:\n{xml}",
            suite.tag_name().name()
        );
        assert!(
            !attribute(suite, "name", xml).is_empty(),
            "a testsuite with an empty name:\n{xml}"
        );
        check_time(suite, xml);
        for child in elements(suite) {
            assert!(
                SUITE_CHILDREN.contains(&child.tag_name().name()),
                "<testsuite> holds <{}>:\n{xml}",
                child.tag_name().name()
            );
        }
        let cases: Vec<_> = elements(suite)
            .filter(|c| c.has_tag_name("testcase"))
            .collect();
        for case in &cases {
            assert!(
                !attribute(*case, "name", xml).is_empty(),
                "a testcase with an empty name:\n{xml}"
            );
            attribute(*case, "classname", xml);
            check_time(*case, xml);
            let children: Vec<_> = elements(*case).collect();
            for child in &children {
                let tag = child.tag_name().name();
                assert!(
                    CASE_CHILDREN.contains(&tag),
                    "<testcase> holds <{tag}>:\n{xml}"
                );
                if tag == "failure" || tag == "error" {
                    attribute(*child, "message", xml);
                }
            }
            let outcomes = children
                .iter()
                .filter(|c| ["failure", "error", "skipped"].contains(&c.tag_name().name()))
                .count();
            assert!(outcomes <= 1, "a testcase with {outcomes} outcomes:\n{xml}");
        }
        let name = suite.attribute("name").unwrap_or_default();
        assert_eq!(count(suite, "tests", xml), cases.len(), "{name}: tests");
        assert_eq!(
            count(suite, "failures", xml),
            with_child(&cases, "failure"),
            "{name}: failures\n{xml}"
        );
        assert_eq!(
            count(suite, "errors", xml),
            with_child(&cases, "error"),
            "{name}: errors\n{xml}"
        );
        if suite.attribute("skipped").is_some() {
            assert_eq!(
                count(suite, "skipped", xml),
                with_child(&cases, "skipped"),
                "{name}: skipped\n{xml}"
            );
        }
        all_cases.extend(cases);
    }
    assert_eq!(
        count(root, "tests", xml),
        all_cases.len(),
        "testsuites: tests\n{xml}"
    );
    assert_eq!(
        count(root, "failures", xml),
        with_child(&all_cases, "failure"),
        "testsuites: failures\n{xml}"
    );
    assert_eq!(
        count(root, "errors", xml),
        with_child(&all_cases, "error"),
        "testsuites: errors\n{xml}"
    );
}

/// One testcase of a valid report: its name, and the tag and message of its outcome
/// element (`failure`, `error` or `skipped`), if any.
#[derive(Debug, PartialEq)]
struct Case {
    name: String,
    outcome: Option<(String, String)>,
}

/// Every testcase of `xml`, which must be valid JUnit.
#[track_caller]
fn junit_cases(xml: &str) -> Vec<Case> {
    assert_valid_junit(xml);
    let doc = roxmltree::Document::parse(xml).unwrap_or_else(|err| panic!("{err}"));
    doc.descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|case| Case {
            name: case.attribute("name").unwrap_or_default().to_string(),
            outcome: elements(case)
                .find(|c| ["failure", "error", "skipped"].contains(&c.tag_name().name()))
                .map(|c| {
                    (
                        c.tag_name().name().to_string(),
                        c.attribute("message").unwrap_or_default().to_string(),
                    )
                }),
        })
        .collect()
}

#[track_caller]
fn junit_case<'c>(cases: &'c [Case], name: &str) -> &'c Case {
    cases
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("a testcase `{name}` in {cases:#?}"))
}

#[test]
fn the_junit_check_rejects_reports_ci_systems_refuse() {
    let valid = r#"<testsuites tests="1" failures="1" errors="0">
        <testsuite name="s" tests="1" failures="1" errors="0" time="0.5">
          <testcase name="c" classname="k"><failure message="m"/></testcase>
        </testsuite></testsuites>"#;
    assert_valid_junit(valid);
    for (what, xml) in [
        ("not XML", "<testsuites"),
        (
            "another root",
            r#"<testsuite name="s" tests="0" failures="0" errors="0"/>"#,
        ),
        (
            "root counts that disagree",
            &valid.replace(r#"<testsuites tests="1""#, r#"<testsuites tests="2""#),
        ),
        (
            "suite counts that disagree",
            &valid.replace(
                r#"failures="1" errors="0" time"#,
                r#"failures="0" errors="0" time"#,
            ),
        ),
        ("a suite without a name", &valid.replace(r#"name="s" "#, "")),
        ("a time that is not a number", &valid.replace("0.5", "soon")),
        (
            "a case without a classname",
            &valid.replace(r#" classname="k""#, ""),
        ),
        (
            "a failure without a message",
            &valid.replace(r#"<failure message="m"/>"#, "<failure/>"),
        ),
        (
            "an unknown child of a case",
            &valid.replace(
                r#"<failure message="m"/>"#,
                r#"<failure message="m"/><note/>"#,
            ),
        ),
    ] {
        let xml = xml.to_string();
        let caught = std::panic::catch_unwind(|| assert_valid_junit(&xml));
        assert!(caught.is_err(), "{what} passed the check:\n{xml}");
    }
}

// ---------------------------------------------------------------------------------
// `promptexec eval` on exec evals that cannot score

/// `eval TYPE` must be exit 3 with status `error`, no score, and an `error` reason
/// holding one of `says`; in JUnit, one testcase with an `<error>` saying the same.
/// Returns how long the JSON call took.
#[track_caller]
fn assert_eval_error(eval_type: &str, says: &[&str]) -> Duration {
    let out = eval_once(eval_type, &[]);
    assert_eq!(out.code, 3, "{eval_type}: {}", out.report());
    let result = report_of(&out);
    assert_eq!(result["eval_id"], eval_type, "{result:#}");
    assert_eq!(result["status"], "error", "{result:#}");
    assert_eq!(result["score"], Json::Null, "{result:#}");
    assert_ne!(result["passed"], true, "{result:#}");
    let error = result["error"].as_str().unwrap_or_default();
    assert!(!error.trim().is_empty(), "an empty reason: {result:#}");
    assert!(
        says.iter().any(|s| error.contains(s)),
        "{eval_type}: the reason {error:?} says none of {says:?}"
    );

    let junit = eval_once(eval_type, &["--format", "junit"]);
    assert_eq!(junit.code, 3, "{eval_type}: {}", junit.report());
    let cases = junit_cases(&junit.stdout);
    assert_eq!(cases.len(), 1, "{cases:#?}");
    let (tag, message) = cases[0]
        .outcome
        .as_ref()
        .unwrap_or_else(|| panic!("an <error> in {cases:#?}"));
    assert_eq!(tag, "error", "{}", junit.stdout);
    assert!(
        says.iter().any(|s| message.contains(s)),
        "{eval_type}: the <error> message {message:?} says none of {says:?}"
    );
    out.elapsed
}

#[test]
fn an_eval_that_exits_1_after_printing_a_valid_score_is_an_error() {
    assert_eval_error("crash", &["exited with status 1"]);
}

#[test]
fn an_eval_past_its_deadline_is_an_error_that_says_it_timed_out_and_returns_promptly() {
    let elapsed = assert_eval_error("slow", &["timed out"]);
    assert!(
        elapsed < Duration::from_secs(5),
        "a 300 ms deadline took {elapsed:?} to enforce"
    );
}

#[test]
fn an_eval_scoring_above_1_is_an_error_saying_the_score_is_outside_the_range() {
    assert_eval_error("too_high", &["outside"]);
}

#[test]
fn an_eval_scoring_a_string_is_an_error_saying_it_is_not_a_number() {
    assert_eval_error("not_a_number", &["not a number"]);
}

#[test]
fn an_eval_printing_nothing_is_an_error_saying_its_output_is_empty() {
    assert_eval_error("silent", &["empty output", "invalid output"]);
}

#[test]
fn an_eval_scoring_within_range_passes_or_fails_by_the_given_bounds() {
    // The counterpart of the errors above: courtesy.py scores "Thank you" 0.5.
    let passed = eval_once("courtesy", &["--min-score", "0.5"]);
    assert_eq!(passed.code, 0, "{}", passed.report());
    let result = report_of(&passed);
    assert_eq!(result["status"], "passed", "{result:#}");
    assert_eq!(result["score"], 0.5);
    assert_eq!(result["error"], Json::Null);

    let failed = eval_once("courtesy", &["--min-score", "0.9", "--format", "junit"]);
    assert_eq!(failed.code, 1, "{}", failed.report());
    let cases = junit_cases(&failed.stdout);
    let outcome = cases[0].outcome.as_ref().expect("a <failure>");
    assert_eq!(outcome.0, "failure", "{}", failed.stdout);
}

// ---------------------------------------------------------------------------------
// JUnit reports of runs

#[test]
fn the_bundled_example_run_is_valid_junit() {
    let out = dana_asks("Where is A-1002?")
        .args(&["--format", "junit"])
        .run();
    assert_eq!(out.code, 0, "{}", out.report());
    let cases = junit_cases(&out.stdout);
    for name in [
        "turn 1",
        "polite-tone (turn 1)",
        "mentions-order (turn 1)",
        "reply-length",
    ] {
        assert_eq!(junit_case(&cases, name).outcome, None, "{cases:#?}");
    }
}

#[test]
fn a_run_with_a_failing_gate_is_valid_junit_with_the_failure_on_that_eval() {
    let out = play("gated", &["Where is A-1?"], &["--format", "junit"]);
    assert_eq!(out.code, 1, "{}", out.report());
    let cases = junit_cases(&out.stdout);
    assert_eq!(cases.len(), 4, "a turn and three evals: {cases:#?}");
    let failed = junit_case(&cases, "says-sorry (turn 1)");
    let (tag, message) = failed.outcome.as_ref().expect("a <failure>");
    assert_eq!(tag, "failure");
    assert!(message.contains("sorry"), "{message:?}");
    for name in ["turn 1", "names-order (turn 1)", "sorry-measured (turn 1)"] {
        assert_eq!(junit_case(&cases, name).outcome, None, "{cases:#?}");
    }
}

#[test]
fn a_run_with_an_eval_error_is_valid_junit_with_the_error_on_that_eval() {
    let out = play("broken", &["Where is A-1?"], &["--format", "junit"]);
    assert_eq!(out.code, 3, "{}", out.report());
    let cases = junit_cases(&out.stdout);
    assert_eq!(junit_case(&cases, "turn 1").outcome, None, "{cases:#?}");
    let (tag, message) = junit_case(&cases, "overflow (turn 1)")
        .outcome
        .as_ref()
        .expect("an <error>");
    assert_eq!(tag, "error");
    assert!(message.contains("outside"), "{message:?}");
}

// ---------------------------------------------------------------------------------
// Replaying a transcript

/// `run` with `--transcript` (in a temporary directory) and `--format json`, then
/// `eval --pack --transcript --format json` over it, both in `dir` with `config`.
/// Returns the two reports; the replay must exit as the run did, without reporting
/// any difference from the recorded results, and its JUnit form must be valid.
#[track_caller]
fn run_then_replay(dir: &Path, config: &str, pack: &str, run_args: &[&str]) -> (Json, Json) {
    let temp = tempfile::tempdir().expect("temp dir");
    let transcript = temp.path().join("run.jsonl");
    let transcript = transcript.to_str().expect("a UTF-8 path");
    let mut args = vec!["-c", config, "run", pack];
    args.extend_from_slice(run_args);
    args.extend_from_slice(&["--transcript", transcript, "--format", "json"]);
    let run = promptexec().in_dir(dir).args(&args).run();
    let played = report_of(&run);

    // The replay and its JUnit form both read the transcript: they overlap.
    let replay_as = |format: &str| {
        promptexec().in_dir(dir).args([
            "-c",
            config,
            "eval",
            "--pack",
            pack,
            "--transcript",
            transcript,
            "--format",
            format,
        ])
    };
    let [replay, junit] =
        <[Outcome; 2]>::try_from(run_all(vec![replay_as("json"), replay_as("junit")]))
            .expect("two outcomes");
    let replayed = report_of(&replay);
    assert_eq!(replay.code, run.code, "{}", replay.report());
    assert!(
        !replay.stderr.contains("warning"),
        "the replay disagrees with the run:\n{}",
        replay.stderr
    );

    assert_eq!(junit.code, run.code, "{}", junit.report());
    let cases = junit_cases(&junit.stdout);
    assert_eq!(
        cases.len(),
        evals_of(&replayed).len(),
        "a testcase per eval result: {cases:#?}"
    );
    (played, replayed)
}

#[test]
fn replaying_a_transcript_reproduces_the_runs_eval_results() {
    let (played, replayed) = run_then_replay(
        &evals_dir(),
        "evals.yaml",
        "evals.pack.json",
        &[
            "--prompt",
            "replay",
            "--message",
            "Where is A-1?",
            "--message",
            "Thanks",
        ],
    );
    assert_eq!(played["exit_code"], 0, "{played:#}");
    let expected = [
        ("courteous", Json::from(1), "passed", Some(0.5)),
        ("courteous", Json::from(2), "passed", Some(1.0)),
        ("glad-at-end", Json::Null, "measured", Some(1.0)),
    ]
    .map(|(id, turn, status, score)| (id.to_string(), turn, status.to_string(), score));
    assert_eq!(essentials(evals_of(&played)), expected, "{played:#}");
    assert_eq!(
        essentials(evals_of(&replayed)),
        essentials(evals_of(&played)),
        "{replayed:#}"
    );
    assert_eq!(replayed["prompt"], "replay");
    assert_eq!(replayed["totals"]["passed"], 2, "{replayed:#}");
    assert_eq!(replayed["totals"]["measured"], 1, "{replayed:#}");
}

#[test]
fn replaying_the_bundled_examples_transcript_reproduces_its_eval_results() {
    let (played, replayed) = run_then_replay(
        &repo_root(),
        "runtimeconfig.example.yaml",
        "examples/assistant.pack.json",
        &[
            "--var",
            "customer_name=Dana",
            "--message",
            "Where is A-1002?",
            "--message",
            "Thanks!",
        ],
    );
    assert_eq!(played["exit_code"], 0, "{played:#}");
    let ran = essentials(evals_of(&played));
    assert_eq!(
        ran.len(),
        5,
        "two evals per turn and one at the end: {ran:#?}"
    );
    assert_eq!(essentials(evals_of(&replayed)), ran, "{replayed:#}");
}

/// Runs the replay pack with a transcript, replaces the line holding the first
/// `eval_point` event with `replacement`, and replays: exit 2 naming FILE:LINE:COL of
/// that line.
#[track_caller]
fn assert_corrupted_line_is_pointed_at(replacement: &str) {
    let temp = tempfile::tempdir().expect("temp dir");
    let path = temp.path().join("run.jsonl");
    let transcript = path.to_str().expect("a UTF-8 path");
    let run = play(
        "replay",
        &["Where is A-1?", "Thanks"],
        &["--transcript", transcript, "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}", run.report());
    let text = std::fs::read_to_string(&path).expect("the transcript was written");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let at = lines
        .iter()
        .position(|l| l.contains(r#""event":"eval_point""#))
        .unwrap_or_else(|| panic!("an eval_point line in\n{text}"));
    lines[at] = replacement.to_string();
    std::fs::write(&path, lines.join("\n") + "\n").expect("rewrite the transcript");

    let out = promptexec()
        .in_dir(evals_dir())
        .args(&[
            "-c",
            "evals.yaml",
            "eval",
            "--pack",
            "evals.pack.json",
            "--transcript",
            transcript,
            "--format",
            "json",
        ])
        .run();
    assert_eq!(out.code, 2, "{}", out.report());
    assert_eq!(out.stdout, "", "no report for a bad transcript");
    let prefix = format!("{transcript}:{}:", at + 1);
    let line = out
        .stderr
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("a line starting {prefix:?}:\n{}", out.stderr));
    let col = line[prefix.len()..].split(':').next().unwrap_or_default();
    assert!(
        col.parse::<u32>().is_ok_and(|c| c >= 1),
        "a column after the line number: {line:?}"
    );
}

#[test]
fn a_transcript_line_that_is_not_json_is_exit_2_at_that_line() {
    assert_corrupted_line_is_pointed_at(r#"{"event": "eval_point", "turn": "#);
}

#[test]
fn a_transcript_line_that_is_not_an_event_is_exit_2_at_that_line() {
    assert_corrupted_line_is_pointed_at(r#"{"event": "bogus", "seq": 7}"#);
}

// ---------------------------------------------------------------------------------
// What decides whether an eval runs

#[test]
fn an_assertion_makes_a_builtin_a_gate_whose_failure_fails_the_run() {
    let (out, report) = play_json("gated", &["Where is A-1?"]);
    assert_eq!(out.code, 1, "{}", out.report());
    let failed = results_of(&report, "says-sorry");
    assert_eq!(failed.len(), 1, "{report:#}");
    assert_eq!(failed[0]["status"], "failed", "{:#}", failed[0]);
    assert_eq!(failed[0]["passed"], false);
    assert_eq!(failed[0]["score"], 0.0);
    let passed = results_of(&report, "names-order");
    assert_eq!(passed[0]["status"], "passed", "{:#}", passed[0]);
    assert_eq!(passed[0]["passed"], true);
    // The same check without the wrapper only measures.
    let measured = results_of(&report, "sorry-measured");
    assert_eq!(measured[0]["status"], "measured", "{:#}", measured[0]);
    assert_eq!(measured[0]["score"], 0.0);
    assert_eq!(report["totals"]["evals"]["failed"], 1, "{report:#}");
}

#[test]
fn when_tool_called_runs_the_eval_only_on_turns_that_called_that_tool() {
    let (out, report) = play_json("when", &["Where is A-1?", "And now?"]);
    assert_eq!(out.code, 0, "{}", out.report());
    assert_eq!(report["tool_calls"][0]["name"], "lookup", "{report:#}");
    assert_eq!(report["tool_calls"][0]["turn"], 1, "{report:#}");

    let lookup = results_of(&report, "after-lookup");
    assert_eq!(lookup.len(), 2, "{lookup:#?}");
    assert_eq!(lookup[0]["turn"], 1);
    assert_eq!(lookup[0]["status"], "measured", "{:#}", lookup[0]);
    assert_eq!(lookup[0]["score"], 1.0);
    assert_eq!(lookup[1]["turn"], 2);
    assert_eq!(lookup[1]["status"], "skipped", "{:#}", lookup[1]);
    assert_eq!(lookup[1]["score"], Json::Null);
    let reason = lookup[1]["explanation"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with("skipped:") && reason.contains("lookup"),
        "{reason:?}"
    );

    // Another tool being called does not meet the condition.
    let refund = results_of(&report, "after-refund");
    assert_eq!(refund.len(), 2, "{refund:#?}");
    for result in refund {
        assert_eq!(result["status"], "skipped", "{result:#}");
        let reason = result["explanation"].as_str().unwrap_or_default();
        assert!(
            reason.starts_with("skipped:") && reason.contains("refund"),
            "{reason:?}"
        );
    }
    assert_eq!(report["totals"]["evals"]["skipped"], 3, "{report:#}");

    let junit = play(
        "when",
        &["Where is A-1?", "And now?"],
        &["--format", "junit"],
    );
    assert_eq!(junit.code, 0, "{}", junit.report());
    let cases = junit_cases(&junit.stdout);
    let (tag, message) = junit_case(&cases, "after-lookup (turn 2)")
        .outcome
        .as_ref()
        .expect("a <skipped>");
    assert_eq!(tag, "skipped");
    assert!(message.starts_with("skipped:"), "{message:?}");
}

#[test]
fn a_disabled_eval_does_not_appear_in_the_results() {
    let (out, report) = play_json("toggled", &["Hello", "Bye"]);
    assert_eq!(out.code, 0, "{}", out.report());
    let ids: Vec<&str> = evals_of(&report)
        .iter()
        .map(|e| e["eval_id"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(ids, ["kept", "kept"], "{report:#}");
    let totals = &report["totals"]["evals"];
    assert_eq!(totals["measured"], 2, "{totals:#}");
    assert_eq!(totals["skipped"], 0, "{totals:#}");
}

#[test]
fn sample_turns_at_0_percent_never_runs_and_at_100_percent_runs_on_every_turn() {
    let (out, report) = play_json("sampled", &["One", "Two", "Three"]);
    assert_eq!(out.code, 0, "{}", out.report());
    assert!(results_of(&report, "never").is_empty(), "{report:#}");
    let always: Vec<&Json> = results_of(&report, "always")
        .iter()
        .map(|e| &e["turn"])
        .collect();
    assert_eq!(
        always,
        [&Json::from(1), &Json::from(2), &Json::from(3)],
        "{report:#}"
    );
}

/// The `LINE:COL` of the `{` opening the object that holds `needle` in `text`.
fn object_position(text: &str, needle: &str) -> String {
    let at = text.find(needle).expect("the needle is in the fixture");
    let open = text[..at].rfind('{').expect("an object around the needle");
    let line = text[..open].matches('\n').count() + 1;
    let col = open - text[..open].rfind('\n').map_or(0, |nl| nl + 1) + 1;
    format!("{line}:{col}")
}

/// `run PACK` must refuse the pack with exit 2 before anything runs, pointing at the
/// eval `eval_id` with a message that says all of `says`.
#[track_caller]
fn assert_refused_at_eval(pack: &str, eval_id: &str, says: &[&str]) {
    let out = promptexec()
        .in_dir(evals_dir())
        .args(&[
            "-c",
            "evals.yaml",
            "run",
            pack,
            "--message",
            "Hello",
            "--format",
            "json",
        ])
        .run();
    assert_eq!(out.code, 2, "{}", out.report());
    assert_eq!(out.stdout, "", "nothing ran, so no report");
    let text = std::fs::read_to_string(evals_dir().join(pack)).expect("the fixture");
    let at = format!(
        "{pack}:{}:",
        object_position(&text, &format!(r#""id": "{eval_id}""#))
    );
    let line = out
        .stderr
        .lines()
        .find(|l| l.starts_with(&at))
        .unwrap_or_else(|| panic!("a line starting {at:?}:\n{}", out.stderr));
    for said in says {
        assert!(line.contains(said), "{line:?} does not say {said:?}");
    }
}

#[test]
fn an_unknown_eval_type_in_a_pack_is_exit_2_at_the_eval_with_a_suggestion() {
    assert_refused_at_eval(
        "unknown_type.pack.json",
        "misspelt",
        &["`contans`", "did you mean `contains`?"],
    );
}

#[test]
fn an_unknown_param_of_a_builtin_in_a_pack_is_exit_2_at_the_eval() {
    assert_refused_at_eval(
        "unknown_param.pack.json",
        "misnamed",
        &["`patern`", "did you mean `patterns`?"],
    );
}
