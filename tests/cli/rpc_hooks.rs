//! Long-running JSON-RPC hooks through `hook test`: handshake, every action, failures
//! and their policy. A crash mid-call is tested on the hook itself, in
//! `src/hooks/rpc_hook_tests.rs`.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value as Json, json};

use crate::util::{
    Invocation, Outcome, example_config, filtered, fixtures, hook_event, promptexec, run_all,
};

fn hooks_dir() -> PathBuf {
    fixtures().join("hooks")
}

#[track_caller]
fn hook_test(args: &[&str]) -> Outcome {
    hook_test_of(args).run()
}

/// `promptexec -c rpc.yaml hook test ARGS` in the hooks fixtures, not started yet.
fn hook_test_of(args: &[&str]) -> Invocation {
    promptexec()
        .in_dir(hooks_dir())
        .args(["-c", "rpc.yaml", "hook", "test"])
        .args(args)
}

#[track_caller]
fn decision(out: &Outcome) -> Json {
    out.json()
}

/// The `reason` of a decision, empty when there is none.
#[track_caller]
fn reason_of(out: &Outcome) -> String {
    decision(out)["reason"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// A failed hook whose failure a run would count as a denial.
#[track_caller]
fn expect_denial(out: &Outcome) {
    out.expect_code(3);
    let reason = reason_of(out);
    assert!(
        reason.ends_with("in a run this is a denial (and the run exits 3)"),
        "{reason}"
    );
}

#[test]
fn a_handshake_that_never_answers_fails_within_its_deadline_naming_the_hook() {
    let out = hook_test(&["mute_hello"]);
    out.expect_code(3);
    let report = decision(&out);
    assert_eq!(report["phase"], "hook.hello");
    let reason = report["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("`mute_hello` failed its `hook.hello` handshake: no reply within 500 ms"),
        "{reason}"
    );
    assert!(
        out.elapsed < Duration::from_millis(500 + 2000 + 1500),
        "{:?}",
        out.elapsed
    );
}

#[test]
fn a_handshake_error_reply_is_reported() {
    let out = hook_test(&["refusing_hello"]);
    out.expect_code(3);
    let reason = reason_of(&out);
    assert!(
        reason.contains("JSON-RPC error -32001: config missing"),
        "{reason}"
    );
}

/// `hook test` of the `gate` hook answering `reply` in `phase`: the action read, the
/// decision and exit code it makes, and for `modify` and `respond` the object shown.
fn an_action(phase: &str, reply: Json, expected: &str, code: i32) {
    let event = json!({"tool": "t", "arguments": {}, "_reply": reply}).to_string();
    let out = hook_test(&["gate", "--phase", phase, "--event", &event]);
    out.expect_code(code);
    let report = decision(&out);
    assert_eq!(report["action"], expected, "{phase} {reply}");
    let decision = match code {
        0 => "allow",
        1 => "deny",
        _ => "failed",
    };
    assert_eq!(report["decision"], decision, "{phase} {reply}");
    let output_key = ["request", "response", "call", "result"]
        .into_iter()
        .find(|k| reply.get(*k).is_some());
    if let (Some(key), "modify" | "respond") = (output_key, expected) {
        assert_eq!(
            report["output"], reply[key],
            "{phase}: the resulting object is shown"
        );
    }
}

/// One test per action of each method: `name: phase, reply => action, exit code;`.
macro_rules! actions {
    ($($name:ident: $phase:literal, $reply:tt => $expected:literal, $code:literal;)*) => {
        mod every_action_of_every_method {
            $(
                #[test]
                fn $name() {
                    super::an_action($phase, serde_json::json!($reply), $expected, $code);
                }
            )*
        }
    };
}

actions! {
    before_llm_continue: "before_llm", {"action": "continue"} => "continue", 0;
    before_llm_modify: "before_llm",
        {"action": "modify", "request": {"tools": [{"type": "function"}]}} => "modify", 0;
    before_llm_abort_turn: "before_llm",
        {"action": "abort_turn", "reason": "budget"} => "abort_turn", 1;
    after_llm_modify: "after_llm",
        {"action": "modify", "response": {"role": "assistant", "content": "edited"}} => "modify", 0;
    after_llm_hard_abort: "after_llm",
        {"action": "hard_abort", "reason": "stop everything"} => "hard_abort", 1;
    before_tool_modify: "before_tool",
        {"action": "modify", "call": {"tool": "t", "arguments": {"x": 2}}} => "modify", 0;
    before_tool_respond: "before_tool",
        {"action": "respond", "result": {"for_llm": "cached"}} => "respond", 0;
    before_tool_deny_tool: "before_tool",
        {"action": "deny_tool", "reason": "not today"} => "deny_tool", 1;
    after_tool_modify: "after_tool",
        {"action": "modify", "result": {"for_llm": "redacted"}} => "modify", 0;
    after_tool_continue: "after_tool", {"action": "continue"} => "continue", 0;
    approve_tool_approved: "approve_tool", {"approved": true} => "approved", 0;
    approve_tool_denied: "approve_tool",
        {"approved": false, "reason": "needs a person"} => "denied", 1;
    before_tool_unknown_action_fails: "before_tool", {"action": "explode"} => "failed", 3;
    after_llm_deny_tool_fails: "after_llm", {"action": "deny_tool"} => "failed", 3;
}

#[test]
fn an_unknown_action_names_itself() {
    let event = json!({"_reply": {"action": "teleport"}}).to_string();
    let out = hook_test(&["gate", "--phase", "before_tool", "--event", &event]);
    out.expect_code(3);
    out.stderr_has("unknown action `teleport`");
    filtered(|| {
        insta::assert_snapshot!(out.stdout, @r#"
        {
          "hook": "gate",
          "phase": "before_tool",
          "decision": "failed",
          "action": "failed",
          "reason": "unknown action `teleport`; in a run this is skipped (and the run exits 3)",
          "metadata": {},
          "output": null,
          "duration_ms": [ms],
          "stderr_tail": ""
        }
        "#);
    });
}

#[test]
fn a_reply_to_an_unknown_id_is_skipped() {
    let out = hook_test(&[
        "gate",
        "--phase",
        "before_tool",
        "--event",
        r#"{"_stray": true}"#,
    ]);
    out.expect_code(0);
    assert_eq!(decision(&out)["action"], "continue");
}

#[test]
fn a_timed_out_interceptor_is_skipped_unless_the_hook_denies_on_failure() {
    // The hook answers after 1 s, twice its 500 ms deadline; `hook test` then waits for
    // it to finish, so a longer sleep only makes the test slower. Both gates overlap.
    let slow = r#"{"tool": "t", "arguments": {}, "_sleep": 1}"#;
    let [out, strict] = <[Outcome; 2]>::try_from(run_all(vec![
        hook_test_of(&["gate", "--phase", "before_tool", "--event", slow]),
        hook_test_of(&["strict_gate", "--phase", "before_tool", "--event", slow]),
    ]))
    .expect("two outcomes");
    out.expect_code(3);
    let reason = reason_of(&out);
    assert!(
        reason.contains("no reply within 500 ms; in a run this is skipped (and the run exits 3)"),
        "{reason}"
    );

    expect_denial(&strict);
}

#[test]
fn an_approval_that_times_out_denies() {
    let out = hook_test(&[
        "gate",
        "--phase",
        "approve_tool",
        "--event",
        // Twice the 500 ms approval deadline.
        r#"{"_sleep": 1}"#,
    ]);
    expect_denial(&out);
}

#[test]
fn the_review_gate_refuses_rm_rf() {
    let out = example_config()
        .args(hook_event(
            "review_gate",
            "before_tool",
            r#"{"tool": "shell", "arguments": {"command": "rm -rf /var/lib"}}"#,
        ))
        .run();
    out.expect_code(1);
    assert!(
        decision(&out)["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("dangerous shell command")
    );
    let out = example_config()
        .args(hook_event(
            "review_gate",
            "approve_tool",
            r#"{"tool": "db_query", "arguments": {"sql": "DELETE FROM products"}}"#,
        ))
        .run();
    // Writes need a reviewer.
    out.expect_code(1);
}

#[test]
fn the_faq_plugin_injects_its_tool_and_serves_it() {
    let out = example_config()
        .args(&["hook", "test", "faq_plugin", "--phase", "before_llm"])
        .run();
    out.expect_code(0);
    let tools = decision(&out)["output"]["tools"].clone();
    assert!(
        tools
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["function"]["name"] == "store_faq")),
        "{tools}"
    );
    let out = example_config()
        .args(hook_event(
            "faq_plugin",
            "before_tool",
            r#"{"tool": "store_faq", "arguments": {"topic": "returns"}}"#,
        ))
        .run();
    out.expect_code(0);
    let report = decision(&out);
    assert_eq!(report["action"], "respond");
    assert_eq!(report["decision"], "allow");
    assert!(
        report["output"]["for_llm"]
            .as_str()
            .unwrap_or_default()
            .contains("30 days")
    );
}
