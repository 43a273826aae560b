//! The checks on the shape of the calls: rules every call keeps, excluded
//! arguments, repeats, anti-patterns and chains.

use serde_json::json;

use super::{broke, call, calls, case, fail, ok, pass};

mod tool_shape_checks_pass_and_fail {
    use super::*;

    table! {
        super::super::judge_row, {
            let lookup = |id: &str, result: &str| ok("lookup", json!({"id": id}), result);
        }
        tool_calls_with_args_every_call_keeps_the_rule: (
            "tool_calls_with_args: every call keeps the rule",
            case(
                "tool_calls_with_args",
                "x",
                json!({"tool_name": "lookup", "args_match": {"id": "^A-\\d+$"}, "result_includes": ["shipped"], "no_error": true}),
            )
            .with(calls(vec![lookup("A-1", "Shipped"), call("other"), lookup("A-2", "shipped today")])),
            pass("all 2 call(s) keep the rule"),
        );
        tool_calls_with_args_one_call_breaks_it: (
            "tool_calls_with_args: one call breaks it",
            case(
                "tool_calls_with_args",
                "x",
                json!({"tool_name": "lookup", "expected_args": {"id": "A-1"}}),
            )
            .with(calls(vec![lookup("A-1", ""), lookup("B-2", "")])),
            fail(0.5, "lookup: `id` is not \"A-1\""),
        );
        tool_calls_with_args_a_named_tool_never_called_fails: (
            "tool_calls_with_args: a named tool never called fails",
            case("tool_calls_with_args", "x", json!({"tool_name": "lookup"}))
                .with(calls(vec![call("other")])),
            fail(0.0, "`lookup` was not called"),
        );
        tool_args_excluded_a_forbidden_value: (
            "tool_args_excluded: a forbidden value",
            case(
                "tools_not_called_with_args",
                "x",
                json!({"tool_name": "lookup", "excluded_args": {"id": ["A-1", "A-9"]}}),
            )
            .with(calls(vec![lookup("A-2", ""), lookup("A-9", "")])),
            fail(0.0, "`lookup` was called with id = \"A-9\""),
        );
        tool_args_excluded_none_seen: (
            "tool_args_excluded: none seen",
            case(
                "tool_args_excluded",
                "x",
                json!({"tool_name": "lookup", "forbidden_args": {"id": "A-1"}}),
            )
            .with(calls(vec![lookup("A-2", "")])),
            pass("got none of the excluded arguments"),
        );
        tool_no_repeat_twice_in_a_row: (
            "tool_no_repeat: twice in a row",
            case("tool_no_repeat", "x", json!({}))
                .with(calls(vec![call("a"), call("b"), call("b")])),
            fail(0.0, "`b` was called 2 times in a row (at most 1)"),
        );
        tool_no_repeat_repeats_allowed_and_out_of_scope: (
            "tool_no_repeat: repeats allowed, and out of scope",
            case("tool_no_repeat", "x", json!({"tools": ["a"], "max_repeats": 2}))
                .with(calls(vec![call("a"), call("a"), call("b"), call("b"), call("b")])),
            pass("no tool called more than 2"),
        );
        tool_anti_pattern_a_sequence_to_avoid: (
            "tool_anti_pattern: a sequence to avoid",
            case(
                "tool_anti_pattern",
                "x",
                json!({"patterns": [{"sequence": ["refund", "refund"], "message": "double refund"}]}),
            )
            .with(calls(vec![call("lookup"), call("refund"), call("refund")])),
            fail(0.0, "found: double refund"),
        );
        tool_anti_pattern_only_consecutive_calls_make_the_sequence: (
            "tool_anti_pattern: only consecutive calls make the sequence",
            case(
                "tool_anti_pattern",
                "x",
                json!({"patterns": [{"sequence": ["refund", "refund"]}]}),
            )
            .with(calls(vec![call("refund"), call("lookup"), call("refund")])),
            pass("no anti-pattern"),
        );
        tool_call_chain_every_step_in_order: (
            "tool_call_chain: every step in order",
            case(
                "tool_call_chain",
                "x",
                json!({"steps": [{"tool": "lookup", "result_includes": ["A-1"]}, {"tool": "refund", "no_error": true}]}),
            )
            .with(calls(vec![lookup("A-1", "order A-1"), call("note"), call("refund")])),
            pass("2 of 2 steps"),
        );
        tool_call_chain_a_step_whose_call_breaks_its_rule: (
            "tool_call_chain: a step whose call breaks its rule",
            case(
                "tool_call_chain",
                "x",
                json!({"steps": [{"tool": "lookup"}, {"tool": "refund", "no_error": true}]}),
            )
            .with(calls(vec![call("lookup"), broke("refund")])),
            fail(0.5, "1 of 2 steps of lookup → refund; refund: it failed"),
        );
    }
}
