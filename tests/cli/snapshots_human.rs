//! What a person reads: the human output (stdout and stderr, with the exit code) of
//! `run`, `hook test`, `invoke-tool`, `validate` and the library commands, pinned as
//! snapshots in `tests/cli/snapshots/`.
//!
//! Durations, process ids, temporary paths, timestamps and keys differ from run to
//! run and are filtered; so is the width of table columns, which follows the widest
//! (filtered) value. When the output changes on purpose, re-accept with
//! `INSTA_UPDATE=always cargo test --test cli snapshots_human` and review the diff.

use std::path::Path;

use crate::util::{
    Invocation, Outcome, example_config, hook_event, promptexec, readme_run, repo_root,
};

/// Exit code, stdout and stderr as one text.
fn human(out: &Outcome) -> String {
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        out.code, out.stdout, out.stderr
    )
}

/// Snapshot settings that replace what varies between runs with a placeholder.
fn filtered() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(true);
    let root = repo_root().display().to_string();
    let filters = [
        (regex_escape(&root), "[repo]".to_string()),
        (r"/tmp/\.tmp\w+".into(), "[tmp]".into()),
        (
            r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z".into(),
            "[time]".into(),
        ),
        (r"\b\d+(\.\d+)? ?(ms|s|µs)\b".into(), "[duration]".into()),
        (
            r#""duration_ms": ?\d+"#.into(),
            r#""duration_ms": [ms]"#.into(),
        ),
        (
            r#""server_pid": ?\d+"#.into(),
            r#""server_pid": [pid]"#.into(),
        ),
        (r"did:key:z\w+".into(), "[did]".into()),
        // Column widths follow the values: keep cells, drop padding and rule length.
        (r" +([│┆])".into(), " $1".into()),
        ("─{2,}([┬┴┼┐┘┤])".into(), "─$1".into()),
        ("═{2,}([╪╡])".into(), "═$1".into()),
    ];
    for (pattern, replacement) in filters {
        settings.add_filter(&pattern, replacement);
    }
    settings
}

fn regex_escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$#&-~".contains(c);
            special.then_some('\\').into_iter().chain([c])
        })
        .collect()
}

/// Asserts the snapshot `name` of `out`'s human output, filtered.
#[track_caller]
fn snapshot(name: &str, out: &Outcome) {
    filtered().bind(|| insta::assert_snapshot!(name, human(out)));
}

/// Runs the invocations one after another: a snapshot must not depend on how loaded
/// the machine is, and the example hooks have deadlines of a few seconds.
fn one_by_one(invocations: Vec<Invocation>) -> Vec<Outcome> {
    invocations.into_iter().map(Invocation::run).collect()
}

/// A command with the bundled example config, from the repository root.
fn example(args: &[&str]) -> Invocation {
    example_config().args(args)
}

#[test]
fn run_of_the_bundled_example() {
    snapshot("run_example", readme_run());
}

#[test]
fn hook_test_of_a_filter_hook_and_a_json_rpc_hook() {
    let outs = one_by_one(vec![
        example(&["hook", "test", "pii_guard"]),
        example(&["hook", "test", "pii_guard", "--all-phases"]),
        example(&hook_event(
            "pii_guard",
            "before_call",
            r#"{"messages": [{"role": "user", "content": "My SSN is 123-45-6789"}]}"#,
        )),
        example(&["hook", "test", "review_gate", "--phase", "before_tool"]),
        example(&hook_event(
            "review_gate",
            "approve_tool",
            r#"{"tool_name": "refund_order", "arguments": {"order_id": "A-1002", "amount": 500}}"#,
        )),
    ]);
    for (name, out) in [
        "filter",
        "filter_all_phases",
        "filter_deny",
        "rpc",
        "rpc_approve",
    ]
    .iter()
    .zip(&outs)
    {
        snapshot(&format!("hook_test_{name}"), out);
    }
}

#[test]
fn invoke_tool_results_and_failures() {
    let outs = one_by_one(vec![
        example(&[
            "invoke-tool",
            "lookup_order",
            "--args",
            r#"{"order_id": "A-1002"}"#,
        ]),
        example(&[
            "invoke-tool",
            "lookup_order",
            "--args",
            r#"{"order_id": "Z-9"}"#,
        ]),
        example(&["invoke-tool", "lookup_ordr", "--args", "{}"]),
        // Checked against the pack's schema: no process starts, no Python traceback.
        example(&[
            "invoke-tool",
            "lookup_order",
            "--pack",
            "examples/assistant.pack.json",
            "--args",
            r#"{"order": 1}"#,
        ]),
    ]);
    for (name, out) in ["ok", "tool_error", "unknown_tool", "bad_arguments"]
        .iter()
        .zip(&outs)
    {
        snapshot(&format!("invoke_tool_{name}"), out);
    }
}

#[test]
fn validate_a_good_config_and_one_with_problems() {
    let outs = one_by_one(vec![
        example(&["validate", "--pack", "examples/assistant.pack.json"]),
        promptexec().args(["-c", "config/many_problems.yaml", "validate"]),
        promptexec().args(["-c", "config/mock_problems.yaml", "validate"]),
    ]);
    for (name, out) in ["good", "many_problems", "mock_problems"].iter().zip(&outs) {
        snapshot(&format!("validate_{name}"), out);
    }
}

/// `promptexec ARGS --library LIBRARY` in the fixtures directory.
fn library(path: &Path, args: &[&str]) -> Invocation {
    promptexec().args(args).arg("--library").arg(path)
}

#[test]
fn library_commands() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("library.db");
    let steps: &[(&str, &[&str])] = &[
        (
            "add",
            &["prompt", "add", "library/greeting.json", "--agent", "alice"],
        ),
        (
            "add_again",
            &[
                "prompt",
                "add",
                "library/summarize.json",
                "--agent",
                "alice",
            ],
        ),
        (
            "add_version",
            &[
                "prompt",
                "add",
                "library/greeting_v2.json",
                "--agent",
                "bob",
            ],
        ),
        ("rate", &["prompt", "rate", "greeting", "4"]),
        ("lock", &["prompt", "lock", "summarize"]),
        ("list", &["prompt", "list"]),
        ("list_tag", &["prompt", "list", "--tag", "writing"]),
        ("show", &["prompt", "show", "greeting"]),
        (
            "show_version",
            &["prompt", "show", "greeting", "--version", "1"],
        ),
        ("show_unknown", &["prompt", "show", "nope"]),
        ("search", &["prompt", "search", "summarize"]),
        ("search_nothing", &["prompt", "search", "xyzzy"]),
        ("history", &["prompt", "history", "greeting"]),
        (
            "render",
            &[
                "prompt",
                "render",
                "greeting",
                "--agent",
                "planner",
                "--var",
                "name=Ada",
                "--var",
                "tone=formal",
                "--var",
                "account=ACC-123",
            ],
        ),
        (
            "render_missing_slot",
            &["prompt", "render", "greeting", "--var", "name=Ada"],
        ),
        ("audit", &["prompt", "audit"]),
        ("audit_verify", &["prompt", "audit", "verify"]),
    ];
    // Each step changes the library the next one reads: they run in order.
    for (name, args) in steps {
        let out = library(&db, args).run();
        snapshot(&format!("library_{name}"), &out);
    }
}
