//! Exec hooks: fail-closed filters, observers that never block or linger, ordering,
//! and every example hook through `hook test`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use promptexec::config::Hook;
use promptexec::hooks::{Gate, HookDispatcher, ToolCallInfo};
use serde_json::{Value as Json, json};
use tokio_util::sync::CancellationToken;

use crate::util::{
    Outcome, fixtures, gone, load_hooks, pid_in, promptexec, provider_request, repo_root,
};

fn hooks_dir() -> PathBuf {
    fixtures().join("hooks")
}

/// Hooks from a config written into `dir`; fixture scripts get their files and modes
/// as arguments, so tests running side by side do not share environment variables.
fn hooks_in(dir: &Path, hooks_yaml: &str) -> Vec<Hook> {
    let fixtures = hooks_dir().display().to_string();
    load_hooks(dir, &hooks_yaml.replace("FIXTURES", &fixtures))
}

fn probe(name: &str, hook_mode: &str, mode_arg: &str, pidfile: &Path) -> String {
    format!(
        "    {name}:\n      command: FIXTURES/probe.sh\n      args: [{mode_arg}, {}]\n      hook: provider\n      phases: [before_call]\n      mode: {hook_mode}\n      timeout_ms: 500\n",
        pidfile.display()
    )
}

const FAILURE_KINDS: &[&str] = &[
    "crash",
    "nonzero_allow",
    "timeout",
    "empty",
    "invalid_json",
    "empty_object",
    "string_allow",
    "two_docs",
];

#[track_caller]
fn hook_test(dir: &Path, config: &str, args: &[&str], env: &[(&str, &str)]) -> Outcome {
    promptexec()
        .in_dir(dir)
        .args(["-c", config, "hook", "test"])
        .args(args)
        .envs(env)
        .run()
}

#[test]
fn every_failure_of_a_filter_hook_denies_and_names_the_hook() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pidfile = dir.path().join("pid").display().to_string();
    for mode in FAILURE_KINDS {
        let out = hook_test(
            &hooks_dir(),
            "hooks.yaml",
            &["filter_probe"],
            &[("MODE", mode), ("PIDFILE", &pidfile)],
        );
        assert_eq!(out.code, 3, "{mode}: {}", out.stderr);
        let report: Json = serde_json::from_str(&out.stdout).expect("decision JSON");
        assert_eq!(report["decision"], "failed", "{mode}");
        let reason = report["reason"].as_str().unwrap_or_default();
        assert!(
            reason.contains("hook `filter_probe` failed"),
            "{mode}: {reason}"
        );
        assert!(
            out.stderr.contains("in a run this would deny"),
            "{mode}: {}",
            out.stderr
        );
    }
    let out = hook_test(
        &hooks_dir(),
        "hooks.yaml",
        &["filter_probe"],
        &[("MODE", "allow")],
    );
    out.expect_code(0);
}

#[tokio::test]
async fn failures_deny_through_the_dispatcher_and_observers_never_deny() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pidfile = dir.path().join("pid");
    for mode in FAILURE_KINDS {
        let filter = hooks_in(dir.path(), &probe("filter_probe", "filter", mode, &pidfile));
        let mut filters = HookDispatcher::new(filter, CancellationToken::new());
        let phase = filters.before_call(provider_request(), vec![]).await;
        assert_eq!(phase.ran, ["filter_probe"]);
        let Gate::AbortTurn { hook, reason } = phase.gate else {
            panic!("{mode}: a failing filter must deny")
        };
        assert_eq!(hook, "filter_probe");
        assert!(
            reason.contains("hook `filter_probe` failed"),
            "{mode}: {reason}"
        );

        let observer = hooks_in(
            dir.path(),
            &probe("observe_probe", "observe", mode, &pidfile),
        );
        let mut observers = HookDispatcher::new(observer, CancellationToken::new());
        let phase = observers.before_call(provider_request(), vec![]).await;
        assert!(
            matches!(phase.gate, Gate::Proceed(_)),
            "{mode}: observers never deny"
        );
        observers.finish().await;
    }
}

