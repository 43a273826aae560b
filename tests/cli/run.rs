//! `promptexec run` on the bundled example.

use serde_json::Value as Json;

use crate::util::{
    dana_asks, example_config, mock_config_head, promptexec, readme_run, repo_root, run_example,
};

#[test]
fn the_readme_run_plays_the_example_with_every_extension_and_a_summary() {
    let out = readme_run();
    out.expect_code(0);
    for line in [
        "user: Hi, where is my order A-1002?",
        "tool lookup_order (call_1_lookup_order) ok",
        "tool db_query (call_2_db_query) ok",
        "assistant: Your order A-1002 (rain jacket) is delayed",
        "eval polite-tone passed (score 0.75)",
        "eval reply-length measured",
        "summary: 1 turn(s), 3 model call(s), 2 tool call(s)",
    ] {
        assert!(
            out.stderr.contains(line),
            "`{line}` missing from:\n{}",
            out.stderr
        );
    }
    // The summary tables name every hook that ran, one-shot and JSON-RPC alike.
    for hook in [
        "pii_guard",
        "sql_allowlist",
        "audit_log",
        "eval_metrics",
        "review_gate",
        "faq_plugin",
    ] {
        assert!(
            out.stderr.contains(&format!("│ {hook} ")),
            "{hook}: {}",
            out.stderr
        );
    }
    assert_eq!(out.stdout, "");
}

