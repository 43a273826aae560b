//! Verdicts that tell the truth: an extension that fails during `run` is reported where
//! it happened (human stream, JSON, JUnit) with its stderr and makes the run exit 3,
//! while a tool's own `error` answer stays a normal outcome; a hook's `modify` gets the
//! same checks as the model's call; an enforcing provider filter keeps the message from
//! the model; payloads name the configured provider.
//!
//! Fixtures: `tests/fixtures/honest`.

use std::path::PathBuf;

use serde_json::{Value as Json, json};

use crate::util::{Outcome, fixtures, promptexec};

fn honest_dir() -> PathBuf {
    fixtures().join("honest")
}

/// One run, and every request the recording extensions got, in order.
struct Played {
    out: Outcome,
    recorded: Vec<Json>,
}

/// `promptexec -c CONFIG run honest.pack.json --prompt PROMPT EXTRA...` with a fresh
/// file for `RECORD`.
#[track_caller]
fn play(config: &str, prompt: &str, extra: &[&str]) -> Played {
    let temp = tempfile::tempdir().expect("temp dir");
    let record = temp.path().join("requests.jsonl");
    let out = promptexec()
        .in_dir(honest_dir())
        .args(["-c", config, "run", "honest.pack.json", "--prompt", prompt])
        .args(extra)
        .env("RECORD", &record)
        .run();
    let recorded = match std::fs::read_to_string(&record) {
        Ok(text) => text
            .lines()
            .map(|line| serde_json::from_str(line).expect("the fixture recorded JSON"))
            .collect(),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(err) => panic!("reading {}: {err}", record.display()),
    };
    Played { out, recorded }
}

/// `play`'s `modify` prompt on one scenario, one message, a JSON report.
#[track_caller]
fn play_scenario(config: &str, scenario: &str) -> Played {
    play(
        config,
        "modify",
        &[
            "--scenario",
            scenario,
            "--message",
            "go",
            "--format",
            "json",
        ],
    )
}

/// The `crash` prompt over two messages, reported in `format`.
#[track_caller]
fn play_crash_twice(format: &str) -> Played {
    play(
        "honest.yaml",
        "crash",
        &[
            "--message",
            "first",
            "--message",
            "second",
            "--format",
            format,
        ],
    )
}

/// The one JSON document on stdout; its `exit_code` must be the process's.
#[track_caller]
fn report_of(out: &Outcome) -> Json {
    let report: Json = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|err| panic!("one JSON document ({err}):\n{}", out.report()));
    assert_eq!(report["exit_code"], out.code, "{}", out.report());
    report
}

#[test]
fn a_crashing_tool_fails_the_run_with_exit_3_and_its_traceback_even_though_the_conversation_went_on()
 {
    let played = play_crash_twice("json");
    let out = &played.out;
    assert_eq!(out.code, 3, "{}", out.report());
    let report = report_of(out);
    assert_eq!(
        report["turns"],
        json!([{"turn": 1, "outcome": "answered"}, {"turn": 2, "outcome": "answered"}]),
        "the conversation went on"
    );
    let failures = report["extension_failures"]
        .as_array()
        .expect("extension_failures");
    assert_eq!(failures.len(), 1, "{failures:#?}");
    let failure = &failures[0];
    assert_eq!(failure["kind"], "tool");
    assert_eq!(failure["name"], "crasher");
    assert_eq!(failure["turn"], 1);
    assert!(
        failure["reason"]
            .as_str()
            .is_some_and(|r| r.contains("exited with status 1")),
        "{failure:#}"
    );
    let tail = failure["stderr_tail"].as_str().expect("stderr_tail");
    assert!(
        tail.contains("Traceback") && tail.contains("lost its database connection"),
        "{tail}"
    );
    assert_eq!(report["tool_calls"][0]["status"], "failed");
    assert_eq!(report["totals"]["extension_failures"], 1);
    assert!(
        out.stderr.contains("tool `crasher` failed"),
        "the reason for exit 3 is on stderr:\n{}",
        out.stderr
    );
}

#[test]
fn a_crashing_tool_is_an_error_on_its_turn_in_junit_with_its_stderr() {
    let played = play_crash_twice("junit");
    let out = &played.out;
    assert_eq!(out.code, 3, "{}", out.report());
    let doc = roxmltree::Document::parse(&out.stdout).expect("JUnit XML");
    let case = |name: &str| {
        doc.descendants()
            .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some(name))
            .unwrap_or_else(|| panic!("testcase `{name}`:\n{}", out.stdout))
    };
    let turn1 = case("turn 1");
    let error = turn1
        .children()
        .find(|n| n.has_tag_name("error"))
        .unwrap_or_else(|| panic!("turn 1 has an <error>:\n{}", out.stdout));
    assert!(
        error
            .attribute("message")
            .is_some_and(|m| m.contains("tool `crasher` failed")),
        "{}",
        out.stdout
    );
    let stderr = turn1
        .children()
        .find(|n| n.has_tag_name("system-err"))
        .and_then(|n| n.text())
        .unwrap_or_default();
    assert!(
        stderr.contains("lost its database connection"),
        "{}",
        out.stdout
    );
    let turn2 = case("turn 2");
    assert!(
        !turn2
            .children()
            .any(|n| n.has_tag_name("error") || n.has_tag_name("failure")),
        "turn 2 passed:\n{}",
        out.stdout
    );
}

