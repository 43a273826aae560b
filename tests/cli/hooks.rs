//! Exec hooks through `hook test`: a failing filter denies and names itself, one hook
//! is not held by a sleeping observer, and every example hook answers its events. The
//! dispatcher itself is tested next to it, in `src/hooks/dispatch_tests.rs`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value as Json, json};

use crate::util::{Outcome, fixtures, promptexec, repo_root};

fn hooks_dir() -> PathBuf {
    fixtures().join("hooks")
}

#[track_caller]
fn hook_test(dir: &Path, config: &str, args: &[&str], env: &[(&str, &str)]) -> Outcome {
    promptexec()
        .in_dir(dir)
        .args(["-c", config, "hook", "test"])
        .args(args)
        .envs(env)
        .run()
}

/// `hook test` of a filter hook failing the way `mode` names (`probe.sh`'s `MODE`):
/// a failed decision naming the hook, and a note that a run would deny.
fn a_failed_filter_denies_naming_itself(mode: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let pidfile = dir.path().join("pid").display().to_string();
    let out = hook_test(
        &hooks_dir(),
        "hooks.yaml",
        &["filter_probe"],
        &[("MODE", mode), ("PIDFILE", &pidfile)],
    );
    out.expect_code(3);
    // The decision, as JSON.
    let report = out.json();
    assert_eq!(report["decision"], "failed", "{mode}");
    let reason = report["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("hook `filter_probe` failed"),
        "{mode}: {reason}"
    );
    out.stderr_has("in a run this would deny");
}

/// One test per way a filter hook can fail.
macro_rules! failure_kinds {
    ($($mode:ident),* $(,)?) => {
        mod every_failure_of_a_filter_hook_denies_and_names_the_hook {
            $(
                #[test]
                fn $mode() {
                    super::a_failed_filter_denies_naming_itself(stringify!($mode));
                }
            )*
        }
    };
}

failure_kinds!(
    crash,
    nonzero_allow,
    timeout,
    empty,
    invalid_json,
    empty_object,
    string_allow,
    two_docs,
);

#[test]
fn the_filter_probe_allowing_is_allowed() {
    let out = hook_test(
        &hooks_dir(),
        "hooks.yaml",
        &["filter_probe"],
        &[("MODE", "allow")],
    );
    out.expect_code(0);
}

#[test]
fn hook_test_of_one_hook_is_not_held_by_a_sleeping_observer() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pidfile = dir.path().join("pid").display().to_string();
    let order = dir.path().join("order").display().to_string();
    let out = hook_test(
        &hooks_dir(),
        "observers.yaml",
        &["gate", "--all-phases"],
        &[("PIDFILE", &pidfile), ("ORDER_LOG", &order)],
    );
    out.expect_code(0);
    assert_eq!(out.json_lines().len(), 2, "one decision per phase");
    assert!(out.elapsed < Duration::from_secs(5), "{:?}", out.elapsed);
    assert!(
        !Path::new(&pidfile).exists(),
        "the observer was not even started"
    );
}

#[test]
fn pii_guard_denies_an_ssn_and_allows_a_clean_message() {
    let dir = tempfile::tempdir().expect("temp dir");
    let event = dir.path().join("event.json");
    let write = |text: &str| {
        std::fs::write(
            &event,
            json!({"messages": [{"role": "user", "content": text}]}).to_string(),
        )
        .expect("write event")
    };
    let arg = format!("@{}", event.display());
    let example = |args: &[&str]| hook_test(&repo_root(), "runtimeconfig.example.yaml", args, &[]);

    write("My SSN is 123-45-6789, please update my account.");
    let out = example(&["pii_guard", "--phase", "before_call", "--event", &arg]);
    out.expect_code(1);
    let report = out.json();
    assert_eq!(report["decision"], "deny");
    assert_eq!(report["reason"], "personal data (ssn) in the conversation");

    write("Where is my order A-1002?");
    let out = example(&["pii_guard", "--phase", "before_call", "--event", &arg]);
    out.expect_code(0);
}

#[test]
fn every_example_hook_answers_its_sample_events() {
    let dir = tempfile::tempdir().expect("temp dir");
    let audit = dir.path().join("audit.jsonl").display().to_string();
    let metrics = dir.path().join("metrics.jsonl").display().to_string();
    let env = [
        ("AUDIT_LOG", audit.as_str()),
        ("EVAL_METRICS_LOG", metrics.as_str()),
    ];
    let example = |args: &[&str]| hook_test(&repo_root(), "runtimeconfig.example.yaml", args, &env);

    let out = example(&["pii_guard", "--all-phases"]);
    out.expect_code(0);
    let phases = out.json_lines();
    assert_eq!(
        phases
            .iter()
            .map(|p| p["phase"].clone())
            .collect::<Vec<_>>(),
        [json!("before_call"), json!("after_call")]
    );

    let out = example(&["sql_allowlist"]);
    // A lookup_order call is not a query.
    out.expect_code(0);
    let out = example(&[
        "sql_allowlist",
        "--event",
        r#"{"name": "db_query", "args": {"sql": "SELECT name FROM products WHERE stock = 0"}, "call_id": "c1"}"#,
    ]);
    out.expect_code(0);
    let out = example(&[
        "sql_allowlist",
        "--event",
        r#"{"name": "db_query", "args": {"sql": "DELETE FROM products"}, "call_id": "c2"}"#,
    ]);
    out.expect_code(1);
    out.stdout_has("query not on the allowlist");

    let out = example(&["audit_log", "--all-phases"]);
    out.expect_code(0);
    let lines: Vec<Json> = std::fs::read_to_string(&audit)
        .expect("audit log written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSONL"))
        .collect();
    let phases: Vec<&str> = lines
        .iter()
        .map(|l| l["phase"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(phases, ["session_start", "session_update", "session_end"]);

    let out = example(&["eval_metrics"]);
    out.expect_code(0);
    let metric: Json = serde_json::from_str(
        std::fs::read_to_string(&metrics)
            .expect("metrics written")
            .trim(),
    )
    .expect("JSON line");
    assert_eq!(metric["eval_id"], "mentions-order");
    assert_eq!(metric["passed"], true);
}

#[test]
fn phase_errors_are_usage_errors() {
    let out = hook_test(
        &repo_root(),
        "runtimeconfig.example.yaml",
        &["pii_guard", "--phase", "before_execution"],
        &[],
    );
    out.expect_code(2);
    out.stderr_has("it can take `before_call` or `after_call`");
    let out = hook_test(
        &repo_root(),
        "runtimeconfig.example.yaml",
        &["pii_gaurd"],
        &[],
    );
    out.expect_code(2);
    out.stderr_has("did you mean `pii_guard`?");
}
