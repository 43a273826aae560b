//! Exec hooks and JSON-RPC hooks in one ordered chain, through the dispatcher the
//! conversation driver uses.

use std::path::Path;

use serde_json::{Value as Json, json};
use tokio_util::sync::CancellationToken;

use crate::config::{self, Hook};
use crate::conversation::{ToolCallInfo, ToolResultInfo};
use crate::hooks::{Gate, HookDispatcher};
use crate::test_support::{fixtures, load_hooks, provider_request, repo_root};

/// Hooks from a config written into `dir`; `FIXTURES` stands for the hook fixtures.
fn hooks_in(dir: &Path, hooks_yaml: &str) -> Vec<Hook> {
    let fixtures = fixtures().join("hooks").display().to_string();
    load_hooks(dir, &hooks_yaml.replace("FIXTURES", &fixtures))
}

fn rpc(name: &str, args: &str, intercept: &str, extra: &str) -> String {
    format!(
        "    {name}:\n      command: FIXTURES/rpc_hook.py\n      args: [{args}]\n      runtime: server\n      intercept: [{intercept}]\n{extra}"
    )
}

fn call(args: Json) -> ToolCallInfo {
    ToolCallInfo {
        name: "db_query".into(),
        args,
        call_id: "call_1_db_query".into(),
    }
}

#[tokio::test]
async fn row19_two_modify_hooks_apply_in_declared_order_with_exec_hooks_between() {
    let dir = tempfile::tempdir().expect("temp dir");
    let order = dir.path().join("order.log");
    let yaml = [
        rpc("first", "--append, first", "before_tool", ""),
        format!(
            "    audit:\n      command: FIXTURES/order_probe.sh\n      args: [audit, allow, {}]\n      hook: tool\n      phases: [before_execution]\n",
            order.display()
        ),
        rpc("second", "--append, second", "before_tool", ""),
    ]
    .concat();
    for round in 0..10 {
        let mut dispatcher =
            HookDispatcher::new(hooks_in(dir.path(), &yaml), CancellationToken::new());
        let phase = dispatcher
            .before_execution(call(json!({"sql": "SELECT 1"})))
            .await;
        assert_eq!(phase.ran, ["first", "audit", "second"], "round {round}");
        let Gate::Proceed(call) = phase.gate else {
            panic!("proceeds")
        };
        assert_eq!(
            call.args["trail"],
            json!(["first", "second"]),
            "round {round}"
        );
        dispatcher.finish().await;
    }
}

