//! The dispatcher over exec hooks: fail-closed filters, observers that never block or
//! linger, and the order hooks run in. The fixture scripts live in
//! `tests/fixtures/hooks`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::config::Hook;
use crate::conversation::ToolCallInfo;
use crate::hooks::{Gate, HookDispatcher};
use crate::test_support::{fixtures, gone, load_hooks, pid_in, provider_request};

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

/// A filter hook failing the way `mode` names (`probe.sh`'s first argument) denies
/// through the dispatcher, naming itself; the same failure of an observer never denies.
async fn a_failure_denies_only_in_a_filter(mode: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let pidfile = dir.path().join("pid");
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

/// One test per way a hook can fail.
macro_rules! failure_kinds {
    ($($mode:ident),* $(,)?) => {
        mod a_failure_denies_only_in_a_filter {
            $(
                #[tokio::test]
                async fn $mode() {
                    super::a_failure_denies_only_in_a_filter(stringify!($mode)).await;
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
