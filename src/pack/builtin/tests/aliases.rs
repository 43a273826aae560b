//! Each alias judges as its canonical name does.

use serde_json::{Value as Json, json};

use super::{broke, call, calls, ok, said};

mod aliases_behave_like_their_canonical_names {
    use super::*;

    table! {
        super::super::alias_row, {
            type Input = (&'static str, Option<Json>);
            let plain = |content: &'static str| -> Input { (content, None) };
            let tools = |content: Vec<Json>| -> Input { ("x", Some(calls(content))) };
            let contains: Vec<Input> = vec![plain("Hello world"), plain("Hello"), plain("nothing")];
            let any: Vec<Input> = vec![
                plain("a refund"),
                plain("nothing"),
                ("nothing", Some(said(&[("assistant", "refund")]))),
            ];
            let banned: Vec<Input> = vec![
                plain("the cat sat"),
                plain("concatenate"),
                ("dog", Some(said(&[("assistant", "cat")]))),
                ("dog", Some(said(&[("user", "cat")]))),
            ];
            let digits: Vec<Input> = vec![plain("123"), plain("12a")];
            let lengths: Vec<Input> = vec![plain("ab"), plain("abcd"), plain("abcdefghij")];
            let sentences: Vec<Input> = vec![plain("One. Two! Three?"), plain("Just one.")];
            let fields: Vec<Input> = vec![plain(r#"{"a": {"b": 1}}"#), plain(r#"{"b": 1}"#)];
            let texts: Vec<Input> = vec![
                plain(r#"{"a": 1}"#),
                plain("{a: 1}"),
                plain("```json\n[1]\n```"),
            ];
            let documents: Vec<Input> = vec![plain(r#"{"a": {"b": 1}}"#), plain(r#"{"a": {"b": 2}}"#)];
            let called: Vec<Input> = vec![
                tools(vec![call("a"), call("b")]),
                tools(vec![call("a")]),
                tools(vec![broke("a"), call("b")]),
                tools(vec![]),
            ];
            let searched: Vec<Input> = vec![
                tools(vec![ok("search", json!({"q": "x"}), "")]),
                tools(vec![ok("search", json!({"q": "y"}), "")]),
                tools(vec![ok("fetch", json!({"q": "x"}), "")]),
            ];
            let counted: Vec<Input> = vec![
                tools(vec![call("a"), call("b")]),
                tools(vec![call("a"), call("a")]),
            ];
            let errors: Vec<Input> = vec![
                tools(vec![call("a"), broke("b")]),
                tools(vec![broke("a"), call("a")]),
            ];
            let results: Vec<Input> = vec![
                tools(vec![ok("a", json!({}), "ok: done")]),
                tools(vec![
                    ok("b", json!({}), "ok: done"),
                    ok("a", json!({}), "no"),
                ]),
            ];
            // (canonical type, canonical params, alias type, alias params, inputs)
        }
        content_includes_as_contains: (
            "contains",
            json!({"patterns": ["hello", "world"]}),
            "content_includes",
            json!({"patterns": ["hello", "world"]}),
            &contains,
        );
        content_includes_any_as_contains_any: (
            "contains_any",
            json!({"patterns": ["refund"]}),
            "content_includes_any",
            json!({"patterns": ["refund"]}),
            &any,
        );
        banned_words_as_content_excludes: (
            "content_excludes",
            json!({"patterns": ["cat"]}),
            "banned_words",
            json!({"patterns": ["cat"]}),
            &banned,
        );
        content_not_includes_as_content_excludes: (
            "content_excludes",
            json!({"patterns": ["cat"]}),
            "content_not_includes",
            json!({"patterns": ["cat"]}),
            &banned,
        );
        content_excludes_as_content_excludes: (
            "content_excludes",
            json!({"patterns": ["cat"]}),
            "content_excludes",
            json!({"words": ["cat"]}),
            &banned,
        );
        banned_words_as_content_excludes_2: (
            "content_excludes",
            json!({"patterns": ["cat"], "match_mode": "substring"}),
            "banned_words",
            json!({"words": ["cat"], "match_mode": "substring"}),
            &banned,
        );
        content_matches_as_regex: (
            "regex",
            json!({"pattern": r"^\d+$"}),
            "content_matches",
            json!({"pattern": r"^\d+$"}),
            &digits,
        );
        content_matches_as_regex_2: (
            "regex",
            json!({"pattern": r"^\d+$", "expect_match": false}),
            "content_matches",
            json!({"pattern": r"^\d+$", "expect_match": false}),
            &digits,
        );
        min_length_as_min_length: (
            "min_length",
            json!({"min": 4}),
            "min_length",
            json!({"min_characters": 4}),
            &lengths,
        );
        min_length_as_min_length_2: (
            "min_length",
            json!({"min": 4}),
            "min_length",
            json!({"min_chars": 4}),
            &lengths,
        );
        length_as_max_length: (
            "max_length",
            json!({"max": 4}),
            "length",
            json!({"max": 4}),
            &lengths,
        );
        max_length_as_max_length: (
            "max_length",
            json!({"max": 4}),
            "max_length",
            json!({"max_characters": 4}),
            &lengths,
        );
        max_length_as_max_length_2: (
            "max_length",
            json!({"max": 4}),
            "max_length",
            json!({"max_chars": 4}),
            &lengths,
        );
        length_as_max_length_2: (
            "max_length",
            json!({"max": 4, "max_tokens": 1}),
            "length",
            json!({"max_chars": 4, "max_tokens": 1}),
            &lengths,
        );
        tools_not_called_with_args_as_tool_args_excluded: (
            "tool_args_excluded",
            json!({"tool_name": "search", "excluded_args": {"q": "x"}}),
            "tools_not_called_with_args",
            json!({"tool": "search", "forbidden_args": {"q": "x"}}),
            &searched,
        );
        max_sentences_as_sentence_count: (
            "sentence_count",
            json!({"max": 2}),
            "max_sentences",
            json!({"max": 2}),
            &sentences,
        );
        required_fields_as_field_presence: (
            "field_presence",
            json!({"fields": ["a.b"]}),
            "required_fields",
            json!({"required_fields": ["a.b"]}),
            &fields,
        );
        is_valid_json_as_json_valid: ("json_valid", json!({}), "is_valid_json", json!({}), &texts);
        valid_json_as_json_valid: (
            "json_valid",
            json!({"allow_wrapped": true}),
            "valid_json",
            json!({"allow_wrapped": true}),
            &texts,
        );
        json_path_as_json_path: (
            "json_path",
            json!({"expression": "a.b", "expected": 1}),
            "json_path",
            json!({"jmespath_expression": "a.b", "expected": 1}),
            &documents,
        );
        tool_called_as_tools_called: (
            "tools_called",
            json!({"tool_names": ["a", "b"]}),
            "tool_called",
            json!({"tool_names": ["a", "b"]}),
            &called,
        );
        tools_called_as_tools_called: (
            "tools_called",
            json!({"tool_names": ["a", "b"], "max_calls": 1}),
            "tools_called",
            json!({"tools": ["a", "b"], "max_calls": 1}),
            &called,
        );
        tools_not_called_as_tools_not_called: (
            "tools_not_called",
            json!({"tool_names": ["b"]}),
            "tools_not_called",
            json!({"tools": ["b"]}),
            &called,
        );
        tool_args_as_tool_args: (
            "tool_args",
            json!({"tool_name": "search", "expected_args": {"q": "x"}}),
            "tool_args",
            json!({"tool": "search", "expected_args": {"q": "x"}}),
            &searched,
        );
        tool_call_count_as_tool_call_count: (
            "tool_call_count",
            json!({"tool": "a", "max": 1}),
            "tool_call_count",
            json!({"tool_name": "a", "max": 1}),
            &counted,
        );
        no_tool_errors_as_no_tool_errors: (
            "no_tool_errors",
            json!({"tools": ["a"]}),
            "no_tool_errors",
            json!({"tool_names": ["a"]}),
            &errors,
        );
        tool_result_includes_as_tool_result_includes: (
            "tool_result_includes",
            json!({"tool": "a", "patterns": ["OK"]}),
            "tool_result_includes",
            json!({"tool_name": "a", "patterns": ["OK"]}),
            &results,
        );
        tool_result_matches_as_tool_result_matches: (
            "tool_result_matches",
            json!({"tool": "a", "pattern": "^ok"}),
            "tool_result_matches",
            json!({"tool_name": "a", "pattern": "^ok"}),
            &results,
        );
    }
}

/// The aliases the table above has a case for.
const ALIASES_WITH_CASES: &[&str] = &[
    "content_includes",
    "content_includes_any",
    "banned_words",
    "content_not_includes",
    "content_excludes",
    "banned_words",
    "content_matches",
    "content_matches",
    "min_length",
    "min_length",
    "length",
    "max_length",
    "max_length",
    "length",
    "tools_not_called_with_args",
    "max_sentences",
    "required_fields",
    "is_valid_json",
    "valid_json",
    "json_path",
    "tool_called",
    "tools_called",
    "tools_not_called",
    "tool_args",
    "tool_call_count",
    "no_tool_errors",
    "tool_result_includes",
    "tool_result_matches",
];

#[test]
fn every_alias_has_a_case() {
    for (_, aliases, _) in super::super::CHECKS {
        for alias in *aliases {
            assert!(
                ALIASES_WITH_CASES.contains(alias),
                "alias `{alias}` has no case here"
            );
        }
    }
}