#[test]
fn the_human_stream_shows_the_failure_where_it_happened_with_the_stderr_tail() {
    let played = play("honest.yaml", "crash", &["--message", "first"]);
    let out = &played.out;
    assert_eq!(out.code, 3, "{}", out.report());
    let failed = out
        .stderr
        .find("FAILED tool `crasher`")
        .unwrap_or_else(|| panic!("{}", out.stderr));
    let answered = out
        .stderr
        .find("assistant: The crasher failed; carrying on.")
        .unwrap_or_else(|| panic!("{}", out.stderr));
    assert!(
        failed < answered,
        "reported as it happened:\n{}",
        out.stderr
    );
    out.stderr_has("| RuntimeError: the crasher lost its database connection");
    out.stderr_has("exit 3");
}

#[test]
fn a_tool_that_times_out_fails_the_run_with_exit_3() {
    let played = play(
        "honest.yaml",
        "slow",
        &["--message", "go", "--format", "json"],
    );
    let out = &played.out;
    assert_eq!(out.code, 3, "{}", out.report());
    let report = report_of(out);
    let failure = &report["extension_failures"][0];
    assert_eq!(failure["name"], "sleeper", "{report:#}");
    assert!(
        failure["reason"]
            .as_str()
            .is_some_and(|r| r.contains("timed out")),
        "{failure:#}"
    );
    assert!(
        failure["stderr_tail"]
            .as_str()
            .is_some_and(|t| t.contains("starting a long job")),
        "{failure:#}"
    );
}

#[test]
fn a_tools_own_error_answer_is_a_normal_outcome() {
    let played = play(
        "honest.yaml",
        "tool_error",
        &["--message", "go", "--format", "json"],
    );
    let out = &played.out;
    assert_eq!(out.code, 0, "{}", out.report());
    let report = report_of(out);
    assert_eq!(report["tool_calls"][0]["status"], "error");
    assert_eq!(report["tool_calls"][0]["content"], "no such order");
    assert_eq!(report["extension_failures"], json!([]));
}

#[test]
fn a_modify_that_points_at_a_blocklisted_tool_starts_no_process() {
    let played = play_scenario("modify.yaml", "to_blocklisted");
    let out = &played.out;
    assert_eq!(out.code, 0, "{}", out.report());
    assert_eq!(played.recorded, Vec::<Json>::new(), "no tool ran");
    let report = report_of(out);
    let call = &report["tool_calls"][0];
    assert_eq!(call["status"], "error", "{report:#}");
    assert!(
        call["content"]
            .as_str()
            .is_some_and(|c| c.contains("modified by a hook") && c.contains("blocklisted")),
        "{call:#}"
    );
}

#[test]
fn a_modify_that_breaks_the_schema_starts_no_process() {
    let played = play_scenario("modify.yaml", "to_bad_args");
    let out = &played.out;
    assert_eq!(out.code, 0, "{}", out.report());
    assert_eq!(played.recorded, Vec::<Json>::new(), "no tool ran");
    let report = report_of(out);
    let content = report["tool_calls"][0]["content"]
        .as_str()
        .unwrap_or_default();
    assert!(
        content.contains("invalid arguments") && content.contains("/topic"),
        "{report:#}"
    );
}

#[test]
fn a_modify_that_passes_the_checks_runs_the_rewritten_call() {
    let played = play_scenario("modify.yaml", "to_good_args");
    assert_eq!(played.out.code, 0, "{}", played.out.report());
    assert_eq!(played.recorded.len(), 1, "{:?}", played.recorded);
    assert_eq!(played.recorded[0]["args"], json!({"topic": "rewritten"}));
}

