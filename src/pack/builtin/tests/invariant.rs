//! `invariant_fields_preserved`: fields a tool's calls once carried are not
//! dropped by its later calls.

use serde_json::json;

use super::{call, calls, case, fail, ok, pass};

mod fields_kept_across_calls_of_a_tool {
    use super::*;

    table! {
        super::super::judge_row, {
            let params = json!({"tool": "update_order", "fields": ["name", "id"]});
            let update = |args: serde_json::Value| ok("update_order", args, "");
        }
        no_call_of_the_tool_passes: (
            "no call of the tool passes",
            case("invariant_fields_preserved", "x", params.clone())
                .with(calls(vec![ok("other_tool", json!({"name": "Alice"}), "")])),
            pass("called 0 time(s): no two calls to compare"),
        );
        one_call_passes: (
            "one call passes",
            case("invariant_fields_preserved", "x", params.clone())
                .with(calls(vec![update(json!({"name": "Alice", "id": "1"}))])),
            pass("called 1 time(s)"),
        );
        fields_kept_with_others_added_pass: (
            "fields kept, others added, pass",
            case("invariant_fields_preserved", "x", params.clone()).with(calls(vec![
                update(json!({"name": "Alice", "id": "1"})),
                update(json!({"name": "Alice", "id": "1", "status": "active"})),
                update(json!({"name": "Alice", "id": "1", "status": "done"})),
            ])),
            pass("every tracked field (2) kept over 3 calls of `update_order`"),
        );
        a_changed_value_is_still_kept: (
            "a changed value is still kept",
            case("invariant_fields_preserved", "x", params.clone()).with(calls(vec![
                update(json!({"name": "Alice", "id": "1"})),
                update(json!({"name": "Bob", "id": "2"})),
            ])),
            pass("kept over 2 calls"),
        );
        a_dropped_field_fails_with_the_share_kept: (
            "a dropped field fails with the share kept",
            case("invariant_fields_preserved", "x", params.clone()).with(calls(vec![
                update(json!({"name": "Alice", "id": "1"})),
                update(json!({"name": "Alice"})),
            ])),
            fail(0.5, "1 of 2 field(s) dropped by `update_order`: `id` missing from call 1"),
        );
        a_field_never_given_is_not_lost: (
            "a field never given is not lost",
            case("invariant_fields_preserved", "x", params.clone()).with(calls(vec![
                update(json!({"name": "Alice"})),
                update(json!({"name": "Alice"})),
                update(json!({"name": "Alice"})),
            ])),
            pass("every tracked field (2) kept"),
        );
        a_field_given_late_and_kept_passes: (
            "a field given late and kept passes",
            case("invariant_fields_preserved", "x", params.clone()).with(calls(vec![
                update(json!({"name": "Alice"})),
                update(json!({"name": "Alice", "id": "1"})),
                update(json!({"name": "Alice", "id": "1"})),
            ])),
            pass("kept over 3 calls"),
        );
        a_field_given_then_dropped_fails: (
            "a field given then dropped fails",
            case("invariant_fields_preserved", "x", json!({"tool": "update_order", "fields": "id"}))
                .with(calls(vec![
                    update(json!({"name": "Alice"})),
                    update(json!({"name": "Alice", "id": "1"})),
                    update(json!({"name": "Alice"})),
                ])),
            fail(0.0, "`id` missing from call 2"),
        );
        two_fields_dropped_at_different_calls: (
            "two fields dropped at different calls",
            case(
                "invariant_fields_preserved",
                "x",
                json!({"tool": "update_order", "fields": ["name", "id", "email"]}),
            )
            .with(calls(vec![
                update(json!({"name": "Alice", "id": "1", "email": "a@b.c"})),
                update(json!({"name": "Alice", "email": "a@b.c"})),
                update(json!({"name": "Alice"})),
            ])),
            fail(1.0 / 3.0, "`id` missing from call 1; `email` missing from call 2"),
        );
        calls_of_other_tools_are_not_counted: (
            "calls of other tools are not counted",
            case("invariant_fields_preserved", "x", params.clone()).with(calls(vec![
                update(json!({"name": "Alice", "id": "1"})),
                call("other_tool"),
                update(json!({"name": "Alice", "id": "1"})),
            ])),
            pass("kept over 2 calls"),
        );
        a_null_value_still_counts_as_given: (
            "a null value still counts as given",
            case("invariant_fields_preserved", "x", params.clone()).with(calls(vec![
                update(json!({"name": "Alice", "id": "1"})),
                update(json!({"name": "Alice", "id": null})),
            ])),
            pass("kept over 2 calls"),
        );
    }
}

#[test]
fn the_lost_fields_are_listed_in_the_data() {
    let judged = case(
        "invariant_fields_preserved",
        "x",
        json!({"tool": "t", "fields": ["a", "b"]}),
    )
    .with(calls(vec![
        ok("t", json!({"a": 1, "b": 2}), ""),
        ok("t", json!({"b": 2}), ""),
    ]))
    .judged()
    .expect("judged");
    assert_eq!(
        judged.data,
        json!({
            "preserved": 1,
            "total": 2,
            "tool": "t",
            "calls": 2,
            "violations": [{"field": "a", "call_index": 1}],
        })
    );
}

mod params_it_cannot_take_are_refused {
    use super::*;

    table! {
        super::super::refused_row, {
        }
        without_a_tool: (
            "without a tool",
            "invariant_fields_preserved",
            json!({"fields": ["id"]}),
            "`invariant_fields_preserved` needs `tool`",
        );
        without_fields: (
            "without fields",
            "invariant_fields_preserved",
            json!({"tool": "update_order"}),
            "`invariant_fields_preserved` needs `fields`",
        );
        with_no_fields: (
            "with no fields",
            "invariant_fields_preserved",
            json!({"tool": "update_order", "fields": []}),
            "needs `fields`, a non-empty list of strings",
        );
        fields_not_strings: (
            "fields not strings",
            "invariant_fields_preserved",
            json!({"tool": "update_order", "fields": [1]}),
            "`fields` must be a list of strings",
        );
        a_misspelt_param: (
            "a misspelt param",
            "invariant_fields_preserved",
            json!({"tool": "update_order", "field": ["id"]}),
            "did you mean `fields`?",
        );
    }
}
