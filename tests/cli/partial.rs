//! Nothing judged is ever dropped: assertions of turns promptexec does not play
//! (self-play, `assistant`) and of types that need a real model are reported
//! skipped, with the reason, in every format; their scenario is PARTIAL, never
//! passed; `list` and `validate` check scenario files exactly as `run` does.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::util::{Invocation, fixtures, promptexec, run_all};

fn partial_dir() -> PathBuf {
    fixtures().join("partial")
}

/// `COMMAND` on the fixture config, from the fixture folder.
fn command(name: &str) -> Invocation {
    promptexec()
        .in_dir(partial_dir())
        .args(["-c", "partial.yaml", name])
}

fn suite() -> Invocation {
    command("run").arg("partial.pack.json")
}

/// `run` of one scenario written into `dir` with the fixture config and pack.
fn one_scenario(dir: &Path, spec: &str) -> Invocation {
    let fixture = partial_dir();
    promptexec()
        .in_dir(dir)
        .arg("-c")
        .arg(fixture.join("partial.yaml"))
        .arg("run")
        .arg(fixture.join("partial.pack.json"))
        .file(
            "x.scenario.yaml",
            format!(
                "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nmetadata:\n  name: plain\nspec:\n  task_type: chat\n  description: x\n{spec}"
            ),
        )
        .arg("x.scenario.yaml")
}

fn scenario<'j>(report: &'j Json, id: &str) -> &'j Json {
    report["scenarios"]
        .as_array()
        .and_then(|all| all.iter().find(|s| s["id"] == id))
        .unwrap_or_else(|| panic!("no scenario `{id}` in {report:#}"))
}

#[test]
fn skipped_assertions_make_the_scenario_partial_in_the_human_report() {
    let out = suite().run();
    out.expect_code(0);
    out.stderr_has("PARTIAL mixed");
    out.stderr_has("PASS  plain");
    out.stderr_has(
        "turn 2 of the file (`traveller`) · content_includes: talks about tickets — not played: self-play (persona `curious-traveller`) needs a second model to play the user [skipped]",
    );
    out.stderr_has(
        "turn 3 of the file (`assistant`) · max_length — not played: promptexec plays `user` turns, not `assistant` turns [skipped]",
    );
    out.stderr_has("conversation · rest_eval — not played: assertion type `rest_eval` needs a real model or a runtime promptexec does not play [skipped]");
    out.stderr_has("│ mixed    ┆ partial ┆ 1      ┆ 1/4 (3 skipped) ┆");
    out.stderr_has("1 scenario(s) PARTIAL: 3 assertion(s) skipped, 2 turn(s) not played; not a pass: --fail-on-partial (or --strict) fails them");
    out.stderr_has("1 passed, 1 partial; exit 0");
    // Nothing about the skipped turns is a loading warning: the report says it all.
    out.stderr_lacks("warning");
    out.stderr_lacks("PASS  mixed");
}

#[test]
fn skipped_assertions_are_in_the_json_report_with_their_reasons() {
    let out = suite().args(["--format", "json"]).run();
    out.expect_code(0);
    // What left the suite unjudged reaches stderr in every format.
    out.stderr_has("PARTIAL mixed");
    let report = out.json_report();
    assert_eq!(report["summary"]["partial"], 1, "{:#}", report["summary"]);
    assert_eq!(report["summary"]["passed"], 1, "{:#}", report["summary"]);
    assert_eq!(report["index"][0]["result"], "partial");
    let mixed = scenario(&report, "mixed");
    assert_eq!(mixed["result"], "partial");
    assert_eq!(mixed["exit_code"], 0);
    let assertions = mixed["assertions"].as_array().expect("assertions");
    let outcomes: Vec<(&str, &str)> = assertions
        .iter()
        .map(|a| {
            (
                a["id"].as_str().unwrap_or_default(),
                a["outcome"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            ("turn-1.1", "passed"),
            ("unplayed-turn-2.1", "skipped"),
            ("unplayed-turn-3.1", "skipped"),
            ("conversation.1", "skipped"),
        ]
    );
    // `message` inside params is the assertion's message, and so is one beside it.
    assert_eq!(assertions[0]["message"], "greets the traveller");
    assert_eq!(assertions[1]["message"], "talks about tickets");
    assert!(
        assertions[2]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("not `assistant` turns")),
        "{:#}",
        assertions[2]
    );
    assert!(
        assertions[3]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("`rest_eval` needs a real model")),
        "{:#}",
        assertions[3]
    );
    assert_eq!(
        mixed["unplayed_turns"],
        serde_json::json!([
            {"index": 2, "role": "traveller", "reason": "not played: self-play (persona `curious-traveller`) needs a second model to play the user", "asserted": true},
            {"index": 3, "role": "assistant", "reason": "not played: promptexec plays `user` turns, not `assistant` turns", "asserted": true},
        ])
    );
    assert_eq!(scenario(&report, "plain")["result"], "passed");
}