#[test]
fn json_format_holds_every_tool_call_hook_decision_and_eval_result() {
    let out = dana_asks("Where is A-1002?")
        .args(&["--message", "My SSN is 123-45-6789", "--format", "json"])
        .run();
    out.expect_code(1);
    let report: Json = serde_json::from_str(&out.stdout).expect("one JSON document");
    assert_eq!(report["prompt"], "support");
    assert_eq!(report["exit_code"], 1);
    let events = report["events"].as_array().expect("events");
    let of_kind = |kind: &str| events.iter().filter(|e| e["event"] == kind).count();
    let names = |key: &str, field: &str| -> Vec<String> {
        report[key]
            .as_array()
            .expect(key)
            .iter()
            .map(|t| t[field].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(names("tool_calls", "name"), ["lookup_order", "db_query"]);
    assert_eq!(of_kind("tool_call"), 2);
    assert_eq!(names("hook_decisions", "hook"), ["pii_guard"]);
    assert_eq!(report["hook_decisions"][0]["action"], "abort_turn");
    assert_eq!(of_kind("hook"), 1);
    // Turn 1's evals and the session's; the aborted turn 2 is not judged.
    assert_eq!(
        names("evals", "eval_id"),
        ["polite-tone", "mentions-order", "reply-length"]
    );
    assert_eq!(of_kind("eval"), 3);
    assert_eq!(report["turns"][1]["outcome"], "aborted");
    assert_eq!(report["totals"]["model_calls"], 3);
    assert_eq!(report["totals"]["evals"]["passed"], 1);
    assert_eq!(report["totals"]["evals"]["measured"], 2);
}

#[test]
fn a_provider_hook_denial_ends_the_turn_with_exit_1_and_the_hook_name() {
    let out = dana_asks("My SSN is 123-45-6789").run();
    out.expect_code(1);
    out.stderr_has("turn 1 aborted by hook `pii_guard`: personal data (ssn)");
}

#[test]
fn a_missing_required_variable_is_bad_input_naming_it() {
    let out = run_example().args(&["--message", "hello"]).run();
    assert_eq!(out.code, 2);
    out.stderr_has("needs variable `customer_name`");
}

#[test]
fn session_hooks_hear_the_start_every_turn_and_the_end() {
    let dir = tempfile::tempdir().expect("temp dir");
    let audit = dir.path().join("audit.jsonl");
    let audit_path = audit.display().to_string();
    let out = dana_asks("Where is A-1002?")
        .args(&["--message", "Thanks!"])
        .envs(&[("AUDIT_LOG", &audit_path)])
        .run();
    out.expect_code(0);
    let phases: Vec<String> = std::fs::read_to_string(&audit)
        .expect("the audit hook wrote its log")
        .lines()
        .map(|l| {
            serde_json::from_str::<Json>(l).expect("JSONL")["phase"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    // Observers run beside the pipeline, so only the count of each phase is certain.
    let count = |phase: &str| phases.iter().filter(|p| *p == phase).count();
    assert_eq!(
        (
            count("session_start"),
            count("session_update"),
            count("session_end")
        ),
        (1, 2, 1),
        "{phases:?}"
    );
}

/// A config in `dir` with the example's mock script and one hook.
fn config_with_hook(dir: &std::path::Path, hook_yaml: &str) -> std::path::PathBuf {
    let root = repo_root();
    let text = format!(
        "{}  hooks:\n{hook_yaml}",
        mock_config_head(root.join("examples/mock-responses.yaml").display())
    );
    let path = dir.join("runtimeconfig.yaml");
    std::fs::write(&path, text).expect("write config");
    path
}

#[test]
fn a_json_rpc_hook_that_fails_its_handshake_aborts_the_run_with_exit_3() {
    let dir = tempfile::tempdir().expect("temp dir");
    let hook = crate::util::fixtures().join("hooks/rpc_hook.py");
    let config = config_with_hook(
        dir.path(),
        &format!(
            "    mute:\n      command: {}\n      args: [--hello, error]\n      runtime: server\n      intercept: [before_tool]\n",
            hook.display()
        ),
    );
    let config = config.display().to_string();
    let out = promptexec()
        .in_dir(repo_root())
        .args(&[
            "-c",
            &config,
            "run",
            "tests/fixtures/packs/greeter.json",
            "--var",
            "name=Dana",
            "--message",
            "hi",
            "--format",
            "json",
        ])
        .run();
    out.expect_code(3);
    let report: Json = serde_json::from_str(&out.stdout).expect("a report all the same");
    assert_eq!(report["turns"][0]["outcome"], "failed");
    let reason = report["turns"][0]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("mute"), "names the hook: {reason}");
    assert_eq!(report["totals"]["model_calls"], 0);
}

#[test]
fn output_writes_the_report_to_a_file_and_nothing_to_stdout() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("report.xml");
    let out = dana_asks("Where is A-1002?")
        .args(&["--format", "junit", "--output", &path.display().to_string()])
        .run();
    out.expect_code(0);
    assert_eq!(out.stdout, "");
    let xml = std::fs::read_to_string(&path).expect("the report file");
    let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
    let cases: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .filter_map(|n| n.attribute("name"))
        .collect();
    assert_eq!(
        cases,
        [
            "turn 1",
            "polite-tone (turn 1)",
            "mentions-order (turn 1)",
            "reply-length"
        ]
    );
    let leftovers = std::fs::read_dir(dir.path()).expect("list").count();
    assert_eq!(leftovers, 1, "no temporary file is left beside the report");
}

#[test]
fn replaying_evals_points_out_a_result_that_differs_from_the_recording() {
    let dir = tempfile::tempdir().expect("temp dir");
    let transcript = dir.path().join("run.jsonl");
    let path = transcript.display().to_string();
    let out = dana_asks("Where is A-1002?")
        .args(&["--transcript", &path])
        .run();
    out.expect_code(0);
    // Pretend the run had scored the turn's `mentions-order` differently.
    let edited: Vec<String> = std::fs::read_to_string(&transcript)
        .expect("transcript")
        .lines()
        .map(|line| {
            let mut event: Json = serde_json::from_str(line).expect("JSON line");
            if event["event"] == "eval" && event["eval_id"] == "mentions-order" {
                event["score"] = serde_json::json!(0.0);
            }
            event.to_string()
        })
        .collect();
    std::fs::write(&transcript, edited.join("\n") + "\n").expect("rewrite");
    let replay = example_config()
        .args(&[
            "eval",
            "--pack",
            "examples/assistant.pack.json",
            "--transcript",
            &path,
        ])
        .run();
    assert_eq!(
        replay.code, 0,
        "a measurement never fails: {}",
        replay.stderr
    );
    replay.stderr_has("warning: eval `mentions-order` on turn 1: the run recorded measured 0.00, now measured 1.00");
    assert!(
        !replay.stderr.contains("`polite-tone` on turn 1"),
        "unchanged results are not pointed out: {}",
        replay.stderr
    );
}
