//! Long conversations (tests/fixtures/run/long.*): what a run records grows with what
//! happened in each step, never with a copy of the history. `eval_point` is recorded
//! only where evals ran and refers to the messages by count.

use std::collections::BTreeSet;

use serde_json::Value as Json;

use crate::util::{Outcome, fixtures, promptexec};

const TURNS: usize = 60;

/// `promptexec -c long.yaml run long.pack.json --prompt PROMPT` with TURNS messages,
/// then EXTRA.
fn play_long(prompt: &str, extra: &[&str]) -> Outcome {
    let messages: Vec<String> = (1..=TURNS).map(|t| format!("message {t}")).collect();
    promptexec()
        .in_dir(fixtures().join("run"))
        .args([
            "-c",
            "long.yaml",
            "run",
            "long.pack.json",
            "--prompt",
            prompt,
        ])
        .args(messages.iter().flat_map(|m| ["--message", m.as_str()]))
        .args(extra)
        .run()
}

fn events_of<'r>(report: &'r Json, kind: &str) -> Vec<&'r Json> {
    report["events"]
        .as_array()
        .expect("an events list")
        .iter()
        .filter(|e| e["event"] == kind)
        .collect()
}

#[test]
fn eval_points_are_recorded_only_where_evals_ran_and_refer_to_messages_by_count() {
    let out = play_long("sampled", &["--format", "json"]);
    out.expect_code(0);
    let report = out.json_report();
    let messages = report["messages"].as_array().expect("the history").len();
    assert_eq!(
        messages,
        2 * TURNS,
        "a user and an assistant message a turn"
    );

    let points = events_of(&report, "eval_point");
    let judged_turns: BTreeSet<u64> = events_of(&report, "eval")
        .iter()
        .filter_map(|e| e["turn"].as_u64())
        .collect();
    let point_turns: BTreeSet<u64> = points.iter().filter_map(|p| p["turn"].as_u64()).collect();
    assert_eq!(
        point_turns, judged_turns,
        "a point where evals ran, none elsewhere"
    );
    assert!(
        !judged_turns.is_empty() && judged_turns.len() < TURNS,
        "half the turns are sampled: {judged_turns:?}"
    );
    let session_points = points.iter().filter(|p| p["turn"].is_null()).count();
    assert_eq!(session_points, 1, "the session's eval ran once at its end");

    for point in &points {
        let keys: Vec<&str> = point
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["event", "turn", "messages", "metadata"], "{point}");
        let seen = match point["turn"].as_u64() {
            Some(turn) => 2 * turn as usize,
            None => messages,
        };
        assert_eq!(point["messages"], seen, "what evals saw, by count: {point}");
        assert_eq!(point["metadata"]["prompt_id"], "sampled", "{point}");
    }
    // Nothing in the event stream carries a copy of the history.
    for event in report["events"].as_array().expect("events") {
        assert!(
            event.get("input").is_none() && !event["messages"].is_array(),
            "{event}"
        );
    }
}

#[test]
fn a_run_without_evals_records_no_eval_point() {
    let out = play_long("unjudged", &["--format", "json"]);
    out.expect_code(0);
    let report = out.json_report();
    assert_eq!(report["totals"]["turns"], TURNS);
    assert!(events_of(&report, "eval_point").is_empty(), "{report:#}");
    assert_eq!(events_of(&report, "turn_end").len(), TURNS);
}

