//! The check on what hooks decided.

use serde_json::json;

use super::{case, fail, judge_all, pass};

#[test]
fn hook_decisions_pass_and_fail() {
    let denied = json!({"hooks": [
        {"hook": "guard", "phase": "before_execution"},
        {"hook": "guard", "phase": "before_execution", "action": "deny_tool", "reason": "no"},
        {"hook": "audit", "phase": "session_update"},
    ]});
    let deny = json!({"hook": "guard", "action": "deny"});
    judge_all(vec![
        (
            "deny matches a denied tool call",
            case("hook_decision", "", deny.clone()).with(denied.clone()),
            pass("decided `deny`"),
        ),
        (
            "the phase must match when given",
            case(
                "hook_decision",
                "",
                json!({"hook": "guard", "action": "deny_tool", "phase": "before_call"}),
            )
            .with(denied.clone()),
            fail(0.0, "was not consulted at before_call"),
        ),
        (
            "allow: consulted, and no intervention",
            case(
                "hook_decision",
                "",
                json!({"hook": "audit", "action": "allow"}),
            )
            .with(denied.clone()),
            pass("decided `allow`"),
        ),
        (
            "allow fails when the hook intervened",
            case(
                "hook_decision",
                "",
                json!({"hook": "guard", "action": "allow"}),
            )
            .with(denied.clone()),
            fail(0.0, "decided deny_tool"),
        ),
        (
            "a hook never consulted decided nothing",
            case(
                "hook_decision",
                "",
                json!({"hook": "other", "action": "allow"}),
            )
            .with(denied),
            fail(0.0, "`other` was not consulted"),
        ),
        (
            "a hook that let everything through did not deny",
            case("hook_decision", "", deny)
                .with(json!({"hooks": [{"hook": "guard", "phase": "before_call"}]})),
            fail(0.0, "let everything through"),
        ),
    ]);
}

#[test]
fn sentences_and_fields_are_counted() {
    judge_all(vec![
        (
            "sentence_count: within the range",
            case(
                "sentence_count",
                "Hello there. How are you? Fine!",
                json!({"min": 2, "max": 3}),
            ),
            pass("3 sentence(s)"),
        ),
        (
            "sentence_count: decimals and a missing full stop",
            case(
                "max_sentences",
                "It costs 3.50 dollars. Thanks",
                json!({"max": 1}),
            ),
            fail(0.0, "2 sentence(s), expected at most 1"),
        ),
        (
            "max_sentences: PromptKit's name for `max`",
            case(
                "max_sentences",
                "One. Two. Three.",
                json!({"max_sentences": 2}),
            ),
            fail(0.0, "3 sentence(s), expected at most 2"),
        ),
        (
            "field_presence: key paths in a JSON answer",
            case(
                "required_fields",
                r#"{"order": {"id": 1}}"#,
                json!({"fields": ["order.id", "status"]}),
            ),
            fail(0.5, "missing: status"),
        ),
        (
            "field_presence: text in any other answer, any case",
            case(
                "field_presence",
                "Order ID: 7, Status: shipped",
                json!({"fields": ["order id", "status"]}),
            ),
            pass("every field is present"),
        ),
    ]);
}