#[test]
fn skipped_assertions_are_junit_skipped_testcases() {
    let out = suite().args(["--format", "junit"]).run();
    out.expect_code(0);
    let doc = roxmltree::Document::parse(&out.stdout).expect("JUnit XML");
    let mixed = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite") && n.attribute("name") == Some("mixed"))
        .expect("the scenario's testsuite");
    let skipped: Vec<(String, String)> = mixed
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .filter_map(|case| {
            let skip = case.children().find(|n| n.has_tag_name("skipped"))?;
            Some((
                case.attribute("name").unwrap_or_default().to_string(),
                skip.attribute("message").unwrap_or_default().to_string(),
            ))
        })
        .collect();
    let names: Vec<&str> = skipped.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "turn 2 of the file (`traveller`) · content_includes [unplayed-turn-2.1]",
            "turn 3 of the file (`assistant`) · max_length [unplayed-turn-3.1]",
            "conversation · rest_eval [conversation.1]",
            "turn 2 of the file (`traveller`)",
            "turn 3 of the file (`assistant`)",
        ],
        "{}",
        out.stdout
    );
    assert!(
        skipped[2].1.contains("`rest_eval` needs a real model"),
        "{skipped:?}"
    );
    assert_eq!(mixed.attribute("skipped"), Some("5"));
    assert_eq!(mixed.attribute("failures"), Some("0"));
}

#[test]
fn fail_on_partial_and_strict_make_a_partial_scenario_fail() {
    let outs = run_all(vec![
        suite().arg("--fail-on-partial"),
        suite().arg("--strict"),
        suite().args(["--fail-on-partial", "--format", "json"]),
    ]);
    for out in &outs[..2] {
        out.expect_code(1);
        out.stderr_has("PARTIAL mixed");
        out.stderr_has("1 scenario(s) PARTIAL: 3 assertion(s) skipped, 2 turn(s) not played; they fail the suite");
        out.stderr_has("1 passed, 1 partial; exit 1");
    }
    let report = outs[2].json_report();
    assert_eq!(scenario(&report, "mixed")["result"], "partial");
    assert_eq!(scenario(&report, "mixed")["exit_code"], 1);
    assert_eq!(report["summary"]["exit_code"], 1);
    // A fully judged suite still passes with the flag.
    suite()
        .args(["scenarios/plain.scenario.yaml", "--fail-on-partial"])
        .run()
        .expect_code(0)
        .stderr_has("1 passed; exit 0");
    command("run")
        .args(["partial.pack.json", "--message", "hi", "--fail-on-partial"])
        .run()
        .expect_code(2)
        .stderr_has("--fail-on-partial applies to a suite");
}

#[test]
fn a_turn_not_played_leaves_its_scenario_partial_even_without_assertions() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let spec = "  turns:\n    - role: user\n      content: Hi\n      assertions:\n        - { type: content_includes, params: { patterns: [traveller] } }\n    - role: assistant\n      content: Scripted.\n";
    let out = one_scenario(dir.path(), spec).run();
    out.expect_code(0);
    out.stderr_has("PARTIAL plain");
    out.stderr_has("    turn 2 of the file (`assistant`) — not played: promptexec plays `user` turns, not `assistant` turns [skipped]");
    out.stderr_has("0 assertion(s) skipped, 1 turn(s) not played");
    one_scenario(dir.path(), spec)
        .arg("--fail-on-partial")
        .run()
        .expect_code(1);
}

#[test]
fn a_scenario_of_self_play_alone_is_partial_with_nothing_played() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let spec = "  turns:\n    - role: traveller\n      persona: curious\n      turns: 3\n      assertions:\n        - { type: content_includes, params: { patterns: [x] } }\n  conversation_assertions:\n    - { type: content_includes, params: { patterns: [x] } }\n";
    let out = one_scenario(dir.path(), spec)
        .args(["--format", "json"])
        .run();
    out.expect_code(0);
    let report = out.json_report();
    let plain = scenario(&report, "plain");
    assert_eq!(plain["result"], "partial", "{plain:#}");
    assert_eq!(plain["trials"], serde_json::json!([]));
    let outcomes: Vec<&str> = plain["assertions"]
        .as_array()
        .expect("assertions")
        .iter()
        .map(|a| a["outcome"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(outcomes, ["skipped", "skipped"]);
    assert!(
        plain["assertions"][1]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("no turn of the scenario is played")),
        "{plain:#}"
    );
    // A file with no turn at all is still bad input.
    one_scenario(dir.path(), "  turns: []\n")
        .run()
        .expect_code(2)
        .stderr_has("/spec/turns: no user turn to play");
}