#[test]
fn a_long_transcript_replays_the_same_sampled_results() {
    let temp = tempfile::tempdir().expect("temp dir");
    let transcript = temp.path().join("long.jsonl");
    let transcript = transcript.to_str().expect("a UTF-8 path");
    let played = play_long("sampled", &["--transcript", transcript, "--format", "json"]);
    played.expect_code(0);
    let replayed = promptexec()
        .in_dir(fixtures().join("run"))
        .args([
            "-c",
            "long.yaml",
            "eval",
            "--pack",
            "long.pack.json",
            "--transcript",
            transcript,
            "--format",
            "json",
        ])
        .run();
    replayed.expect_code(0);
    let essentials = |results: &Json| -> Vec<(Json, Json, Json, Json)> {
        results
            .as_array()
            .expect("results")
            .iter()
            .map(|r| {
                let field = |k: &str| r[k].clone();
                (
                    field("eval_id"),
                    field("turn"),
                    field("status"),
                    field("score"),
                )
            })
            .collect()
    };
    let ran = essentials(&played.json_report()["evals"]);
    assert!(ran.len() > 1, "{ran:?}");
    assert_eq!(essentials(&replayed.json_report()["evals"]), ran);
    replayed.stderr_lacks("warning");
}

#[test]
fn a_run_whose_event_log_cannot_be_written_fails_instead_of_reporting_less() {
    let missing = tempfile::tempdir().expect("temp dir");
    let nowhere = missing.path().join("gone");
    let out = promptexec()
        .in_dir(fixtures().join("run"))
        .env("TMPDIR", &nowhere)
        .args([
            "-c",
            "long.yaml",
            "run",
            "long.pack.json",
            "--prompt",
            "sampled",
            "--message",
            "hi",
            "--format",
            "json",
        ])
        .run();
    out.expect_code(2)
        .stderr_has("cannot write output")
        .stderr_has("no event log in");
    assert!(out.stdout.trim().is_empty(), "no report: {}", out.stdout);
}

/// `run` with its user messages read by `--messages-from SOURCE` instead of flags.
fn play_from(dir: &std::path::Path, source: &str) -> crate::util::Invocation {
    let config = fixtures().join("run").join("long.yaml");
    let pack = fixtures().join("run").join("long.pack.json");
    promptexec()
        .in_dir(dir)
        .arg("-c")
        .arg(config)
        .arg("run")
        .arg(pack)
        .args(["--prompt", "unjudged", "--format", "json"])
        .args(["--messages-from", source])
}

fn user_messages(report: &Json) -> Vec<&str> {
    report["messages"]
        .as_array()
        .expect("the history")
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .collect()
}

#[test]
fn messages_from_a_file_or_stdin_are_one_turn_a_line_blank_lines_skipped() {
    let dir = tempfile::tempdir().expect("temp dir");
    let text = "first one\n\n  second, with \"quotes\"  \r\n   \nthird";
    let from_file = play_from(dir.path(), "messages.txt")
        .file("messages.txt", text)
        .run();
    from_file.expect_code(0);
    let report = from_file.json_report();
    assert_eq!(
        user_messages(&report),
        ["first one", "  second, with \"quotes\"  ", "third"]
    );
    assert_eq!(report["totals"]["turns"], 3);

    let from_stdin = play_from(dir.path(), "-").stdin(text).run();
    from_stdin.expect_code(0);
    assert_eq!(
        user_messages(&from_stdin.json_report()),
        user_messages(&report)
    );
}

#[test]
fn messages_from_nothing_usable_is_bad_input_before_anything_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    play_from(dir.path(), "blank.txt")
        .file("blank.txt", "\n  \n")
        .run()
        .expect_code(2)
        .stderr_has("--messages-from blank.txt: no messages");
    play_from(dir.path(), "missing.txt")
        .run()
        .expect_code(2)
        .stderr_has("missing.txt");
    play_from(dir.path(), "-")
        .arg("--message")
        .arg("hi")
        .run()
        .expect_code(2)
        .stderr_has("cannot be used with");
    // Without either, the pack's suite is played; with no scenarios beside it, the
    // message says how to give either.
    promptexec()
        .in_dir(dir.path())
        .arg("-c")
        .arg(fixtures().join("run").join("long.yaml"))
        .arg("run")
        .arg(fixtures().join("run").join("long.pack.json"))
        .run()
        .expect_code(2)
        .stderr_has("no scenarios to play in")
        .stderr_has("--message TEXT to play one conversation");
}
