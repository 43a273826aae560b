//! Evals end to end (tests/fixtures/evals): `promptexec eval` on exec evals that
//! cannot score, JUnit reports a CI system accepts, `eval --pack --transcript`
//! replaying a run's evals, and the pack features that decide whether an eval runs
//! (`assertion`, `when`, `enabled`, sampling) or whether the pack is refused.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value as Json;

use crate::junit::{junit_case, junit_cases};
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