#[tokio::test]
async fn approvers_see_the_modified_call_and_the_first_denial_wins() {
    let dir = tempfile::tempdir().expect("temp dir");
    let yaml = [
        rpc("first", "--append, first", "before_tool", ""),
        rpc("approver", "--deny-approvals", "approve_tool", ""),
        rpc("lenient", "", "approve_tool", ""),
    ]
    .concat();
    let mut dispatcher = HookDispatcher::new(hooks_in(dir.path(), &yaml), CancellationToken::new());
    let phase = dispatcher
        .before_execution(call(json!({"sql": "DELETE FROM products"})))
        .await;
    assert_eq!(phase.ran, ["first", "approver"]);
    let Gate::DenyTool { hook, reason } = phase.gate else {
        panic!("denied")
    };
    assert_eq!(hook, "approver");
    assert!(
        reason.contains(r#""trail": ["first"]"#),
        "the approver saw the modified call: {reason}"
    );
    dispatcher.finish().await;
}

#[tokio::test]
async fn respond_answers_for_the_tool_and_after_tool_modify_rewrites_the_result() {
    let dir = tempfile::tempdir().expect("temp dir");
    let yaml = rpc("cache", "", "before_tool, after_tool", "");
    let mut dispatcher = HookDispatcher::new(hooks_in(dir.path(), &yaml), CancellationToken::new());
    let cached = json!({"_reply": {"action": "respond", "result": {"for_llm": "cached rows"}}});
    let phase = dispatcher.before_execution(call(cached)).await;
    let Gate::Respond { hook, result } = phase.gate else {
        panic!("the hook answered for the tool")
    };
    assert_eq!(
        (hook.as_str(), result),
        ("cache", json!({"for_llm": "cached rows"}))
    );
    let redact = call(json!({"_reply": {"action": "modify", "result": {"for_llm": "[redacted]"}}}));
    let result = ToolResultInfo {
        name: "db_query".into(),
        call_id: redact.call_id.clone(),
        content: "{\"ssn\": \"123-45-6789\"}".into(),
        latency_ms: 3,
        is_error: false,
    };
    let phase = dispatcher.after_execution(&redact, result).await;
    let Gate::Proceed(result) = phase.gate else {
        panic!("proceeds")
    };
    assert_eq!(result.content, "[redacted]");
    dispatcher.finish().await;
}

#[tokio::test]
async fn an_enforced_exec_denial_goes_on_with_the_replacement() {
    let dir = tempfile::tempdir().expect("temp dir");
    let yaml = format!(
        "    redactor:\n      command: FIXTURES/probe.sh\n      args: [enforced, {}]\n      hook: provider\n      phases: [before_call]\n",
        dir.path().join("pid").display()
    );
    let mut dispatcher = HookDispatcher::new(hooks_in(dir.path(), &yaml), CancellationToken::new());
    let phase = dispatcher.before_call(provider_request(), vec![]).await;
    let Gate::Replaced {
        hook,
        reason,
        replacement,
        ..
    } = phase.gate
    else {
        panic!("replaced, not aborted")
    };
    assert_eq!(
        (hook.as_str(), reason.as_str()),
        ("redactor", "PII redacted")
    );
    assert_eq!(replacement.as_deref(), Some("[redacted]"));
}

#[tokio::test]
async fn an_injected_tool_is_offered_and_served_by_the_plugin() {
    let example = config::load(&repo_root().join("runtimeconfig.example.yaml"), false)
        .expect("example loads");
    let plugin: Vec<Hook> = example
        .value
        .hooks
        .into_values()
        .filter(|h| h.name == "faq_plugin")
        .collect();
    let mut dispatcher = HookDispatcher::new(plugin, CancellationToken::new());
    let phase = dispatcher.before_call(provider_request(), vec![]).await;
    let Gate::Proceed((_, tools)) = phase.gate else {
        panic!("proceeds")
    };
    assert!(
        tools.iter().any(|t| t["function"]["name"] == "store_faq"),
        "{tools:?}"
    );
    let faq = ToolCallInfo {
        name: "store_faq".into(),
        args: json!({"topic": "shipping"}),
        call_id: "call_2_store_faq".into(),
    };
    let phase = dispatcher.before_execution(faq).await;
    let Gate::Respond { hook, result } = phase.gate else {
        panic!("the plugin answers")
    };
    assert_eq!(hook, "faq_plugin");
    assert!(
        result["for_llm"]
            .as_str()
            .unwrap_or_default()
            .contains("2 business days")
    );
    dispatcher.finish().await;
}

#[tokio::test]
async fn events_reach_only_the_hooks_that_observe_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let all = dir.path().join("all.jsonl");
    let some = dir.path().join("some.jsonl");
    let yaml = [
        rpc(
            "watch_all",
            &format!("--events, {}", all.display()),
            "",
            "      observe: \"*\"\n      event_method: hook.event\n",
        ),
        rpc(
            "watch_tools",
            &format!("--events, {}", some.display()),
            "",
            "      observe: [tool_exec_end]\n      event_method: hook.event\n",
        ),
    ]
    .concat()
    .replace("      intercept: []\n", "");
    let mut dispatcher = HookDispatcher::new(hooks_in(dir.path(), &yaml), CancellationToken::new());
    dispatcher.start().await.expect("handshakes");
    dispatcher.event("turn_start", &json!({"turn": 1}));
    dispatcher.event("tool_exec_end", &json!({"Tool": "db_query"}));
    assert_eq!(dispatcher.finish().await, 0, "no event was dropped");
    let read = |p: &Path| -> Vec<Json> {
        std::fs::read_to_string(p)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect()
    };
    let kinds = |events: Vec<Json>| -> Vec<String> {
        events
            .iter()
            .map(|e| e["params"]["Kind"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(kinds(read(&all)), ["turn_start", "tool_exec_end"]);
    assert_eq!(kinds(read(&some)), ["tool_exec_end"]);
    assert_eq!(read(&all)[0]["method"], "hook.event");
}

#[tokio::test]
async fn events_that_cannot_be_delivered_are_counted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let yaml =
        rpc("watcher", "", "", "      observe: \"*\"\n").replace("      intercept: []\n", "");
    let mut dispatcher = HookDispatcher::new(hooks_in(dir.path(), &yaml), CancellationToken::new());
    // Never started, so nothing can take the events; the turn is not held either.
    dispatcher.event("turn_start", &json!({}));
    dispatcher.event("turn_end", &json!({}));
    assert_eq!(dispatcher.finish().await, 2);
}