#[test]
fn a_turn_whose_media_parts_are_not_sent_is_played_in_part() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let spec = "  turns:\n    - role: user\n      parts:\n        - { type: text, text: Hi }\n        - { type: image, media: { file_path: cat.png, mime_type: image/png } }\n      assertions:\n        - { type: content_includes, params: { patterns: [traveller] } }\n";
    let out = one_scenario(dir.path(), spec)
        .args(["--format", "json"])
        .run();
    out.expect_code(0);
    out.stderr_has("warning: /spec/turns/0/parts/1: `image` parts are not played");
    out.stderr_has("PARTIAL plain");
    let report = out.json_report();
    let plain = scenario(&report, "plain");
    assert_eq!(plain["result"], "partial", "{plain:#}");
    assert_eq!(
        plain["played_in_part"],
        serde_json::json!([
            "turn 1: played in part, its `image` part(s) not sent (only its text reaches the model)"
        ])
    );
    one_scenario(dir.path(), spec)
        .arg("--fail-on-partial")
        .run()
        .expect_code(1)
        .stderr_has("1 played in part; they fail the suite");
}

#[test]
fn list_refuses_what_run_refuses_with_the_same_exit_code() {
    let dir = tempfile::tempdir().expect("a temp dir");
    // A prompt the pack lacks, a session type under a turn, and an unknown type: the
    // loader accepts each file, `run`'s plan refuses it.
    let refused = [
        (
            "no-prompt",
            "chit",
            "{ type: content_includes, params: { patterns: [a] } }",
            "/spec/task_type: `chit` is not a prompt",
        ),
        (
            "session-type",
            "chat",
            "{ type: tools_called_session, params: { tools: [a] } }",
            "judges the whole conversation",
        ),
        (
            "unknown-type",
            "chat",
            "{ type: content_includs, params: { patterns: [a] } }",
            "did you mean `content_includes`?",
        ),
    ];
    let fixture = partial_dir();
    let mut invocations = Vec::new();
    for (id, task_type, assertion, _) in &refused {
        let text = format!(
            "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nmetadata:\n  name: {id}\nspec:\n  task_type: {task_type}\n  description: x\n  turns:\n    - role: user\n      content: Hi\n      assertions:\n        - {assertion}\n"
        );
        let file = format!("{id}.scenario.yaml");
        std::fs::write(dir.path().join(&file), text).expect("write");
        for name in ["run", "list"] {
            invocations.push(
                promptexec()
                    .in_dir(dir.path())
                    .arg("-c")
                    .arg(fixture.join("partial.yaml"))
                    .arg(name)
                    .arg(fixture.join("partial.pack.json"))
                    .arg(&file),
            );
        }
    }
    let outs = run_all(invocations);
    for (i, (id, _, _, message)) in refused.iter().enumerate() {
        for out in &outs[2 * i..2 * i + 2] {
            out.expect_code(2);
            out.stderr_has(&format!("{id}.scenario.yaml:"));
            out.stderr_has(message);
        }
    }
    // What run plays, list lists, with the assertions it will skip counted.
    let out = command("list")
        .args(["partial.pack.json", "--format", "json"])
        .run();
    out.expect_code(0);
    let listing = out.json();
    assert_eq!(listing["scenarios"][0]["id"], "mixed");
    assert_eq!(listing["scenarios"][0]["assertions"], 4);
    assert_eq!(listing["scenarios"][0]["skipped"], 3);
    assert_eq!(listing["scenarios"][0]["unplayed_turns"], 2);
}

