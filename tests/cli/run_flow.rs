//! `promptexec run` end to end on small fixtures (tests/fixtures/run): tool calls and
//! their results, schema checks, provider and tool hooks, the round limit, the mock's
//! lookup order, and exec evals as gates, measurements and failures.

use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};

use crate::junit::{Case, junit_case, junit_cases};
use crate::util::{Outcome, fixtures, promptexec};

fn run_dir() -> PathBuf {
    fixtures().join("run")
}

/// `promptexec -c CONFIG run PACK --prompt PROMPT EXTRA...` in the fixture directory.
#[track_caller]
fn play(config: &str, pack: &str, prompt: &str, extra: &[&str], env: &[(&str, &str)]) -> Outcome {
    let mut args = vec!["-c", config, "run", pack, "--prompt", prompt];
    args.extend_from_slice(extra);
    promptexec().in_dir(run_dir()).args(&args).envs(env).run()
}

/// Like [`play`] with `--format json`: the outcome and its one report document, whose
/// `exit_code` must be the process's.
#[track_caller]
fn play_json(
    config: &str,
    pack: &str,
    prompt: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> (Outcome, Json) {
    let mut args = extra.to_vec();
    args.extend_from_slice(&["--format", "json"]);
    let out = play(config, pack, prompt, &args, env);
    let report = report_of(&out);
    (out, report)
}

/// The one JSON document on stdout; its `exit_code` must be the process's.
#[track_caller]
fn report_of(out: &Outcome) -> Json {
    let report = out.json_report();
    assert_eq!(report["exit_code"], out.code, "{}", out.report());
    report
}

/// How many times the echo tool ran, by the lines it appended to `echo.ran` in `markers`.
fn tool_runs(markers: &Path) -> usize {
    std::fs::read_to_string(markers.join("echo.ran")).map_or(0, |text| text.lines().count())
}

/// A run of flow.pack.json under `config` that must exit 0, with a fresh marker directory
/// for the echo tool; gives the report and how many times the tool ran.
#[track_caller]
fn flow_ok(config: &str, prompt: &str, extra: &[&str]) -> (Json, usize) {
    let markers = tempfile::tempdir().expect("temp dir");
    let marker_dir = markers.path().display().to_string();
    let mut args = vec!["--message", "hi"];
    args.extend_from_slice(extra);
    let (out, report) = play_json(
        config,
        "flow.pack.json",
        prompt,
        &args,
        &[("RUN_MARKER_DIR", &marker_dir)],
    );
    assert_eq!(out.code, 0, "{}", out.report());
    (report, tool_runs(markers.path()))
}

/// A [`flow_ok`] run with one tool call, checked for how often the echo tool ran
/// (`runs`: the count and what it means) and for the call's `status`; gives the report
/// and the call.
#[track_caller]
fn flow_one_call(config: &str, prompt: &str, runs: (usize, &str), status: &str) -> (Json, Json) {
    let (report, ran) = flow_ok(config, prompt, &[]);
    assert_eq!(ran, runs.0, "{}", runs.1);

    let call = only_tool_call(&report).clone();
    assert_eq!(call["status"], status, "{call:#}");
    (report, call)
}

fn messages(report: &Json) -> &Vec<Json> {
    report["messages"].as_array().expect("messages")
}

/// The `content` of every message with `role`.
fn contents_of<'r>(report: &'r Json, role: &str) -> Vec<&'r str> {
    messages(report)
        .iter()
        .filter(|m| m["role"] == role)
        .map(|m| m["content"].as_str().expect("text content"))
        .collect()
}

/// The messages from the first tool message on.
fn from_tool_message(report: &Json) -> &[Json] {
    let all = messages(report);
    let at = all
        .iter()
        .position(|m| m["role"] == "tool")
        .unwrap_or_else(|| panic!("a tool message in {all:#?}"));
    &all[at..]
}

/// The only tool call event of a run.
fn only_tool_call(report: &Json) -> &Json {
    let calls = report["tool_calls"].as_array().expect("tool_calls");
    assert_eq!(calls.len(), 1, "{calls:#?}");
    &calls[0]
}

/// The testcases of a valid JUnit report that holds exactly one testsuite.
#[track_caller]
fn one_suite_cases(xml: &str) -> Vec<Case> {
    let doc = roxmltree::Document::parse(xml)
        .unwrap_or_else(|err| panic!("well-formed XML ({err}):\n{xml}"));
    let suites = doc
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .count();
    assert_eq!(suites, 1, "one testsuite:\n{xml}");
    junit_cases(xml)
}