#[test]
fn an_enforced_provider_filter_without_a_replacement_keeps_the_message_from_the_model() {
    let played = play(
        "enforce.yaml",
        "chat",
        &[
            "--message",
            "my SSN is 123-45-6789",
            "--message",
            "and what now?",
            "--format",
            "json",
        ],
    );
    let out = &played.out;
    assert_eq!(out.code, 0, "{}", out.report());
    let report = report_of(out);
    assert_eq!(
        report["totals"]["model_calls"], 1,
        "only the second turn reached the model: {report:#}"
    );
    let assistant: Vec<&Json> = report["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "assistant")
        .collect();
    assert_eq!(assistant[0]["finish_reason"], "safety", "{report:#}");
    assert_eq!(
        assistant[0]["content"], "This request was blocked by a policy hook.",
        "{report:#}"
    );
    assert_eq!(assistant[1]["content"], "The model answered.");
    // The witness filter runs after the enforcer and sees what the model would see.
    assert_eq!(played.recorded.len(), 1, "{:?}", played.recorded);
    let seen = played.recorded[0].to_string();
    assert!(
        !seen.contains("123-45-6789"),
        "the objected message never reaches the model: {seen}"
    );
    assert!(seen.contains("and what now?"), "{seen}");
}

#[test]
fn hook_payloads_name_the_configured_provider_and_model() {
    let played = play("enforce.yaml", "chat", &["--message", "hello"]);
    assert_eq!(played.out.code, 0, "{}", played.out.report());
    let request = &played.recorded[0]["request"];
    assert_eq!(request["provider_id"], "scripted", "{request:#}");
    assert_eq!(request["model"], "scripted-model-1", "{request:#}");
}

#[test]
fn a_standalone_eval_gets_empty_objects_not_null_in_its_context() {
    let temp = tempfile::tempdir().expect("temp dir");
    let record = temp.path().join("requests.jsonl");
    let out = promptexec()
        .in_dir(honest_dir())
        .args(&[
            "-c",
            "honest.yaml",
            "eval",
            "context_probe",
            "--content",
            "hi",
        ])
        .envs(&[("RECORD", &record.display().to_string())])
        .run();
    assert_eq!(out.code, 0, "{}", out.report());
    let text = std::fs::read_to_string(&record).expect("the eval recorded its request");
    let request: Json = serde_json::from_str(text.trim()).expect("JSON");
    let context = &request["context"];
    assert!(context["variables"].is_object(), "{context:#}");
    assert!(context["metadata"].is_object(), "{context:#}");
    assert!(context["messages"].is_array(), "{context:#}");
    assert!(context["tool_calls"].is_array(), "{context:#}");
}

#[test]
fn under_quiet_the_run_says_only_why_it_failed() {
    let played = play("honest.yaml", "crash", &["-q", "--message", "first"]);
    let out = &played.out;
    assert_eq!(out.code, 3, "{}", out.report());
    out.stderr_has("tool `crasher` failed: exited with status 1");
    assert!(
        !out.stderr.contains("assistant:") && !out.stderr.contains("summary:"),
        "nothing but the error:\n{}",
        out.stderr
    );
}

/// Plays the `modify` prompt (the probe on offer) in `scenario` with `config`.
#[track_caller]
fn play_probe(config: &str, scenario: &str) -> (Played, Json) {
    let played = play_scenario(config, scenario);
    let report = report_of(&played.out);
    (played, report)
}

/// `play`'s `modify` prompt on the `probe_plain` scenario, without a report, with fresh
/// files for `HOOK_LOG` and `RECORD`; gives the log's path and the directory holding it.
#[track_caller]
fn play_logged(config: &str) -> (Outcome, PathBuf, tempfile::TempDir) {
    let temp = tempfile::tempdir().expect("temp dir");
    let log = temp.path().join("hook.log");
    let record = temp.path().join("requests.jsonl");
    let out = promptexec()
        .in_dir(honest_dir())
        .args([
            "-c",
            config,
            "run",
            "honest.pack.json",
            "--prompt",
            "modify",
            "--scenario",
            "probe_plain",
            "--message",
            "go",
        ])
        .envs(&[
            ("HOOK_LOG", &log.display().to_string()),
            ("RECORD", &record.display().to_string()),
        ])
        .run();
    (out, log, temp)
}

#[test]
fn a_crashing_session_observer_fails_the_run_without_holding_the_conversation() {
    let (played, report) = play_probe("hook_failures.yaml", "probe_plain");
    assert_eq!(played.out.code, 3, "{}", played.out.report());
    assert_eq!(report["turns"][0]["outcome"], "answered", "{report:#}");
    assert_eq!(played.recorded.len(), 1, "the tool ran");
    let failure = &report["extension_failures"][0];
    assert_eq!(failure["kind"], "hook", "{report:#}");
    assert_eq!(failure["name"], "crashing_observer");
    assert_eq!(failure["phase"], "session_end");
    assert!(
        failure["stderr_tail"]
            .as_str()
            .is_some_and(|t| t.contains("cannot open the audit log")),
        "{failure:#}"
    );
}

#[test]
fn a_crashing_filter_denies_the_call_and_fails_the_run() {
    let (played, report) = play_probe("filter_failure.yaml", "probe_plain");
    assert_eq!(played.out.code, 3, "{}", played.out.report());
    assert!(
        played.recorded.is_empty(),
        "fail-closed: the tool did not run"
    );
    assert_eq!(report["tool_calls"][0]["status"], "blocked", "{report:#}");
    let failure = &report["extension_failures"][0];
    assert_eq!(failure["name"], "crashing_filter", "{report:#}");
    assert_eq!(failure["phase"], "before_execution");
}

#[test]
fn an_interceptor_failure_skipped_by_its_policy_still_fails_the_run() {
    let (played, report) = play_probe("skipped_failure.yaml", "probe_confusing");
    assert_eq!(played.out.code, 3, "{}", played.out.report());
    assert_eq!(played.recorded.len(), 1, "skipped: the tool ran");
    let failure = &report["extension_failures"][0];
    assert_eq!(failure["name"], "confused", "{report:#}");
    assert!(
        failure["reason"]
            .as_str()
            .is_some_and(|r| r.contains("explode")),
        "{failure:#}"
    );
}

#[test]
fn a_played_tool_without_a_binding_is_a_warning_and_fatal_under_strict() {
    let loose = play(
        "modify.yaml",
        "crash",
        &["--message", "go", "--format", "json"],
    );
    let report = report_of(&loose.out);
    let warned = report["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .any(|w| {
            w["message"]
                .as_str()
                .is_some_and(|m| m.contains("tool `crasher` has no `exec` binding"))
        });
    assert!(warned, "{report:#}");

    let strict = play("modify.yaml", "crash", &["--strict", "--message", "go"]);
    assert_eq!(strict.out.code, 2, "{}", strict.out.report());
    assert!(
        strict
            .out
            .stderr
            .contains("honest.pack.json:11:17: warning: tool `crasher` has no `exec` binding"),
        "{}",
        strict.out.stderr
    );
}

