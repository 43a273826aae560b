//! Guardrails as PromptKit enforces them: a validator with `direction: input` judges
//! the user's message before the model is called and answers in its place;
//! `pii_leakage` runs offline; PromptKit's default blocked text stands in when a
//! validator has no message; a validator with unusable params is a warning and is
//! skipped, while a type nobody knows stays an error.

use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};

use crate::fake_llm::FakeLlm;
use crate::util::{Outcome, contents_of, fixtures, promptexec};

/// PromptKit's `DefaultBlockedMessage`.
const DEFAULT_BLOCKED: &str =
    "Sorry, we can't provide this response as it would violate our content policy.";

const ROUTING: &str = "What's your bank's routing number?";

fn dir() -> PathBuf {
    fixtures().join("guardrails_input")
}

/// `run` of `pack` in the fixture folder with the mock config, one turn a message.
fn play(pack: &str, args: &[&str], messages: &[&str]) -> Outcome {
    let mut run = promptexec()
        .in_dir(dir())
        .args(["-c", "guard.yaml", "run", pack])
        .args(args);
    for message in messages {
        run = run.args(["--message", message]);
    }
    run.run()
}

/// The JSON report of a conversation with `prompt` of the fixture pack.
fn conversation(prompt: &str, messages: &[&str]) -> Json {
    let out = play(
        "guard.pack.json",
        &["--prompt", prompt, "--format", "json"],
        messages,
    );
    out.expect_code(0);
    out.json_report()
}

/// The report's guardrail events as (validator, direction, enforced, turn).
fn firings(report: &Json) -> Vec<(String, String, String, u64)> {
    report["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["event"] == "guardrail")
        .map(|e| {
            let text = |key: &str| e[key].as_str().unwrap_or_default().to_string();
            (
                text("validator"),
                text("direction"),
                text("enforced"),
                e["turn"].as_u64().unwrap_or_default(),
            )
        })
        .collect()
}

#[test]
fn an_input_guardrail_answers_in_the_model_s_place_and_the_model_is_not_called() {
    let report = conversation("chat", &[ROUTING, "What is the capital of France?"]);
    assert_eq!(
        report["totals"]["model_calls"], 1,
        "only the second turn reached the model: {report:#}"
    );
    // The mock answers by call number: had the first turn called it, the second
    // would have its second answer.
    assert_eq!(
        contents_of(&report, "assistant"),
        [
            "I can't help with bank routing numbers.",
            "Paris is the capital of France."
        ]
    );
    let first = &report["messages"][1];
    assert_eq!(first["finish_reason"], "safety", "{first}");
    assert_eq!(
        contents_of(&report, "user"),
        [
            "[message withheld by guardrail `regex`]",
            "What is the capital of France?"
        ],
        "the blocked message is withheld from the history"
    );
    assert_eq!(
        firings(&report),
        [("regex".into(), "input".into(), "blocked".into(), 1)]
    );
    assert_eq!(
        report["turns"],
        json!([{"turn": 1, "outcome": "answered"}, {"turn": 2, "outcome": "answered"}])
    );
}

/// A config in `dir` whose provider `fake` is the model server at `url`.
fn fake_config(dir: &Path, url: &str) -> PathBuf {
    let text = format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: RuntimeConfig
spec:
  providers:
    - id: fake
      type: openai
      model: fake-model
      base_url: {url}
      credential: {{ credential_env: FAKE_LLM_KEY }}
      request_timeout: 20s
"
    );
    let path = dir.join("fake.yaml");
    std::fs::write(&path, text).expect("config written");
    path
}

#[test]
fn the_model_server_s_request_log_shows_no_request_for_a_blocked_message() {
    let temp = tempfile::tempdir().expect("temp dir");
    let llm = FakeLlm::start(&json!([
        {"reply": {"content": "Paris.", "usage": {"input": 10, "output": 2}}},
        {"reply": {"content": "A second request was made.", "usage": {"input": 10, "output": 2}}},
    ]));
    let config = fake_config(temp.path(), &llm.base_url());
    let out = promptexec()
        .in_dir(dir())
        .env("FAKE_LLM_KEY", "sk-test-key")
        .arg("-c")
        .arg(&config)
        .args([
            "run",
            "guard.pack.json",
            "--prompt",
            "chat",
            "--format",
            "json",
        ])
        .args(["--message", ROUTING])
        .args(["--message", "What is the capital of France?"])
        .run();
    out.expect_code(0);
    let requests = llm.requests();
    assert_eq!(
        requests.len(),
        1,
        "one request, for the second turn: {requests:#?}"
    );
    let sent = requests[0]["body"]["messages"].to_string();
    assert!(
        !sent.contains("bank's routing number"),
        "the blocked message never reaches the model: {sent}"
    );
    assert!(sent.contains("What is the capital of France?"), "{sent}");
    assert!(
        sent.contains("I can't help with bank routing numbers."),
        "the turn's answer stays in the history: {sent}"
    );
    let report = out.json_report();
    assert_eq!(
        contents_of(&report, "assistant"),
        ["I can't help with bank routing numbers.", "Paris."]
    );
}

#[test]
fn pii_leakage_replaces_an_answer_that_holds_an_email_or_a_social_security_number() {
    let report = conversation("private", &["How do I reach support?"]);
    assert_eq!(report["totals"]["model_calls"], 1, "{report:#}");
    assert_eq!(
        contents_of(&report, "assistant"),
        ["I can't share contact details."]
    );
    assert_eq!(report["messages"][1]["finish_reason"], "safety");
    assert_eq!(
        firings(&report),
        [("pii_leakage".into(), "output".into(), "replaced".into(), 1)]
    );
    let event = report["events"]
        .as_array()
        .and_then(|events| events.iter().find(|e| e["event"] == "guardrail"))
        .expect("a guardrail event");
    assert!(
        event["detail"]
            .as_str()
            .is_some_and(|d| d.contains("email address")),
        "{event}"
    );

    let report = conversation("plain", &["What's her number?"]);
    assert_eq!(contents_of(&report, "assistant"), [DEFAULT_BLOCKED]);
}

