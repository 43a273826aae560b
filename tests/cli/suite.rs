//! `run PACK` with no message: suites of scenario files, played at once, sharded,
//! judged by assertions, guardrails, consent answers and injected failures.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::util::{Invocation, fixtures, promptexec, repo_root, run_all};

pub(crate) fn suite_dir() -> PathBuf {
    fixtures().join("suite")
}

/// `run` on the fixture pack and config, from `dir`, with more arguments.
pub(crate) fn suite_in(dir: &Path) -> Invocation {
    let fixtures = suite_dir();
    promptexec().in_dir(dir).args([
        "-c".into(),
        fixtures.join("suite.yaml").into_os_string(),
        "run".into(),
        fixtures.join("suite.pack.json").into_os_string(),
    ])
}

pub(crate) fn suite() -> Invocation {
    suite_in(&suite_dir())
}

/// A scenario file of the fixture pack: the head, then `spec` lines after it.
pub(crate) fn scenario(id: &str, task_type: &str, spec: &str) -> String {
    format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nmetadata:\n  name: {id}\nspec:\n  task_type: {task_type}\n  description: {id}\n{spec}"
    )
}

/// `run` of one scenario file, `x.scenario.yaml`, written into `dir`.
pub(crate) fn one_scenario(dir: &Path, id: &str, task_type: &str, spec: &str) -> Invocation {
    suite_in(dir)
        .file("x.scenario.yaml", scenario(id, task_type, spec))
        .arg("x.scenario.yaml")
}

pub(crate) fn scenario_record<'j>(report: &'j Json, id: &str) -> &'j Json {
    report["scenarios"]
        .as_array()
        .and_then(|all| all.iter().find(|s| s["id"] == id))
        .unwrap_or_else(|| panic!("no scenario `{id}` in {report:#}"))
}

