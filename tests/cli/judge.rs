//! Judge assertions answered by mock judges: the verdict a judge's script gives
//! decides the assertion, a judge that answers no verdict is an eval error, and
//! the RAG family is judged the same way.

use serde_json::Value as Json;

use crate::util::{Invocation, fixtures, promptexec};

/// `run` of the judge fixtures' pack and config on the scenarios named, as JSON.
fn judged(scenarios: &[&str]) -> Invocation {
    let mut run = promptexec().in_dir(fixtures().join("judge")).args([
        "-c",
        "judge.yaml",
        "run",
        "judge.pack.json",
        "--format",
        "json",
    ]);
    for id in scenarios {
        run = run.arg(format!("scenarios/{id}.scenario.yaml"));
    }
    run
}

fn scenario<'j>(report: &'j Json, id: &str) -> &'j Json {
    report["scenarios"]
        .as_array()
        .and_then(|all| all.iter().find(|s| s["id"] == id))
        .unwrap_or_else(|| panic!("no scenario `{id}` in {report:#}"))
}

/// Each assertion's id, outcome and detail.
fn verdicts(scenario: &Json) -> Vec<(String, String, String)> {
    scenario["assertions"]
        .as_array()
        .expect("assertions")
        .iter()
        .map(|a| {
            let text = |key: &str| a[key].as_str().unwrap_or_default().to_string();
            (text("id"), text("outcome"), text("detail"))
        })
        .collect()
}

/// The eval results of a scenario's first trial.
fn evals(scenario: &Json) -> Vec<Json> {
    scenario["trials"][0]["evals"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("no evals in {scenario:#}"))
}

#[test]
fn an_approving_judge_passes_the_turn_and_the_conversation() {
    let out = judged(&["reset-helpful", "own-judge"]).run();
    out.expect_code(0);
    let report = out.json_report();
    let helpful = scenario(&report, "reset-helpful");
    assert_eq!(
        verdicts(helpful),
        [
            ("turn-1.1".into(), "passed".into(), String::new()),
            ("conversation.1".into(), "passed".into(), String::new()),
        ],
        "{helpful:#}"
    );
    let results = evals(helpful);
    let turn = results
        .iter()
        .find(|e| e["eval_id"] == "turn-1.1")
        .expect("the turn's eval");
    assert_eq!(turn["type"], "llm_judge");
    assert_eq!(turn["score"], 0.92);
    assert_eq!(
        turn["explanation"],
        "Clear, actionable steps grounded in what was asked."
    );
    assert_eq!(turn["details"]["judge"], "approving-judge");
    assert_eq!(turn["details"]["model"], "judge-model");
    // With no judge named, the provider that plays the scenario judges it.
    let own = scenario(&report, "own-judge");
    assert_eq!(verdicts(own)[0].1, "passed", "{own:#}");
    assert_eq!(evals(own)[0]["details"]["judge"], "assistant");
    assert_eq!(evals(own)[0]["score"], 0.85);
}

#[test]
fn a_doubting_judge_fails_the_assertion_with_its_reasoning() {
    let out = promptexec()
        .in_dir(fixtures().join("judge"))
        .args(["-c", "judge.yaml", "run", "judge.pack.json"])
        .arg("scenarios/reset-doubted.scenario.yaml")
        .run();
    out.expect_code(1);
    out.stderr_has("turn 1 · assertion: the answer is helpful");
    out.stderr_has("Vague: no concrete steps.");
    let report = judged(&["reset-doubted"]).run();
    report.expect_code(1);
    let doubted = report.json_report();
    let results = evals(scenario(&doubted, "reset-doubted"));
    assert_eq!(results[0]["status"], "failed");
    assert_eq!(results[0]["score"], 0.3);
}

#[test]
fn a_judge_that_answers_no_verdict_is_an_eval_error_not_a_pass() {
    let out = judged(&["reset-rambled"]).run();
    // A judge that fails is an extension failure, as an exec eval's crash is.
    out.expect_code(3);
    let report = out.json_report();
    let rambled = scenario(&report, "reset-rambled");
    let (_, outcome, detail) = &verdicts(rambled)[0];
    assert_eq!(outcome, "error", "{rambled:#}");
    assert_eq!(
        detail,
        "`llm_judge`: judge `rambling-judge` answered no JSON object: `I think the answer is rather good, all things considered.`"
    );
    assert_eq!(evals(rambled)[0]["status"], "error");
}

#[test]
fn faithfulness_is_judged_against_the_retrieved_passages() {
    let out = judged(&["paris-grounded"]).run();
    out.expect_code(0);
    let report = out.json_report();
    let grounded = scenario(&report, "paris-grounded");
    assert_eq!(verdicts(grounded)[0].1, "passed", "{grounded:#}");
    assert_eq!(evals(grounded)[0]["type"], "faithfulness");
    let out = judged(&["paris-ungrounded"]).run();
    out.expect_code(1);
    let report = out.json_report();
    let ungrounded = scenario(&report, "paris-ungrounded");
    assert_eq!(verdicts(ungrounded)[0].1, "failed", "{ungrounded:#}");
}

