//! Model sessions recorded once and replayed with no server and no key: a conversation,
//! a suite, and a PromptKit recording driving a scenario.

use std::path::Path;

use serde_json::{Value as Json, json};

use crate::fake_llm::FakeLlm;
use crate::providers::{config, conversation, delete_then_hi, run_in};
use crate::util::{Outcome, fixtures, promptexec, repo_root};

/// The parts of a JSON report a replay must reproduce: tool calls, hook decisions
/// and eval results, without their timings.
fn outcome(report: &Json) -> Json {
    let strip = |list: &Json, keys: &[&str]| -> Vec<Json> {
        list.as_array()
            .expect("a list")
            .iter()
            .map(|item| {
                let mut item = item.clone();
                for key in keys {
                    item.as_object_mut().map(|o| o.remove(*key));
                }
                item
            })
            .collect()
    };
    json!({
        "tool_calls": strip(&report["tool_calls"], &["duration_ms"]),
        "hook_decisions": report["hook_decisions"],
        "evals": strip(&report["evals"], &["duration_ms"]),
        "messages": report["messages"],
    })
}

#[test]
fn a_recorded_conversation_replays_with_no_server_and_a_changed_message_is_exit_3_with_a_diff() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut llm = FakeLlm::start(&delete_then_hi());
    config(dir.path(), "claude", &llm.base_url(), "");
    let messages = ["Delete it all", "Then say hi"];
    let recorded = conversation(dir.path(), &messages, &["--record", "session.json"]).run();
    recorded.expect_code(0);
    let recorded = outcome(&recorded.json_report());
    assert_eq!(recorded["hook_decisions"][0]["hook"], "deny_delete");
    llm.stop();

    let replayed = promptexec()
        .in_dir(dir.path())
        .args(["-c", "providers.yaml", "run"])
        .arg(fixtures().join("suite/suite.pack.json"))
        .args(["--prompt", "main", "--provider", "fake", "--format", "json"])
        .args(["--message", messages[0], "--message", messages[1]])
        .args(["--replay", "session.json", "--record", "again.json"])
        .run();
    replayed.expect_code(0);
    assert_eq!(outcome(&replayed.json_report()), recorded);
    // Recorded during a replay, the answers make a recording that replays the same.
    let again = conversation(dir.path(), &messages, &["--replay", "again.json"]).run();
    again.expect_code(0);
    assert_eq!(outcome(&again.json_report()), recorded);

    // A conversation that ends before the recorded one did leaves calls unasked.
    conversation(dir.path(), &messages[..1], &["--replay", "session.json"])
        .run()
        .expect_code(3)
        .stderr_has("model `fake` failed")
        .stderr_has("the recording holds 4 model calls and the conversation asked for 2");

    // A live run that fails leaves the recording it would have replaced alone.
    let before = std::fs::read_to_string(dir.path().join("session.json")).expect("recorded");
    conversation(dir.path(), &messages, &["--record", "session.json"])
        .run()
        .expect_code(3)
        .stderr_has("session.json not written");
    let after = std::fs::read_to_string(dir.path().join("session.json")).expect("still there");
    assert_eq!(before, after);

    let changed = conversation(
        dir.path(),
        &[messages[0], "Then say hello"],
        &["--replay", "session.json"],
    )
    .run();
    changed
        .expect_code(3)
        .stderr_has("replay of session.json: call 3 (turn 2, round 1) does not match")
        .stderr_has(
            "messages[4] (user).content: recorded \"Then say hi\" — made \"Then say hello\"",
        );
}

/// Two scenarios: one names `fake` as its provider, one plays the config's default
/// (the mock); both with assertions on tools, hooks and answers.
pub(crate) fn scenarios(dir: &Path) {
    let head = |id: &str| {
        format!(
            "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nmetadata:\n  name: {id}\nspec:\n  task_type: main\n  description: {id}\n"
        )
    };
    let live = format!(
        "{}  providers: [fake]\n  streaming: true\n  turns:\n    - role: user\n      content: Delete it all\n      assertions:\n        - {{ type: hook_decision, params: {{ hook: deny_delete, action: deny }} }}\n    - role: user\n      content: Then say hi\n      assertions:\n        - {{ type: tools_called, params: {{ tools: [echo] }} }}\n        - {{ type: content_includes, params: {{ patterns: [Echoed] }} }}\n",
        head("live-echo")
    );
    let mocked = format!(
        "{}  turns:\n    - role: user\n      content: Ping\n      assertions:\n        - {{ type: tools_called, params: {{ tools: [echo] }} }}\n",
        head("echo-ping")
    );
    std::fs::create_dir_all(dir.join("scenarios")).expect("folder");
    std::fs::write(dir.join("scenarios/live-echo.scenario.yaml"), live).expect("written");
    std::fs::write(dir.join("scenarios/echo-ping.scenario.yaml"), mocked).expect("written");
}

fn assertions(report: &Json) -> Json {
    let scenarios = report["scenarios"].as_array().expect("scenarios");
    Json::Array(
        scenarios
            .iter()
            .map(|s| json!({"id": s["id"], "result": s["result"], "assertions": s["assertions"]}))
            .collect(),
    )
}