pub(crate) fn ids(report: &Json) -> Vec<String> {
    report["index"]
        .as_array()
        .map(|all| {
            all.iter()
                .map(|s| s["id"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_fixture_suite_passes_every_family_with_consent_guardrails_and_fresh_processes() {
    let out = suite().args(["-j", "4", "--format", "json"]).run();
    out.expect_code(0);
    let report = out.json();
    assert_eq!(report["summary"]["scenarios"], 8, "{report:#}");
    assert_eq!(report["summary"]["passed"], 8);
    let families = scenario_record(&report, "echo-ping");
    let verdicts = families["assertions"].as_array().expect("assertions");
    assert_eq!(verdicts.len(), 23);
    assert!(
        verdicts.iter().all(|v| v["outcome"] == "passed"),
        "{verdicts:#?}"
    );
    let skipped: Vec<&Json> = verdicts.iter().filter(|v| v["skipped"] == true).collect();
    assert_eq!(
        skipped.len(),
        1,
        "the `when` that does not hold skips: {skipped:?}"
    );
    // Every counter scenario saw a counter process of its own, which answered 1.
    for id in ["count-a", "count-b", "count-c", "count-d"] {
        let trial = &scenario_record(&report, id)["trials"][0];
        assert_eq!(trial["tool_calls"][0]["content"], r#"{"count":1}"#, "{id}");
    }
    // Consent answers decide the pending calls, turn by turn.
    let consent = &scenario_record(&report, "refund-consent")["trials"][0];
    let decisions: Vec<(bool, &str, &str)> = consent["decisions"]
        .as_array()
        .expect("decisions")
        .iter()
        .filter(|d| d["event"] == "decision")
        .map(|d| {
            (
                d["approved"].as_bool().unwrap_or_default(),
                d["by"].as_str().unwrap_or_default(),
                d["note"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        decisions,
        [
            (true, "consent_overrides", "consent granted"),
            (false, "consent_overrides", "consent denied"),
            (false, "consent_overrides", "no consent before the timeout"),
        ]
    );
    // Guardrails replaced the first answer and cut the second; the third stands.
    let guarded = &scenario_record(&report, "guarded")["trials"][0];
    let answers: Vec<&str> = guarded["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["event"] == "assistant")
        .map(|e| e["content"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        answers,
        [
            "I can't promise that.",
            "This answer is far too long for the guar",
            "Short and fine."
        ]
    );
    let fired: Vec<(&str, &str)> = guarded["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["event"] == "guardrail")
        .map(|e| {
            (
                e["validator"].as_str().unwrap_or_default(),
                e["enforced"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        fired,
        [("banned_words", "replaced"), ("length", "truncated")]
    );
}

#[test]
fn each_assertion_family_fails_with_its_message_when_it_does_not_hold() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let spec = r#"  turns:
    - role: user
      content: "Say ping."
      assertions:
        - { type: content_includes, params: { patterns: [pong] }, message: "content fails" }
        - { type: is_valid_json, message: "json fails" }
        - { type: tools_called, params: { tools: [counter] }, message: "tools fail" }
        - { type: hook_decision, params: { hook: deny_delete, action: deny }, message: "hooks fail" }
        - { type: latency_budget, params: { max_ms: 1 }, message: "latency fails" }
        - type: assertion
          params: { eval_type: contains, eval_params: { patterns: [ping, pong] }, min_score: 0.9 }
          message: "the wrapper fails"
        - { type: content_includes, params: { patterns: [ping] }, message: "this one passes" }
  conversation_assertions:
    - { type: tools_not_called_session, params: { tools: [echo] }, message: "the conversation fails" }
"#;
    let out = suite_in(dir.path())
        .file(
            "echo-ping.scenario.yaml",
            scenario("echo-ping", "main", spec),
        )
        .arg("echo-ping.scenario.yaml")
        .run();
    out.expect_code(1);
    for message in [
        "turn 1 · content_includes: content fails — 0 of 1 patterns appear; missing: pong",
        "turn 1 · is_valid_json: json fails",
        "turn 1 · tools_called: tools fail — not called",
        "turn 1 · hook_decision: hooks fail — expected `deny`: hook `deny_delete` let everything through",
        "turn 1 · latency_budget: latency fails",
        "turn 1 · assertion: the wrapper fails",
        "conversation · tools_not_called_session: the conversation fails — called: echo",
    ] {
        out.stderr_has(message);
    }
    out.stderr_lacks("this one passes");
}

#[test]
fn the_bundled_suite_passes_and_a_wrong_expectation_fails_with_its_message() {
    let out = promptexec()
        .in_dir(repo_root())
        .args([
            "run",
            "examples/assistant.pack.json",
            "-c",
            "runtimeconfig.example.yaml",
            "--format",
            "junit",
        ])
        .run();
    out.expect_code(0);
    let suites = out.stdout.matches("<testsuite ").count();
    assert_eq!(suites, 5, "one testsuite per scenario:\n{}", out.stdout);
    for id in [
        "delayed-order",
        "catalogue-cleanup",
        "large-refund",
        "lookup-outage",
        "store-hours",
    ] {
        assert!(
            out.stdout.contains(&format!(r#"<testsuite name="{id}""#)),
            "{id}"
        );
    }
    // The same scenario, expecting the wrong tool.
    let dir = tempfile::tempdir().expect("a temp dir");
    let original =
        std::fs::read_to_string(repo_root().join("examples/scenarios/delayed-order.scenario.yaml"))
            .expect("the bundled scenario");
    let edited = original.replace(
        "params: { tools: [lookup_order, db_query] }",
        "params: { tools: [refund_order] }",
    );
    assert_ne!(edited, original);
    let copy = dir.path().join("delayed-order.scenario.yaml");
    std::fs::write(&copy, edited).expect("written");
    let out = promptexec()
        .in_dir(repo_root())
        .args([
            "run",
            "examples/assistant.pack.json",
            "-c",
            "runtimeconfig.example.yaml",
        ])
        .arg(&copy)
        .run();
    out.expect_code(1);
    out.stderr_has("FAIL  delayed-order");
    out.stderr_has(
        "The order and the stock are both looked up — not called (at least 1 times): refund_order",
    );
}

/// A scenario of `trials` trials whose four echo calls each fail with probability
/// one in five, and whose one assertion needs `threshold` of the trials free of errors.
fn flaky(trials: u32, threshold: f64) -> String {
    let turn = |text: &str| {
        format!(
            "    - role: user\n      content: \"{text}\"\n      chaos:\n        tool_failures:\n          - {{ tool: echo, mode: error, probability: 0.2 }}\n"
        )
    };
    let turns: String = ["one", "two", "three", "four"]
        .iter()
        .map(|t| turn(t))
        .collect();
    format!(
        "{}  trials: {trials}\n  turns:\n{turns}  conversation_assertions:\n    - {{ type: no_tool_errors, pass_threshold: {threshold}, message: \"no errors\" }}\n",
        scenario("flaky-echo", "main", "").trim_end().to_string() + "\n"
    )
}

#[test]
fn injected_failures_are_seeded_and_trials_fold_by_pass_threshold() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let statuses = |report: &Json| -> Vec<Vec<String>> {
        scenario_record(report, "flaky-echo")["trials"]
            .as_array()
            .expect("trials")
            .iter()
            .map(|trial| {
                trial["tool_calls"]
                    .as_array()
                    .expect("calls")
                    .iter()
                    .map(|c| c["status"].as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .collect()
    };
    let run = |threshold: f64| {
        suite_in(dir.path())
            .file("flaky.scenario.yaml", flaky(10, threshold))
            .args(["flaky.scenario.yaml", "--format", "json"])
            .run()
    };
    // Two runs at once, each from a folder of its own.
    let other = tempfile::tempdir().expect("a temp dir");
    let outs = run_all(
        [dir.path(), other.path()]
            .into_iter()
            .map(|at| {
                suite_in(at)
                    .file("flaky.scenario.yaml", flaky(10, 0.01))
                    .args(["flaky.scenario.yaml", "--format", "json"])
            })
            .collect(),
    );
    let (first, second) = (statuses(&outs[0].json()), statuses(&outs[1].json()));
    assert_eq!(first, second, "the same calls fail on every run");
    let all: Vec<&String> = first.iter().flatten().collect();
    assert_eq!(all.len(), 40);
    assert!(
        all.iter().any(|s| *s == "ok") && all.iter().any(|s| *s == "error"),
        "{all:?}"
    );
    // Trials differ from each other: their seeds do.
    assert!(first.windows(2).any(|w| w[0] != w[1]), "{first:?}");
    let clean = first.iter().filter(|t| t.iter().all(|s| s == "ok")).count();
    assert!(clean > 0 && clean < 10, "{clean} clean trials of 10");
    outs[0].expect_code(0);
    // A threshold above the clean share fails, and says by how much.
    let strict = run(1.0);
    strict.expect_code(1);
    strict.stderr_has(&format!(
        "no errors (passed {clean} of 10 trials, needs 100%)"
    ));
    let lenient = run(clean as f64 / 10.0);
    lenient.expect_code(0);
}

#[test]
fn injected_timeouts_answer_at_once_and_slow_calls_run_late() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let spec = r#"  turns:
    - role: user
      content: "Say ping."
      chaos:
        tool_failures:
          - { tool: echo, mode: timeout }
      assertions:
        - { type: tool_call_count, params: { tool: echo, min: 1, max: 1 } }
"#;
    let slow = r#"  turns:
    - role: user
      content: "Say ping."
      chaos:
        tool_failures:
          - { tool: echo, mode: slow }
      assertions:
        - { type: tool_result_includes, params: { tool: echo, patterns: [ping] } }
"#;
    let out = suite_in(dir.path())
        .file("timeout.scenario.yaml", scenario("echo-ping", "main", spec))
        .file("slow.scenario.yaml", scenario("slow-echo", "main", slow))
        .args([
            "timeout.scenario.yaml",
            "slow.scenario.yaml",
            "--format",
            "json",
        ])
        .run();
    out.expect_code(0);
    let report = out.json();
    let call = &scenario_record(&report, "echo-ping")["trials"][0]["tool_calls"][0];
    assert_eq!(call["status"], "error");
    assert_eq!(call["content"], "tool `echo` timed out (injected failure)");
    assert_eq!(call["duration_ms"], 0);
    let slow = &scenario_record(&report, "slow-echo")["trials"][0];
    assert_eq!(slow["tool_calls"][0]["status"], "ok");
    let injected = slow["events"]
        .as_array()
        .expect("events")
        .iter()
        .find(|e| e["event"] == "injected")
        .expect("the slow call is recorded");
    assert_eq!(injected["mode"], "slow");
    assert!(slow["totals"]["duration_ms"].as_u64().unwrap_or_default() >= 2000);
}

#[test]
fn filters_and_shards_pick_scenarios_and_shards_cover_the_suite_once() {
    let mut invocations = vec![
        suite().args(["--filter", "count-", "--format", "json"]),
        suite().args([
            "--filter",
            "family=all",
            "--filter",
            "guarded",
            "--format",
            "json",
        ]),
        suite().args(["--format", "json"]),
    ];
    for k in 1..=3 {
        invocations.push(suite().args(["--shard", &format!("{k}/3"), "--format", "json"]));
    }
    let outs = run_all(invocations);
    assert_eq!(
        ids(&outs[0].json()),
        ["count-a", "count-b", "count-c", "count-d"]
    );
    assert_eq!(ids(&outs[1].json()), ["echo-ping", "guarded"]);
    let whole: BTreeSet<String> = ids(&outs[2].json()).into_iter().collect();
    let mut union = Vec::new();
    for out in &outs[3..] {
        out.expect_code(0);
        let report = out.json();
        assert!(report["shard"].is_string());
        union.extend(ids(&report));
    }
    let count = union.len();
    let union: BTreeSet<String> = union.into_iter().collect();
    assert_eq!(count, union.len(), "no scenario is in two shards");
    assert_eq!(union, whole);
    suite()
        .args(["--filter", "count-a", "--filter", "cuont-b"])
        .run()
        .expect_code(2)
        .stderr_has("--filter cuont-b matches no scenario")
        .stderr_has("did you mean `count-b`?");
    let empty = suite().args(["--shard", "9/9"]).run();
    empty.expect_code(0);
    empty.stderr_has("--shard 9/9: this shard holds no scenario (the suite has 8)");
    suite()
        .args(["--shard", "9/9", "--strict"])
        .run()
        .expect_code(2);
    suite()
        .args(["--shard", "4/3"])
        .run()
        .expect_code(2)
        .stderr_has("is not K/N");
}

#[test]
fn fail_fast_starts_nothing_after_a_failure() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let failing = r#"  turns:
    - role: user
      content: "Say ping."
      assertions:
        - { type: content_includes, params: { patterns: [pong] } }
"#;
    let out = suite_in(dir.path())
        .file("a.scenario.yaml", scenario("a-fails", "main", failing))
        .file("b.scenario.yaml", scenario("b-never", "main", failing))
        .args([".", "-j", "1", "--fail-fast", "--format", "json"])
        .run();
    out.expect_code(1);
    let report = out.json();
    assert_eq!(ids(&report), ["a-fails"]);
    assert_eq!(
        report["summary"]["not_started"],
        serde_json::json!(["b-never"])
    );
    assert_eq!(report["summary"]["scenarios"], 2);
}

#[test]
fn bad_scenarios_are_bad_input_with_their_place_and_a_suggestion() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let unknown_type = r#"  turns:
    - role: user
      content: "Hi."
      assertions:
        - { type: tools_caled, params: { tools: [echo] } }
"#;
    let out = one_scenario(dir.path(), "x", "main", unknown_type).run();
    out.expect_code(2);
    out.stderr_has("x.scenario.yaml:12:11: assertion type `tools_caled` is neither");
    out.stderr_has("did you mean `tools_called`?");
    let unknown_param = unknown_type.replace(
        "tools_caled, params: { tools:",
        "tools_not_called, params: { tool:",
    );
    let out = one_scenario(dir.path(), "x", "main", &unknown_param).run();
    out.expect_code(2);
    out.stderr_has("`tools_not_called` takes no param `tool`");
    // `tools_called` with no tool named fails when it runs, as PromptKit scores it;
    // the misspelt key is still placed and named.
    let unread = unknown_type.replace(
        "tools_caled, params: { tools:",
        "tools_called, params: { tool:",
    );
    one_scenario(dir.path(), "x", "main", &unread)
        .run()
        .expect_code(1)
        .stderr_has("x.scenario.yaml:12:43: warning: /spec/turns/0/assertions/0/params: `tools_called` takes no param `tool`; did you mean `tools`?")
        .stderr_has("no tool named: give `tool_names`, a non-empty list");
    // A type that needs a real model is not bad input: it is skipped, and the
    // scenario is partial.
    let model_only = unknown_type.replace("tools_caled, params: { tools: [echo] }", "rest_eval");
    one_scenario(dir.path(), "x", "main", &model_only)
        .run()
        .expect_code(0)
        .stderr_has("PARTIAL x")
        .stderr_has("`rest_eval` needs a real model");
    let misspelt = "  turns:\n    - role: user\n      contents: \"Hi.\"\n";
    one_scenario(dir.path(), "x", "main", misspelt)
        .run()
        .expect_code(2)
        .stderr_has("x.scenario.yaml:10:7: unknown key `contents` in /spec/turns/0; did you mean `content`?");
    let no_prompt = "  turns:\n    - role: user\n      content: \"Hi.\"\n";
    one_scenario(dir.path(), "x", "mian", no_prompt)
        .run()
        .expect_code(2)
        .stderr_has("x.scenario.yaml:6:14: /spec/task_type: `mian` is not a prompt")
        .stderr_has("did you mean `main`?");
}