#[tokio::test]
async fn a_sleeping_observer_neither_delays_the_turn_nor_outlives_its_deadline() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pidfile = dir.path().join("sleepy.pid");
    let order = dir.path().join("order.log");
    let hooks = hooks_in(
        dir.path(),
        &format!(
            "    sleepy:\n      command: FIXTURES/probe.sh\n      args: [timeout, {pid}]\n      hook: provider\n      phases: [before_call]\n      mode: observe\n      timeout_ms: 3000\n    gate:\n      command: FIXTURES/order_probe.sh\n      args: [gate, allow, {order}]\n      hook: provider\n      phases: [before_call]\n",
            pid = pidfile.display(),
            order = order.display()
        ),
    );
    let mut dispatcher = HookDispatcher::new(hooks, CancellationToken::new());
    let started = Instant::now();
    let phase = dispatcher.before_call(provider_request(), vec![]).await;
    let turn = started.elapsed();
    assert!(matches!(phase.gate, Gate::Proceed(_)));
    assert_eq!(phase.ran, ["gate"], "only the filter is waited for");
    assert!(
        turn < Duration::from_millis(2500),
        "the turn was not held by the observer: {turn:?}"
    );
    dispatcher.finish().await;
    let total = started.elapsed();
    assert!(
        total < Duration::from_millis(3000 + 2000 + 1500),
        "killed at its deadline: {total:?}"
    );
    assert!(gone(pid_in(&pidfile)), "the observer is gone");
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
    assert_eq!(out.stdout.lines().count(), 2, "one decision per phase");
    assert!(out.elapsed < Duration::from_secs(5), "{:?}", out.elapsed);
    assert!(
        !Path::new(&pidfile).exists(),
        "the observer was not even started"
    );
}

#[tokio::test]
async fn hooks_run_by_priority_then_declaration_and_the_first_deny_stops_the_chain() {
    let dir = tempfile::tempdir().expect("temp dir");
    let order = dir.path().join("order.log");
    // Declared out of order on purpose: priority decides, then declaration order.
    let hook = |name: &str, answer: &str, priority: i32| {
        format!(
            "    {name}:\n      command: FIXTURES/order_probe.sh\n      args: [{name}, {answer}, {}]\n      hook: tool\n      phases: [before_execution]\n      priority: {priority}\n",
            order.display()
        )
    };
    let yaml = [
        hook("late", "allow", 5),
        hook("tie_first", "allow", 0),
        hook("denier", "deny", 0),
        hook("early", "allow", -1),
    ]
    .concat();
    let call = ToolCallInfo {
        name: "db_query".into(),
        args: json!({"sql": "SELECT 1"}),
        call_id: "call_1".into(),
    };
    for round in 0..20 {
        let _ = std::fs::remove_file(&order);
        let mut dispatcher =
            HookDispatcher::new(hooks_in(dir.path(), &yaml), CancellationToken::new());
        let phase = dispatcher.before_execution(call.clone()).await;
        assert_eq!(phase.ran, ["early", "tie_first", "denier"], "round {round}");
        let Gate::DenyTool { hook, reason } = phase.gate else {
            panic!("denied")
        };
        assert_eq!(
            (hook.as_str(), reason.as_str()),
            ("denier", "denier says no")
        );
        let log = std::fs::read_to_string(&order).expect("order log");
        assert_eq!(
            log.lines().collect::<Vec<_>>(),
            ["early", "tie_first", "denier"],
            "`late` never ran"
        );
    }
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
    let report: Json = serde_json::from_str(&out.stdout).expect("JSON");
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
    let phases: Vec<Json> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(
        phases
            .iter()
            .map(|p| p["phase"].clone())
            .collect::<Vec<_>>(),
        [json!("before_call"), json!("after_call")]
    );

    let out = example(&["sql_allowlist"]);
    assert_eq!(
        out.code, 0,
        "a lookup_order call is not a query: {}",
        out.stderr
    );
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
    assert_eq!(out.code, 2);
    out.stderr_has("it can take `before_call` or `after_call`");
    let out = hook_test(
        &repo_root(),
        "runtimeconfig.example.yaml",
        &["pii_gaurd"],
        &[],
    );
    assert_eq!(out.code, 2);
    out.stderr_has("did you mean `pii_guard`?");
}