#[test]
fn an_observer_that_fails_late_is_reported_on_the_turn_it_heard() {
    let played = play(
        "late_observer.yaml",
        "chat",
        &["--message", "one", "--message", "two", "--format", "json"],
    );
    assert_eq!(played.out.code, 3, "{}", played.out.report());
    let report = report_of(&played.out);
    let failures = report["extension_failures"].as_array().expect("failures");
    assert_eq!(failures.len(), 1, "{report:#}");
    assert_eq!(failures[0]["name"], "late");
    assert_eq!(failures[0]["turn"], 1, "{report:#}");
}

#[test]
fn an_approval_without_a_boolean_denies_and_fails_the_run() {
    let (played, report) = play_probe("approval_failure.yaml", "probe_vague_approval");
    assert_eq!(played.out.code, 3, "{}", played.out.report());
    assert!(
        played.recorded.is_empty(),
        "fail-closed: the tool did not run"
    );
    let failure = &report["extension_failures"][0];
    assert_eq!(failure["name"], "approver", "{report:#}");
    assert_eq!(failure["phase"], "approve_tool");
    assert!(
        failure["reason"]
            .as_str()
            .is_some_and(|r| r.contains("no boolean `approved`")),
        "{failure:#}"
    );
}

#[test]
fn observing_hooks_hear_skipped_tools_and_errors() {
    let (out, log, _temp) = play_logged("skipped_events.yaml");
    assert_eq!(out.code, 3, "{}", out.report());
    let text = std::fs::read_to_string(&log).expect("the listener logged");
    let kinds: Vec<String> = text
        .lines()
        .filter_map(|line| serde_json::from_str::<Json>(line).ok())
        .filter(|m| m["method"] == "hook.event")
        .map(|m| m["params"]["Kind"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(kinds, ["error", "tool_exec_skipped"], "{text}");
}

#[test]
fn an_enforced_after_call_keeps_the_text_and_drops_the_tool_calls() {
    let (played, report) = play_probe("enforce_answer.yaml", "leaky");
    assert_eq!(played.out.code, 0, "{}", played.out.report());
    assert!(played.recorded.is_empty(), "the dropped call did not run");
    assert_eq!(report["totals"]["model_calls"], 1, "{report:#}");
    let answer = report["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|m| m["role"] == "assistant")
        .expect("an answer");
    assert_eq!(answer["finish_reason"], "safety", "{answer:#}");
    assert!(answer.get("tool_calls").is_none(), "{answer:#}");
    assert_eq!(
        answer["content"],
        "Your SSN 123-45-6789 is on file; checking stock too."
    );
    assert_eq!(report["hook_decisions"][0]["action"], "replaced");
}

#[test]
fn a_server_mode_exec_hook_is_told_its_hook_type_like_a_one_shot_one() {
    let (out, log, _temp) = play_logged("server_filter.yaml");
    assert_eq!(out.code, 0, "{}", out.report());
    let types = std::fs::read_to_string(&log).expect("the hook logged");
    assert_eq!(types, "tool\n");
}