#[test]
fn a_suite_recorded_once_replays_with_no_key_and_no_server() {
    let dir = tempfile::tempdir().expect("temp dir");
    scenarios(dir.path());
    let mut llm = FakeLlm::start(&delete_then_hi());
    config(dir.path(), "openai", &llm.base_url(), "");
    let recorded = run_in(dir.path())
        .args([
            "scenarios",
            "--record-dir",
            "recordings",
            "--format",
            "json",
        ])
        .run();
    recorded.expect_code(0);
    let recorded = recorded.json_report();
    assert_eq!(
        recorded["summary"]["passed"],
        2,
        "{}",
        assertions(&recorded)
    );
    assert_eq!(
        llm.requests().len(),
        4,
        "only the live scenario calls the server"
    );
    assert_eq!(llm.requests()[0]["body"]["stream"], true);
    let live = &recorded["scenarios"][1];
    assert_eq!(live["id"], "live-echo");
    assert_eq!(live["model"]["input_tokens"], 100);
    llm.stop();
    for id in ["live-echo", "echo-ping"] {
        assert!(
            dir.path()
                .join(format!("recordings/{id}.recording.json"))
                .is_file()
        );
    }

    let replayed = promptexec()
        .in_dir(dir.path())
        .args(["-c", "providers.yaml", "run"])
        .arg(fixtures().join("suite/suite.pack.json"))
        .args([
            "scenarios",
            "--replay-dir",
            "recordings",
            "--format",
            "junit",
        ])
        .run();
    replayed.expect_code(0);
    assert!(
        replayed
            .stdout
            .contains(r#"<property name="model.input_tokens" value="100"/>"#),
        "{}",
        replayed.stdout
    );
    let replayed = run_in(dir.path())
        .env_remove("FAKE_LLM_KEY")
        .args([
            "scenarios",
            "--replay-dir",
            "recordings",
            "--format",
            "json",
        ])
        .run();
    replayed.expect_code(0);
    assert_eq!(assertions(&replayed.json_report()), assertions(&recorded));

    // A scenario with no recording is named before anything plays.
    std::fs::remove_file(dir.path().join("recordings/echo-ping.recording.json")).expect("removed");
    run_in(dir.path())
        .args(["scenarios", "--replay-dir", "recordings"])
        .run()
        .expect_code(2)
        .stderr_has("--replay-dir: no recording of scenario `echo-ping`");
}

/// A folder holding the late-order scenario and, as its recording, a session PromptKit
/// recorded; `run` of it by the example config and pack, matching calls by `mode`.
fn replay_promptkit_session(mode: &str) -> Outcome {
    let dir = tempfile::tempdir().expect("temp dir");
    let scenario = "apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: Scenario
metadata:
  name: late-order
spec:
  task_type: support
  description: A late order, answered from a PromptKit recording
  variables: { customer_name: Dana }
  turns:
    - role: user
      content: Where is my order A-1002?
      assertions:
        - { type: tools_called, params: { tools: [lookup_order] } }
        - { type: tool_result_includes, params: { tool: lookup_order, patterns: [delayed] } }
    - role: user
      content: Can I get a refund if it is late?
      assertions:
        - { type: content_includes, params: { patterns: [full refund] } }
";
    std::fs::write(dir.path().join("late-order.scenario.yaml"), scenario).expect("written");
    std::fs::create_dir(dir.path().join("recordings")).expect("folder");
    std::fs::copy(
        fixtures().join("recordings/promptkit-session.json"),
        dir.path().join("recordings/late-order.recording.json"),
    )
    .expect("copied");
    let root = repo_root();
    promptexec()
        .in_dir(dir.path())
        .arg("-c")
        .arg(root.join("runtimeconfig.example.yaml"))
        .arg("run")
        .arg(root.join("examples/assistant.pack.json"))
        .arg(dir.path().join("late-order.scenario.yaml"))
        .args([
            "--replay-dir",
            "recordings",
            "--match",
            mode,
            "--format",
            "json",
        ])
        .run()
}

/// The recording drives a scenario whose calls are matched by their content: the
/// assertions pass on the recorded tokens.
#[test]
fn a_promptkit_recording_drives_a_scenario() {
    let out = replay_promptkit_session("content");
    let report = out.json_report();
    out.expect_code(0);
    assert_eq!(report["summary"]["passed"], 1, "{}", assertions(&report));
    // 140 + 201 + 236 input tokens, and 12 read from PromptKit's cache.
    assert_eq!(
        report["scenarios"][0]["model"]["input_tokens"], 589,
        "the recording's token counts"
    );
}

/// By turn, the whole request is compared: the recording has no system prompt or
/// tools to compare, but the example tool's own answer differs from the one PromptKit
/// recorded, and that is shown.
#[test]
fn a_promptkit_recording_matched_by_turn_shows_the_first_difference() {
    let out = replay_promptkit_session("turn");
    // The JSON report is on stdout even so.
    out.json_report();
    out.expect_code(3)
        .stderr_has("call 2 (turn 1, round 2) does not match the recorded call 2")
        .stderr_has("messages[2] (tool).content differs at character 42");
}
