//! Self-play: an Arena project's `self_play` roles and personas write the user
//! messages of a scenario's self-play turns, the mock answering for the persona
//! from its file's `selfplay` section; the turn's assertions judge each answer to
//! them; `cost_budget` judges the conversation's spend.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::util::{Invocation, contents_of, copy_dir, fixtures, promptexec};

/// A copy of the travel project, so a test can change its files.
fn travel() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let to = dir.path().join("travel");
    copy_dir(&fixtures().join("self_play/travel"), &to);
    (dir, to)
}

fn run_json(project: &Path) -> Invocation {
    promptexec()
        .in_dir(project)
        .args(["run", "arena.yaml", "--format", "json"])
}

/// The scenario's assertions as (id, outcome).
fn outcomes(scenario: &Json) -> Vec<(String, String)> {
    scenario["assertions"]
        .as_array()
        .expect("assertions")
        .iter()
        .map(|a| {
            (
                a["id"].as_str().unwrap_or_default().to_string(),
                a["outcome"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn the_persona_writes_the_self_play_turns_and_each_answer_is_judged() {
    let (_dir, project) = travel();
    let out = run_json(&project).run();
    out.expect_code(0);
    let report = out.json_report();
    let trip = &report["scenarios"][0];
    assert_eq!(trip["id"], "trip");
    assert_eq!(trip["result"], "passed", "{trip:#}");
    assert_eq!(trip["unplayed_turns"], serde_json::json!([]));
    assert_eq!(
        trip["self_play_turns"],
        serde_json::json!([
            {"turn": 2, "role": "traveller", "persona": "curious-traveller"},
            {"turn": 3, "role": "traveller", "persona": "curious-traveller"},
        ])
    );
    let trial = &trip["trials"][0];
    // The traveller's messages come from its own mock file, numbered by the desk's
    // answers so far plus one.
    assert_eq!(
        contents_of(trial, "user"),
        [
            "I want to go to Lyon on Friday.",
            "What is the cheapest ticket?",
            "And when does the last train leave?",
            "Thanks, that is all.",
        ]
    );
    assert_eq!(
        contents_of(trial, "assistant")[2],
        "The last train leaves at 21:40."
    );
    // The self-play turn's assertion judges the answer to each of its two messages.
    assert_eq!(
        outcomes(trip),
        pairs(&[
            ("turn-1.1", "passed"),
            ("turn-2.1", "passed"),
            ("turn-3.1", "passed"),
            ("conversation.1", "passed"),
        ])
    );
    assert_eq!(report["warnings"], serde_json::json!([]));
}

#[test]
fn an_answer_to_the_persona_that_fails_its_assertion_fails_the_scenario() {
    let (_dir, project) = travel();
    // --mock answers for every provider: the desk from the scenario's section, the
    // traveller from the `selfplay` section of the same file.
    let out = run_json(&project)
        .args(["--mock", "one.yaml"])
        .file(
            "one.yaml",
            "scenarios:\n  trip:\n    turns:\n      1: Trains to Lyon leave hourly.\n      2: Buy it online.\n      3: The last train is late.\nselfplay:\n  curious-traveller:\n    defaultResponse: Where do I buy a ticket?\n",
        )
        .run();
    out.expect_code(1);
    let report = out.json_report();
    let trip = &report["scenarios"][0];
    assert_eq!(
        contents_of(&trip["trials"][0], "user")[1..3],
        ["Where do I buy a ticket?", "Where do I buy a ticket?"]
    );
    assert_eq!(
        outcomes(trip),
        pairs(&[
            ("turn-1.1", "passed"),
            ("turn-2.1", "failed"),
            ("turn-3.1", "passed"),
            ("conversation.1", "passed"),
        ])
    );
}

#[test]
fn a_persona_the_project_does_not_declare_leaves_the_turn_unplayed_saying_why() {
    let (_dir, project) = travel();
    let scenario = std::fs::read_to_string(project.join("scenarios/trip.scenario.yaml"))
        .expect("scenario")
        .replace("persona: curious-traveller", "persona: curious-travler");
    let out = run_json(&project)
        .file("scenarios/trip.scenario.yaml", scenario)
        .run();
    out.expect_code(0);
    let report = out.json_report();
    let trip = &report["scenarios"][0];
    assert_eq!(trip["result"], "partial");
    let reason = trip["unplayed_turns"][0]["reason"]
        .as_str()
        .expect("reason");
    assert!(
        reason.contains("`curious-travler` is not a persona of arena.yaml")
            && reason.contains("did you mean `curious-traveller`?"),
        "{reason}"
    );
    assert_eq!(
        contents_of(&trip["trials"][0], "user"),
        ["I want to go to Lyon on Friday.", "Thanks, that is all."]
    );
    let warning = report["warnings"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(
        warning.contains("not a persona"),
        "{:#}",
        report["warnings"]
    );
}

#[test]
fn a_persona_file_with_a_misspelt_key_is_placed_at_its_line() {
    let (_dir, project) = travel();
    let persona = std::fs::read_to_string(project.join("personas/curious-traveller.persona.yaml"))
        .expect("persona")
        .replace("  goals:", "  gaols:");
    let out = run_json(&project)
        .file("personas/curious-traveller.persona.yaml", persona)
        .run();
    // PromptArena reads persona files leniently: the key is a warning at its place
    // and the persona plays.
    out.expect_code(0);
    let report = out.json_report();
    let problem = &report["warnings"][0];
    assert!(
        problem["message"]
            .as_str()
            .is_some_and(|m| m.contains("`gaols`") && m.contains("did you mean `goals`?")),
        "{:#}",
        report["warnings"]
    );
    assert_eq!(
        (&problem["file"], &problem["line"], &problem["column"]),
        (
            &Json::from("personas/curious-traveller.persona.yaml"),
            &Json::from(10),
            &Json::from(3)
        ),
        "{problem:#}"
    );
    assert_eq!(
        report["scenarios"][0]["unplayed_turns"],
        Json::Array(Vec::new())
    );
}

#[test]
fn cost_budget_passes_within_its_limits_and_a_budget_without_one_is_refused() {
    let (_dir, project) = travel();
    let out = run_json(&project).run();
    out.expect_code(0);
    let report = out.json_report();
    let budget = &report["scenarios"][0]["assertions"][3];
    assert_eq!(
        (budget["type"].as_str(), budget["outcome"].as_str()),
        (Some("cost_budget"), Some("passed"))
    );
    // A budget with no limit is refused before anything plays.
    let scenario = std::fs::read_to_string(project.join("scenarios/trip.scenario.yaml"))
        .expect("scenario")
        .replace(
            "params: { max_cost_usd: 0.05, max_total_tokens: 5000 }",
            "params: { max_cost: 0.05 }",
        );
    promptexec()
        .in_dir(&project)
        .args(["run", "arena.yaml"])
        .file("scenarios/trip.scenario.yaml", scenario)
        .run()
        .expect_code(2)
        .stderr_has("`cost_budget` takes no param `max_cost`; did you mean `max_cost_usd`?");
}

#[test]
fn a_persona_played_by_a_model_sees_its_prompt_and_the_talk_with_the_roles_swapped() {
    let llm = crate::fake_llm::FakeLlm::start(&serde_json::json!([
        {"reply": {"content": "How much is the cheapest train?"}},
        {"reply": {"content": "When is the last train?"}},
    ]));
    let (_dir, project) = travel();
    let provider = format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Provider\nmetadata:\n  name: traveller-mock\nspec:\n  id: traveller-mock\n  type: openai\n  model: persona-model\n  base_url: {}\n  credential: {{ credential_env: FAKE_LLM_KEY }}\n",
        llm.base_url()
    );
    let out = run_json(&project)
        .env("FAKE_LLM_KEY", "sk-test-key")
        .file("providers/traveller.provider.yaml", provider)
        .run();
    out.expect_code(0);
    let report = out.json_report();
    let trial = &report["scenarios"][0]["trials"][0];
    assert_eq!(
        contents_of(trial, "user")[1..3],
        ["How much is the cheapest train?", "When is the last train?"]
    );
    let requests = llm.requests();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    let sent = &requests[1]["body"];
    assert_eq!(sent["model"], "persona-model");
    let roles_and_texts: Vec<(String, String)> = sent["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap_or_default().to_string(),
                m["content"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    // The persona's own system prompt, its template filled in; then the talk as the
    // persona sees it: its messages are the assistant's, the desk's are the user's.
    assert_eq!(
        roles_and_texts,
        pairs(&[
            (
                "system",
                "You are a traveller planning a trip. Your goals: find the cheapest ticket, learn when the last train leaves.\nKeep to this: ask one question at a time. Be short.\n"
            ),
            ("assistant", "I want to go to Lyon on Friday."),
            ("user", "Trains to Lyon leave every hour on Friday."),
            ("assistant", "How much is the cheapest train?"),
            (
                "user",
                "The cheapest train ticket is 29 euros if you book today."
            ),
        ])
    );
    assert!(
        sent.get("tools")
            .is_none_or(|t| t.as_array().is_some_and(Vec::is_empty)),
        "{sent:#}"
    );
}

#[test]
fn cost_budget_fails_when_the_tokens_the_model_reported_pass_the_limit() {
    let llm = crate::fake_llm::FakeLlm::start(&serde_json::json!([
        {"reply": {"content": "Hello.", "usage": {"input": 12, "output": 5}}},
        {"reply": {"content": "Goodbye.", "usage": {"input": 20, "output": 3}}},
    ]));
    let dir = tempfile::tempdir().expect("temp dir");
    let scenario = |limit: u32| {
        format!(
            "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nmetadata:\n  name: spend\nspec:\n  task_type: chat\n  description: two turns against a metered model\n  turns:\n    - role: user\n      content: Hi\n      assertions:\n        - type: cost_budget\n          params: {{ max_total_tokens: {limit} }}\n    - role: user\n      content: Bye\n"
        )
    };
    let run = |limit: u32| {
        promptexec()
            .in_dir(dir.path())
            .env("FAKE_LLM_KEY", "sk-test-key")
            .file(
                "fake.yaml",
                format!(
                    "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  providers:\n    - id: fake\n      type: openai\n      model: fake-model\n      base_url: {}\n      credential: {{ credential_env: FAKE_LLM_KEY }}\n",
                    llm.base_url()
                ),
            )
            .file("spend.scenario.yaml", scenario(limit))
            .arg("-c")
            .arg("fake.yaml")
            .arg("run")
            .arg(fixtures().join("partial/partial.pack.json"))
            .args(["spend.scenario.yaml", "--format", "json"])
            .run()
    };
    let over = run(10);
    over.expect_code(1);
    let report = over.json_report();
    let budget = &report["scenarios"][0]["assertions"][0];
    assert_eq!(budget["outcome"], "failed", "{budget:#}");
    assert_eq!(
        budget["detail"],
        "budget exceeded: total tokens 17 exceeds max 10"
    );
}