/// evals.pack.json with the probe eval answering `answer` (nothing when empty) and
/// exiting with `exit`.
#[track_caller]
fn play_eval(prompt: &str, format: &str, answer: &str, exit: &str) -> Outcome {
    let mut env = vec![("EVAL_EXIT", exit)];
    if !answer.is_empty() {
        env.push(("EVAL_ANSWER", answer));
    }
    play(
        "evals.yaml",
        "evals.pack.json",
        prompt,
        &["--message", "hi", "--format", format],
        &env,
    )
}

#[track_caller]
fn eval_json(prompt: &str, answer: &str, exit: &str) -> (Outcome, Json) {
    let out = play_eval(prompt, "json", answer, exit);
    let report = report_of(&out);
    (out, report)
}

/// The only eval result of a run.
fn only_eval(report: &Json) -> &Json {
    let evals = report["evals"].as_array().expect("evals");
    assert_eq!(evals.len(), 1, "{evals:#?}");
    &evals[0]
}

#[test]
fn a_tool_call_is_dispatched_and_its_result_is_fed_back_to_the_model() {
    let (report, call) = flow_one_call("flow.yaml", "echo", (1, "the echo tool ran once"), "ok");
    assert_eq!(call["name"], "echo");
    assert_eq!(call["call_id"], "call_1_echo");
    assert_eq!(call["args"], json!({"text": "ping"}));

    let after = from_tool_message(&report);
    let tool = &after[0];
    let output: Json = serde_json::from_str(tool["content"].as_str().expect("text"))
        .expect("the tool's result as JSON");
    assert_eq!(output, json!({"echoed": {"text": "ping"}}));
    assert_eq!(tool["tool_result"]["id"], "call_1_echo");
    assert_eq!(tool["tool_result"]["name"], "echo");
    assert_eq!(tool["tool_result"]["error"], Json::Null);
    assert_eq!(after.len(), 2, "{after:#?}");
    assert_eq!(after[1]["role"], "assistant");
    assert_eq!(after[1]["content"], "The echo said ping.");

    assert_eq!(report["turns"], json!([{"turn": 1, "outcome": "answered"}]));
    assert_eq!(report["totals"]["model_calls"], 2);
    assert_eq!(report["totals"]["tool_errors"], 0);
}

#[test]
fn a_schema_violation_reaches_the_model_as_a_tool_error_and_the_tool_never_runs() {
    let (report, call) = flow_one_call(
        "flow.yaml",
        "bad_args",
        (0, "the echo tool must not run"),
        "error",
    );
    let content = call["content"].as_str().expect("text");
    assert!(content.starts_with("invalid arguments:"), "{content}");
    assert!(content.contains("/text"), "names the pointer: {content}");

    let after = from_tool_message(&report);
    assert_eq!(after[0]["content"], content);
    assert_eq!(after[0]["tool_result"]["error"], content);
    assert_eq!(after[1]["role"], "assistant");
    assert_eq!(after[1]["content"], "The echo refused my arguments.");
    assert_eq!(report["totals"]["tool_errors"], 1);
}

/// flow.pack.json's `chat` prompt under `config`, told `message`.
#[track_caller]
fn chat(config: &str, message: &str) -> Outcome {
    play(
        config,
        "flow.pack.json",
        "chat",
        &["--message", message],
        &[],
    )
}

/// Like [`chat`] with `--format json`: the outcome and its report.
#[track_caller]
fn chat_json(config: &str, message: &str) -> (Outcome, Json) {
    play_json(
        config,
        "flow.pack.json",
        "chat",
        &["--message", message],
        &[],
    )
}

#[test]
fn a_provider_filter_denial_aborts_the_turn_with_exit_1_naming_the_hook() {
    let out = chat("deny_call.yaml", "hi");
    assert_eq!(out.code, 1, "{}", out.report());
    out.stderr_has("turn 1 aborted by hook `topic_guard`: off-topic request");

    let (out, report) = chat_json("deny_call.yaml", "hi");
    assert_eq!(out.code, 1, "{}", out.report());
    assert_eq!(
        report["turns"],
        json!([{"turn": 1, "outcome": "aborted", "hook": "topic_guard", "reason": "off-topic request"}])
    );
    assert_eq!(
        report["totals"]["model_calls"], 0,
        "the model was never called"
    );
    assert_eq!(contents_of(&report, "assistant"), Vec::<&str>::new());
}