#[test]
fn a_judge_the_run_lacks_or_a_threshold_on_the_judge_is_said() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let head = "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nmetadata:\n  name: x\nspec:\n  task_type: support\n  description: x\n  providers: [assistant]\n  turns:\n    - role: user\n      content: hi\n      assertions:\n";
    let config = fixtures().join("judge/judge.yaml");
    let pack = fixtures().join("judge/judge.pack.json");
    let run = |assertion: &str| {
        promptexec()
            .in_dir(dir.path())
            .arg("-c")
            .arg(&config)
            .arg("run")
            .arg(&pack)
            .file("x.scenario.yaml", format!("{head}{assertion}"))
            .arg("x.scenario.yaml")
            .run()
    };
    let unknown =
        run("        - { type: llm_judge, params: { criteria: kind, judge: aproving-judge } }\n");
    unknown.expect_code(3);
    unknown.stderr_has("no judge `aproving-judge`");
    unknown.stderr_has("did you mean `approving-judge`?");
    let threshold =
        run("        - { type: faithfulness, params: { contexts: [a], min_score: 0.8 } }\n");
    threshold.expect_code(2);
    threshold.stderr_has(
        "`faithfulness` takes no `min_score`: a judge only scores; wrap it in `type: assertion`",
    );
}

/// A config in `dir` whose judge `api-judge` is an OpenAI-style API at `url`.
fn api_judge_config(dir: &std::path::Path, url: &str) {
    let mock = fixtures().join("judge/assistant.mock.yaml");
    let text = format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  providers:\n    - id: assistant\n      type: mock\n      additional_config:\n        mock_config: {}\n    - id: api-judge\n      type: openai\n      model: judge-large\n      base_url: {url}\n      credential: {{ credential_env: JUDGE_KEY }}\n      request_timeout: 5s\n",
        mock.display()
    );
    std::fs::write(dir.join("judge.yaml"), text).expect("config written");
}

/// `run` of the faithfulness scenario against the config in `dir`, its judge renamed.
fn run_with_api_judge(dir: &std::path::Path) -> crate::util::Outcome {
    let scenario =
        std::fs::read_to_string(fixtures().join("judge/scenarios/paris-grounded.scenario.yaml"))
            .expect("the fixture scenario")
            .replace("judge: approving-judge", "judge: api-judge");
    promptexec()
        .in_dir(dir)
        .env("JUDGE_KEY", "sk-test")
        .args(["-c", "judge.yaml", "run", "--format", "json"])
        .arg(fixtures().join("judge/judge.pack.json"))
        .file("paris-grounded.scenario.yaml", scenario)
        .arg("paris-grounded.scenario.yaml")
        .run()
}

#[test]
fn a_judge_behind_a_model_api_gets_the_request_promptkit_sends_or_is_unreachable() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut llm = crate::fake_llm::FakeLlm::start(&serde_json::json!([
        {"reply": {"content": "{\"passed\": true, \"score\": 1.0, \"reasoning\": \"Every claim is in the context.\"}"}}
    ]));
    api_judge_config(dir.path(), &llm.base_url());
    let out = run_with_api_judge(dir.path());
    out.expect_code(0);
    let report = out.json_report();
    let result = &evals(scenario(&report, "paris-grounded"))[0];
    assert_eq!(result["score"], 1.0, "{result:#}");
    assert_eq!(result["details"]["judge"], "api-judge");
    let requests = llm.requests();
    assert_eq!(requests.len(), 1, "one judge call: {requests:#?}");
    let body = &requests[0]["body"];
    assert_eq!(body["model"], "judge-large");
    let messages = body["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 2, "{body:#}");
    assert_eq!(messages[0]["role"], "system");
    assert!(
        messages[0]["content"]
            .as_str()
            .is_some_and(|s| s.starts_with("You judge faithfulness.")),
        "{body:#}"
    );
    assert_eq!(messages[1]["role"], "user");
    assert_eq!(
        messages[1]["content"],
        "Content to evaluate:\nCONTEXT:\n[chunk 1] Paris is the capital and most populous city of France.\n[chunk 2] Located on the Seine River in north-central France.\n\nANSWER:\nParis is the capital of France.\n\nCriteria: How faithful is the ANSWER to the CONTEXT?"
    );
    // With the API gone, the judge is unreachable: an eval error, never a pass.
    llm.stop();
    let out = run_with_api_judge(dir.path());
    out.expect_code(3);
    let report = out.json_report();
    let (_, outcome, detail) = &verdicts(scenario(&report, "paris-grounded"))[0];
    assert_eq!(outcome, "error");
    assert!(
        detail.starts_with("`faithfulness`: judge `api-judge` is unreachable: "),
        "{detail}"
    );
}