#[test]
fn the_default_blocked_text_answers_a_message_an_input_guardrail_without_a_message_blocks() {
    let report = conversation(
        "private",
        &["Reach me at me@home.example.org", "How fast do you answer?"],
    );
    assert_eq!(
        report["totals"]["model_calls"], 1,
        "only the second turn reached the model: {report:#}"
    );
    let answers = contents_of(&report, "assistant");
    assert_eq!(answers[0], DEFAULT_BLOCKED);
    assert_eq!(
        firings(&report)[0],
        ("pii_leakage".into(), "input".into(), "blocked".into(), 1)
    );
    // The second turn's answer is the mock's first: an email the output guardrail
    // replaces.
    assert_eq!(answers[1], "I can't share contact details.");
}

const UNUSABLE: &str = "unusable.pack.json:12:9: warning: /prompts/chat/validators/0: `length` needs `max` (characters) or `max_tokens`; the guardrail is skipped";

#[test]
fn a_validator_with_unusable_params_is_warned_about_and_skipped_and_fatal_under_strict() {
    let args = ["--scenario", "unusable", "--format", "json"];
    let out = play("unusable.pack.json", &args, &["Refund?"]);
    out.expect_code(0).stderr_has(UNUSABLE);
    let report = out.json_report();
    assert_eq!(
        contents_of(&report, "assistant"),
        ["I can't promise that."],
        "the usable guardrail still runs"
    );
    assert_eq!(
        firings(&report),
        [("banned_words".into(), "output".into(), "replaced".into(), 1)]
    );

    let strict = ["--scenario", "unusable", "--strict"];
    play("unusable.pack.json", &strict, &["Refund?"])
        .expect_code(2)
        .stderr_has(UNUSABLE)
        .stderr_has("--strict");
}

/// `validate` of the fixture pack with `from` replaced by `to`.
fn validate_changed(from: &str, to: &str) -> Outcome {
    let pack = std::fs::read_to_string(dir().join("guard.pack.json")).expect("the pack");
    let changed = pack.replacen(from, to, 1);
    assert_ne!(changed, pack, "{from} is in the pack");
    let temp = tempfile::tempdir().expect("temp dir");
    promptexec()
        .in_dir(temp.path())
        .file("x.pack.json", changed)
        .args(["validate", "--pack", "x.pack.json"])
        .run()
}

#[test]
fn an_unknown_validator_type_stays_an_error() {
    validate_changed(
        r#"{ "type": "pii_leakage" }"#,
        r#"{ "type": "pii_leakge" }"#,
    )
    .expect_code(2)
    .stderr_has("x.pack.json:42:19: /prompts/plain/validators/0: `pii_leakge` is not a check promptexec can run as a guardrail; did you mean `pii_leakage`?");
}

#[test]
fn a_direction_nobody_knows_is_a_warning_that_says_what_is_judged() {
    validate_changed(r#""direction": "input","#, r#""direction": "inpt","#)
        .expect_code(0)
        .stderr_has(r#"x.pack.json:20:13: warning: /prompts/chat/validators/0/params/direction: "inpt" is not `input`, `output` or `both`, so the guardrail judges the model's answers (`output`); did you mean `input`?"#);
}

#[test]
fn a_param_a_check_does_not_take_is_a_warning_and_the_guardrail_still_runs() {
    let pack = std::fs::read_to_string(dir().join("guard.pack.json")).expect("the pack");
    let changed = pack.replacen(
        r#""expect_match": false,"#,
        r#""expect_match": false, "flags": "i","#,
        1,
    );
    assert_ne!(changed, pack);
    let temp = tempfile::tempdir().expect("temp dir");
    let out = promptexec()
        .in_dir(temp.path())
        .file("x.pack.json", changed)
        .arg("-c")
        .arg(dir().join("guard.yaml"))
        .args(["run", "x.pack.json", "--prompt", "chat", "--format", "json"])
        .args(["--message", ROUTING])
        .run();
    out.expect_code(0)
        .stderr_has("x.pack.json:19:36: warning: /prompts/chat/validators/0/params: `regex` takes no param `flags`");
    let report = out.json_report();
    assert_eq!(
        contents_of(&report, "assistant"),
        ["I can't help with bank routing numbers."]
    );
    assert_eq!(report["totals"]["model_calls"], 0);

    validate_changed(
        r#"{ "type": "pii_leakage", "params": { "direction": "input" } }"#,
        r#"{ "type": "pii_leakage", "params": { "direction": "input", "rubric": "strict" } }"#,
    )
    .expect_code(0)
    .stderr_has("/prompts/private/validators/0/params/rubric is for PromptKit's model judge; promptexec runs the offline pre-pass only; it is not applied");
}

#[test]
fn a_scenario_asserts_an_input_guardrail_fired_and_its_answer() {
    let out = promptexec()
        .in_dir(dir())
        .args([
            "-c",
            "guard.yaml",
            "run",
            "guard.pack.json",
            "--format",
            "json",
        ])
        .run();
    out.expect_code(0);
    let report = out.json_report();
    let summary = &report["summary"];
    assert_eq!(
        (&summary["passed"], &summary["model"]["calls"]),
        (&json!(1), &json!(1)),
        "the scenario passes and only its second turn reached the model: {report:#}"
    );
}