#[test]
fn an_enforced_provider_filter_answers_with_its_replacement_and_the_model_is_not_called() {
    let (out, report) = chat_json("enforce.yaml", "my SSN is 123-45-6789");
    assert_eq!(out.code, 0, "{}", out.report());
    let decisions = report["hook_decisions"].as_array().expect("hook_decisions");
    assert_eq!(decisions.len(), 1, "{decisions:#?}");
    assert_eq!(decisions[0]["hook"], "redactor");
    assert_eq!(decisions[0]["action"], "replaced");
    assert_eq!(report["turns"], json!([{"turn": 1, "outcome": "answered"}]));
    assert_eq!(
        report["totals"]["model_calls"], 0,
        "the model was never called"
    );
    assert_eq!(
        contents_of(&report, "user"),
        ["[message withheld by hook `redactor`]"],
        "the message the hook objected to is withheld from the history"
    );
    assert_eq!(
        contents_of(&report, "assistant"),
        ["[message redacted by policy]"],
        "the hook's replacement is the turn's answer"
    );
}

#[test]
fn a_tool_blocked_by_a_before_execution_filter_reaches_the_model_as_blocked() {
    let (report, call) = flow_one_call(
        "block_tool.yaml",
        "echo",
        (0, "the echo tool must not run"),
        "blocked",
    );
    let blocked = "blocked by hook `no_tools`: tools are switched off";
    assert_eq!(call["content"], blocked);

    let after = from_tool_message(&report);
    assert_eq!(after[0]["content"], blocked);
    assert_eq!(after[0]["tool_result"]["id"], "call_1_echo");
    assert_eq!(after[1]["role"], "assistant");
    assert_eq!(after[1]["content"], "The echo said ping.");

    let decisions = report["hook_decisions"].as_array().expect("hook_decisions");
    assert_eq!(decisions.len(), 1, "{decisions:#?}");
    assert_eq!(decisions[0]["phase"], "before_execution");
    assert_eq!(decisions[0]["hook"], "no_tools");
    assert_eq!(decisions[0]["action"], "deny_tool");
    assert_eq!(report["turns"], json!([{"turn": 1, "outcome": "answered"}]));
}

#[test]
fn max_rounds_ends_a_turn_that_keeps_calling_tools_after_that_many_model_calls() {
    let (report, runs) = flow_ok("flow.yaml", "loop", &["--max-rounds", "2"]);
    assert_eq!(runs, 2, "one tool call per round");
    assert_eq!(
        report["turns"],
        json!([{"turn": 1, "outcome": "round_limit"}])
    );
    assert_eq!(report["totals"]["model_calls"], 2);
    assert_eq!(report["totals"]["tool_calls"], 2);
    assert_eq!(
        contents_of(&report, "assistant"),
        ["Round one.", "Round two."]
    );
}

#[test]
fn without_the_flag_the_prompts_max_rounds_limits_the_turn() {
    let (report, _) = flow_ok("flow.yaml", "loop", &[]);
    assert_eq!(
        report["turns"],
        json!([{"turn": 1, "outcome": "round_limit"}])
    );
    assert_eq!(report["totals"]["model_calls"], 5, "tool_policy.max_rounds");
}

/// The `greet` prompt, which needs the variable `customer`, told `hi`.
#[track_caller]
fn greet(extra: &[&str]) -> Outcome {
    let mut args = vec!["--message", "hi"];
    args.extend_from_slice(extra);
    play("flow.yaml", "flow.pack.json", "greet", &args, &[])
}

#[test]
fn a_missing_required_variable_is_exit_2_naming_it() {
    let out = greet(&["--format", "json"]);
    assert_eq!(out.code, 2, "{}", out.report());
    out.stderr_has("needs variable `customer`");
    assert_eq!(out.stdout, "", "no report for a run that never started");

    let out = greet(&["--var", "customer=Dana"]);
    assert_eq!(out.code, 0, "with the variable given: {}", out.report());
}

/// The assistant's answers to `a`, `b`, `c` with mock `file` and scenario `scenario`
/// (else the prompt id, `chat`).
#[track_caller]
fn mock_answers(file: &str, scenario: Option<&str>) -> Vec<String> {
    let mut args = vec!["--mock", file];
    if let Some(scenario) = scenario {
        args.extend(["--scenario", scenario]);
    }
    args.extend(["--message", "a", "--message", "b", "--message", "c"]);
    let (out, report) = play_json("flow.yaml", "flow.pack.json", "chat", &args, &[]);
    assert_eq!(out.code, 0, "{}", out.report());
    assert_eq!(report["scenario"], scenario.unwrap_or("chat"));
    contents_of(&report, "assistant")
        .into_iter()
        .map(String::from)
        .collect()
}

