//! What a suite refuses, warns about, lists and limits: keys it does not play, transcripts
//! and their names, `list`, tool policies, guardrails that fail and validators that are
//! no check.

use crate::suite::{one_scenario, scenario, scenario_record, suite, suite_dir, suite_in};
use crate::util::{promptexec, repo_root, run_all};

#[test]
fn keys_that_are_not_played_warn_and_fail_under_strict() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let spec = "  context_policy: {}\n  turns:\n    - role: user\n      content: \"Say ping.\"\n    - role: assistant\n      content: \"Scripted answer.\"\n";
    let lenient = one_scenario(dir.path(), "echo-ping", "main", spec).run();
    lenient.expect_code(0);
    lenient.stderr_has("`context_policy` in /spec is a PromptKit key promptexec does not apply");
    // The turn that is not played is no loading warning: its scenario is partial.
    lenient.stderr_has("PARTIAL echo-ping");
    lenient.stderr_has("not played: promptexec plays `user` turns, not `assistant` turns");
    suite_in(dir.path())
        .file("x.scenario.yaml", scenario("echo-ping", "main", spec))
        .args(["x.scenario.yaml", "--strict"])
        .run()
        .expect_code(2)
        .stderr_has("1 warning counts as an error");
}

#[test]
fn a_suite_writes_one_transcript_per_scenario_and_refuses_one_conversation_flags() {
    let dir = tempfile::tempdir().expect("a temp dir");
    suite()
        .args(["--filter", "count-", "--transcript"])
        .arg(dir.path().join("transcripts"))
        .run()
        .expect_code(0);
    let mut written: Vec<String> = std::fs::read_dir(dir.path().join("transcripts"))
        .expect("the folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    written.sort();
    assert_eq!(
        written,
        [
            "count-a.jsonl",
            "count-b.jsonl",
            "count-c.jsonl",
            "count-d.jsonl"
        ]
    );
    let text = std::fs::read_to_string(dir.path().join("transcripts/count-a.jsonl")).expect("read");
    assert!(
        text.lines().any(|l| l.contains(r#""event":"tool_call""#)),
        "{text}"
    );
    suite()
        .args(["--prompt", "main"])
        .run()
        .expect_code(2)
        .stderr_has("--prompt applies to one conversation");
    suite()
        .args(["--message", "hi", "--shard", "1/2"])
        .run()
        .expect_code(2)
        .stderr_has("--shard applies to a suite");
}

#[test]
fn list_shows_what_a_suite_would_run_without_running_it() {
    let fixtures = suite_dir();
    let list = |extra: &[&str]| {
        promptexec()
            .in_dir(&fixtures)
            .args([
                "-c",
                "suite.yaml",
                "list",
                "suite.pack.json",
                "--format",
                "json",
            ])
            .args(extra)
            .run()
    };
    let out = list(&["--filter", "count-", "--shard", "2/2"]);
    out.expect_code(0);
    let listing = out.json();
    let ids: Vec<&str> = listing["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .map(|s| s["id"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(ids, ["count-b", "count-d"]);
    assert_eq!(listing["scenarios"][0]["assertions"], 1);
    let tools: Vec<(&str, &str)> = listing["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap_or_default(),
                t["mode"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        tools,
        [("echo", "exec"), ("counter", "server"), ("refund", "exec")]
    );
    assert_eq!(listing["hooks"][0]["name"], "deny_delete");
    assert_eq!(
        listing["hooks"][0]["at"],
        serde_json::json!(["before_execution"])
    );
    // The example's cases are listed with its suite.
    let out = promptexec()
        .in_dir(repo_root())
        .args([
            "-c",
            "runtimeconfig.example.yaml",
            "list",
            "examples/assistant.pack.json",
        ])
        .args([
            "--cases",
            "examples/assistant.cases.yaml",
            "--format",
            "json",
        ])
        .run();
    out.expect_code(0);
    let listing = out.json();
    assert_eq!(listing["scenarios"].as_array().map(Vec::len), Some(5));
    assert!(listing["cases"].as_array().is_some_and(|c| c.len() >= 10));
    assert_eq!(listing["evals"][0]["id"], "polite-tone");
    assert_eq!(listing["evals"][0]["gate"], true);
}

#[test]
fn a_scenario_s_tool_policy_refuses_the_calls_past_its_limits() {
    let policy = |limits: &str| {
        format!(
            "  tool_policy: {{ {limits} }}\n  turns:\n    - role: user\n      content: \"Echo it three times.\"\n"
        )
    };
    let cases = [
        (
            "tool_choice: auto, max_tool_calls_per_turn: 10, max_total_tool_calls: 10, max_identical_tool_calls: 2",
            ["ok", "ok", "error"],
            "max_identical_tool_calls (2) reached",
        ),
        (
            "tool_choice: auto, max_tool_calls_per_turn: 10, max_total_tool_calls: 1",
            ["ok", "error", "error"],
            "max_total_tool_calls (1) reached",
        ),
        (
            "tool_choice: none, max_tool_calls_per_turn: 10, max_total_tool_calls: 10",
            ["error", "error", "error"],
            "tool `echo` is not offered to the model",
        ),
    ];
    let dirs: Vec<tempfile::TempDir> = cases
        .iter()
        .map(|_| tempfile::tempdir().expect("a temp dir"))
        .collect();
    let outs = run_all(
        cases
            .iter()
            .zip(&dirs)
            .map(|((limits, _, _), dir)| {
                suite_in(dir.path())
                    .file(
                        "x.scenario.yaml",
                        scenario("repeat-echo", "main", &policy(limits)),
                    )
                    .args(["x.scenario.yaml", "--format", "json"])
            })
            .collect(),
    );
    for ((limits, statuses, refusal), out) in cases.iter().zip(&outs) {
        out.expect_code(0);
        let report = out.json();
        let calls = scenario_record(&report, "repeat-echo")["trials"][0]["tool_calls"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let got: Vec<&str> = calls
            .iter()
            .map(|c| c["status"].as_str().unwrap_or_default())
            .collect();
        assert_eq!(got, statuses, "{limits}");
        let refused = calls
            .iter()
            .find(|c| c["status"] == "error")
            .expect("a refusal");
        assert!(
            refused["content"]
                .as_str()
                .unwrap_or_default()
                .contains(refusal),
            "{limits}: {refused}"
        );
    }
}

#[test]
fn a_guardrail_that_fails_on_violation_fails_the_scenario() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let spec = "  turns:\n    - role: user\n      content: \"Will I get my money back?\"\n";
    let out = suite_in(dir.path())
        .file(
            "x.scenario.yaml",
            scenario("guarded", "strict_guarded", spec),
        )
        .arg("x.scenario.yaml")
        .run();
    out.expect_code(1);
    out.stderr_has("guardrail `banned_words` failed the answer in turn 1: excluded: guarantee");
}

#[test]
fn a_validator_that_is_no_check_is_bad_input_at_its_place() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let pack = std::fs::read_to_string(suite_dir().join("suite.pack.json")).expect("the pack");
    let broken = pack.replacen(
        r#""type": "banned_words", "enabled": true, "fail_on_violation""#,
        r#""type": "banned_wrds", "enabled": true, "fail_on_violation""#,
        1,
    );
    assert_ne!(broken, pack);
    promptexec()
        .in_dir(dir.path())
        .file("x.pack.json", broken)
        .args(["validate", "--pack", "x.pack.json"])
        .run()
        .expect_code(2)
        .stderr_has("x.pack.json:21:18: /prompts/strict_guarded/validators/0: `banned_wrds` is not a check promptexec can run as a guardrail; did you mean `banned_words`?");
}

#[test]
fn two_scenarios_that_would_share_a_transcript_are_refused() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let spec = "  turns:\n    - role: user\n      content: hi\n";
    suite_in(dir.path())
        .file("a.scenario.yaml", scenario("a/b", "main", spec))
        .file("b.scenario.yaml", scenario("a_b", "main", spec))
        .args([".", "--transcript", "out"])
        .run()
        .expect_code(2)
        .stderr_has("--transcript: scenarios `a/b` and `a_b` would both write");
}