#[test]
fn validate_checks_a_folder_of_scenario_files_as_run_does() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let bad = "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nmetadata:\n  name: bad\nspec:\n  task_type: chit\n  description: x\n  turns:\n    - role: user\n      contents: Hi\n";
    let typo = "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nmetadata:\n  name: typo\nspec:\n  task_type: chit\n  description: x\n  turns:\n    - role: user\n      content: Hi\n      assertions:\n        - { type: content_includs, params: { patterns: [a] } }\n";
    std::fs::create_dir(dir.path().join("more")).expect("a folder");
    std::fs::write(dir.path().join("more/bad.scenario.yaml"), bad).expect("write");
    std::fs::write(dir.path().join("more/typo.scenario.yaml"), typo).expect("write");
    let fixture = partial_dir();
    let validate = || {
        promptexec()
            .in_dir(dir.path())
            .arg("-c")
            .arg(fixture.join("partial.yaml"))
            .arg("validate")
    };
    let outs = run_all(vec![
        validate()
            .arg("--pack")
            .arg(fixture.join("partial.pack.json"))
            .arg("more"),
        validate().arg("more"),
        validate()
            .arg("--pack")
            .arg(fixture.join("partial.pack.json"))
            .arg(fixture.join("scenarios")),
    ]);
    let with_pack = &outs[0];
    with_pack.expect_code(2);
    with_pack.stderr_has(
        "more/bad.scenario.yaml:10:7: unknown key `contents` in /spec/turns/0; did you mean `content`?",
    );
    with_pack.stderr_has("more/typo.scenario.yaml:6:14: /spec/task_type: `chit` is not a prompt");
    // Without the pack, each file and its assertions are still checked.
    let alone = &outs[1];
    alone.expect_code(2);
    alone.stderr_has("more/bad.scenario.yaml:10:7: unknown key `contents`");
    alone.stderr_has("more/typo.scenario.yaml:12:11: assertion type `content_includs`");
    alone.stderr_lacks("`chit`");
    let good = &outs[2];
    good.expect_code(0);
    good.stderr_has("2 scenario files (5 assertions, 3 of them skipped when played)");
}

#[test]
fn an_assertion_wrapper_around_a_judge_is_skipped_not_refused() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let spec = "  turns:\n    - role: user\n      content: hi\n      assertions:\n        - type: assertion\n          params:\n            eval_type: rest_eval\n            eval_params: { criteria: helpful, judge: mock-judge }\n            min_score: 0.8\n";
    let out = one_scenario(dir.path(), spec).run();
    out.expect_code(0);
    out.stderr_has("PARTIAL plain");
    out.stderr_has("not played: assertion type `rest_eval` needs a real model or a runtime promptexec does not play [skipped]");
    one_scenario(dir.path(), spec)
        .arg("--fail-on-partial")
        .run()
        .expect_code(1);
}

#[test]
fn a_user_turn_of_media_alone_is_kept_and_not_played() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let spec = "  turns:\n    - role: user\n      content: Hi\n    - role: user\n      parts:\n        - type: audio\n          media: { file_path: hello.wav, mime_type: audio/wav }\n      assertions:\n        - { type: content_includes, params: { patterns: [hello] } }\n";
    let out = one_scenario(dir.path(), spec).run();
    out.expect_code(0);
    out.stderr_has("PARTIAL plain");
    out.stderr_has(
        "not played: the turn has only audio part(s) and no text for the model [skipped]",
    );
    one_scenario(dir.path(), spec)
        .arg("--fail-on-partial")
        .run()
        .expect_code(1);
}

/// `run` of the fixture suite under `-q`.
fn quiet_suite() -> Invocation {
    promptexec().in_dir(partial_dir()).args([
        "-q",
        "-c",
        "partial.yaml",
        "run",
        "partial.pack.json",
    ])
}

#[test]
fn quiet_suites_print_only_what_failed_in_every_format() {
    let outs = run_all(vec![
        quiet_suite().arg("scenarios/plain.scenario.yaml"),
        quiet_suite().arg("--fail-on-partial"),
        quiet_suite().args(["--fail-on-partial", "--format", "json"]),
        quiet_suite().args(["--fail-on-partial", "--format", "junit"]),
    ]);
    // A suite that passes says nothing.
    outs[0].expect_code(0);
    assert_eq!(outs[0].stderr, "", "a quiet suite that passes is silent");
    for out in &outs[1..] {
        out.expect_code(1);
        // What failed, and why, still reaches stderr; the rest does not.
        out.stderr_has("PARTIAL mixed");
        out.stderr_has("conversation · rest_eval — not played");
        out.stderr_lacks("PASS  plain");
        out.stderr_lacks("suite:");
        out.stderr_lacks("scenario(s) PARTIAL");
        out.stderr_lacks("┆");
    }
    let report = outs[2].json_report();
    assert_eq!(report["summary"]["exit_code"], 1);
    outs[3].stdout_has(r#"<testsuite name="mixed""#);
}