#[test]
fn the_mock_answers_by_scenario_turn_then_scenario_default_then_global_default() {
    assert_eq!(
        mock_answers("scripted.mock.yaml", Some("s")),
        [
            "scripted turn one",
            "scenario default",
            "scripted turn three"
        ]
    );
    assert_eq!(
        // Not a scenario of the file: a warning, and the defaults answer.
        mock_answers("scripted.mock.yaml", None),
        ["global default", "global default", "global default"]
    );
    assert_eq!(
        mock_answers("bare.mock.yaml", Some("s")),
        ["scripted turn one", "Mock response", "Mock response"]
    );
}

#[test]
fn a_failing_gate_eval_is_exit_1_and_a_junit_failure_of_the_eval_alone() {
    let answer = r#"{"score": 0.2, "detail": "too curt"}"#;
    let (out, report) = eval_json("gated", answer, "0");
    assert_eq!(out.code, 1, "{}", out.report());
    let eval = only_eval(&report);
    assert_eq!(eval["eval_id"], "quality");
    assert_eq!(eval["status"], "failed", "{eval:#}");
    assert_eq!(eval["passed"], false);
    assert_eq!(eval["score"], 0.2);
    assert_eq!(eval["turn"], 1);
    assert_eq!(report["totals"]["evals"]["failed"], 1);
    assert_eq!(report["turns"], json!([{"turn": 1, "outcome": "answered"}]));

    let out = play_eval("gated", "junit", answer, "0");
    assert_eq!(out.code, 1, "{}", out.report());
    let cases = one_suite_cases(&out.stdout);
    assert_eq!(cases.len(), 2, "{cases:#?}");
    let turn = junit_case(&cases, "turn 1");
    assert_eq!(turn.classname, "gated.turns");
    assert_eq!(turn.outcome, None, "{turn:#?}");
    let eval = junit_case(&cases, "quality (turn 1)");
    assert_eq!(eval.classname, "gated.evals");
    let failure = eval.message_of("failure").expect("a <failure> child");
    assert!(failure.contains("0.2"), "{failure}");
}

#[test]
fn an_eval_that_cannot_score_is_exit_3_and_a_junit_error() {
    for (what, answer, exit, says) in [
        ("crash", r#"{"score": 0.9}"#, "1", "exited with status 1"),
        ("out of range", r#"{"score": 1.7}"#, "0", "outside [0, 1]"),
        ("not a number", r#"{"score": "high"}"#, "0", "not a number"),
        ("nothing", "", "0", "empty output"),
    ] {
        let (out, report) = eval_json("gated", answer, exit);
        assert_eq!(out.code, 3, "{what}: {}", out.report());
        let eval = only_eval(&report);
        assert_eq!(eval["status"], "error", "{what}: {eval:#}");
        assert_eq!(eval["score"], Json::Null, "{what}");
        let error = eval["error"].as_str().unwrap_or_default();
        assert!(error.contains(says), "{what}: {error:?}");
        assert_eq!(report["totals"]["evals"]["error"], 1, "{what}");

        let out = play_eval("gated", "junit", answer, exit);
        assert_eq!(out.code, 3, "{what}: {}", out.report());
        let cases = one_suite_cases(&out.stdout);
        let turn = junit_case(&cases, "turn 1");
        assert_eq!(turn.outcome, None, "{what}");
        let eval = junit_case(&cases, "quality (turn 1)");
        let message = eval.message_of("error").expect("an <error> child");
        assert!(message.contains(says), "{what}: {message:?}");
    }
}

#[test]
fn a_measurement_with_a_low_score_does_not_fail_the_run() {
    let (out, report) = eval_json("measured", r#"{"score": 0.1}"#, "0");
    assert_eq!(out.code, 0, "{}", out.report());
    let eval = only_eval(&report);
    assert_eq!(eval["status"], "measured", "{eval:#}");
    assert_eq!(eval["score"], 0.1);
    assert_eq!(eval["passed"], Json::Null);
    assert_eq!(report["totals"]["evals"]["measured"], 1);

    let out = play_eval("measured", "junit", r#"{"score": 0.1}"#, "0");
    assert_eq!(out.code, 0, "{}", out.report());
    let cases = one_suite_cases(&out.stdout);
    let eval = junit_case(&cases, "quality (turn 1)");
    assert_eq!(eval.outcome, None, "{eval:#?}");
}
