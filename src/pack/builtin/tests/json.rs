//! The checks on JSON in the assistant's text.

use serde_json::{Value as Json, json};

use super::{case, fail, pass};

mod json_checks_pass_and_fail {
    use super::*;

    table! {
        super::super::judge_row, {
            let fenced = "Here it is:\n```json\n{\"a\": 1}\n```";
            let wrapped = json!({"allow_wrapped": true});
            let extract = json!({"extract_json": true});
            let schema = json!({
                "type": "object",
                "required": ["name", "age"],
                "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}
            });
            let order = r#"{"order": {"id": "A-1", "total": 42, "items": [{"sku": "x"}, {"sku": "y"}]}}"#;
            let path = |params: Json| case("json_path", order, params);
        }
        json_valid_an_object: (
            "json_valid: an object",
            case("json_valid", r#" {"a": [1, 2]} "#, json!({})),
            pass("valid JSON"),
        );
        json_valid_not_json: (
            "json_valid: not JSON",
            case("json_valid", "{a: 1}", json!({})),
            fail(0.0, "not JSON"),
        );
        json_valid_a_fence_without_allow_wrapped: (
            "json_valid: a fence without allow_wrapped",
            case("json_valid", fenced, json!({})),
            fail(0.0, "not JSON"),
        );
        json_valid_a_fence_with_allow_wrapped: (
            "json_valid: a fence with allow_wrapped",
            case("json_valid", fenced, wrapped.clone()),
            pass("valid JSON"),
        );
        json_valid_allow_wrapped_does_not_extract_from_prose: (
            "json_valid: allow_wrapped does not extract from prose",
            case("json_valid", r#"The answer is {"a": 1}."#, wrapped.clone()),
            fail(0.0, "not JSON"),
        );
        json_valid_extract_json_finds_the_first_object_in_prose: (
            "json_valid: extract_json finds the first object in prose",
            case(
                "json_valid",
                r#"See [note] then {"a": 1} and more."#,
                extract.clone(),
            ),
            pass("valid JSON"),
        );
        json_valid_extract_json_finds_an_array: (
            "json_valid: extract_json finds an array",
            case("json_valid", "The ids: [1, 2, 3].", extract.clone()),
            pass("valid JSON"),
        );
        json_valid_extract_json_without_any_json: (
            "json_valid: extract_json without any JSON",
            case("json_valid", "No JSON {here", extract),
            fail(0.0, "not JSON"),
        );
        json_schema_matches: (
            "json_schema: matches",
            case(
                "json_schema",
                r#"{"name": "Dana", "age": 31}"#,
                json!({ "schema": schema }),
            ),
            pass("the JSON matches the schema"),
        );
        json_schema_a_wrong_type: (
            "json_schema: a wrong type",
            case(
                "json_schema",
                r#"{"name": "Dana", "age": "old"}"#,
                json!({ "schema": schema }),
            ),
            fail(0.0, "/age: "),
        );
        json_schema_a_missing_property: (
            "json_schema: a missing property",
            case(
                "json_schema",
                r#"{"name": "Dana"}"#,
                json!({ "schema": schema }),
            ),
            fail(0.0, "age"),
        );
        json_schema_not_json: (
            "json_schema: not JSON",
            case("json_schema", "Dana, 31", json!({ "schema": schema })),
            fail(0.0, "not JSON"),
        );
        json_schema_allow_wrapped: (
            "json_schema: allow_wrapped",
            case(
                "json_schema",
                "```json\n{\"name\": \"Dana\", \"age\": 31}\n```",
                json!({ "schema": schema, "allow_wrapped": true }),
            ),
            pass("the JSON matches the schema"),
        );
        json_schema_extract_json: (
            "json_schema: extract_json",
            case(
                "json_schema",
                r#"Sure: {"name": "Dana", "age": 31} -- done"#,
                json!({ "schema": schema, "extract_json": true }),
            ),
            pass("the JSON matches the schema"),
        );
        json_path_expected_equal: (
            "json_path: expected equal",
            path(json!({"expression": "order.id", "expected": "A-1"})),
            pass(r#"`order.id` is "A-1""#),
        );
        json_path_numbers_equal_by_value: (
            "json_path: numbers equal by value",
            path(json!({"expression": "order.total", "expected": 42.0})),
            pass("`order.total` is 42"),
        );
        json_path_expected_differs: (
            "json_path: expected differs",
            path(json!({"expression": "order.id", "expected": "A-2"})),
            fail(0.0, r#"`order.id` is "A-1", expected "A-2""#),
        );
        json_path_contains_every_item: (
            "json_path: contains every item",
            path(json!({"expression": "order.items[].sku", "contains": ["y", "x"]})),
            pass(r#"`order.items[].sku` is ["x","y"]"#),
        );
        json_path_contains_a_missing_item: (
            "json_path: contains a missing item",
            path(json!({"expression": "order.items[].sku", "contains": ["x", "z"]})),
            fail(0.0, r#"`order.items[].sku` does not contain "z""#),
        );
        json_path_a_number_within_min_and_max: (
            "json_path: a number within min and max",
            path(json!({"expression": "order.total", "min": 40, "max": 42})),
            pass("`order.total` is 42"),
        );
        json_path_a_number_above_max: (
            "json_path: a number above max",
            path(json!({"expression": "order.total", "max": 41.5})),
            fail(0.0, "`order.total` is 42, outside [-inf, 41.5]"),
        );
        json_path_a_number_below_min: (
            "json_path: a number below min",
            path(json!({"expression": "order.total", "min": 50})),
            fail(0.0, "outside [50, inf]"),
        );
        json_path_min_on_something_not_a_number: (
            "json_path: min on something not a number",
            path(json!({"expression": "order.id", "min": 1})),
            fail(0.0, r#"`order.id` is "A-1", not a number"#),
        );
        json_path_result_count_within: (
            "json_path: result count within",
            path(json!({"expression": "order.items", "min_results": 2, "max_results": 2})),
            pass("`order.items` is"),
        );
        json_path_too_few_results: (
            "json_path: too few results",
            path(json!({"expression": "order.items", "min_results": 3})),
            fail(0.0, "`order.items` has 2 results"),
        );
        json_path_too_many_results: (
            "json_path: too many results",
            path(json!({"expression": "order.items", "max_results": 1})),
            fail(0.0, "`order.items` has 2 results"),
        );
        json_path_not_json: (
            "json_path: not JSON",
            case("json_path", "no json", json!({"expression": "a"})),
            fail(0.0, "not JSON"),
        );
        json_path_allow_wrapped: (
            "json_path: allow_wrapped",
            case(
                "json_path",
                "```json\n{\"a\": 1}\n```",
                json!({"expression": "a", "expected": 1, "allow_wrapped": true}),
            ),
            pass("`a` is 1"),
        );
        json_path_extract_json: (
            "json_path: extract_json",
            case(
                "json_path",
                r#"It is {"a": 1}."#,
                json!({"expression": "a", "expected": 1, "extract_json": true}),
            ),
            pass("`a` is 1"),
        );
    }
}
