//! Each alias judges as its canonical name does.

use serde_json::{Value as Json, json};

use super::{broke, call, calls, case, ok, passes, said};

#[test]
fn aliases_behave_like_their_canonical_names() {
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
    let cases: Vec<(&'static str, Json, &'static str, Json, &[Input])> = vec![
        (
            "contains",
            json!({"patterns": ["hello", "world"]}),
            "content_includes",
            json!({"patterns": ["hello", "world"]}),
            &contains,
        ),
        (
            "contains_any",
            json!({"patterns": ["refund"]}),
            "content_includes_any",
            json!({"patterns": ["refund"]}),
            &any,
        ),
        (
            "content_excludes",
            json!({"patterns": ["cat"]}),
            "banned_words",
            json!({"patterns": ["cat"]}),
            &banned,
        ),
        (
            "content_excludes",
            json!({"patterns": ["cat"]}),
            "content_not_includes",
            json!({"patterns": ["cat"]}),
            &banned,
        ),
        (
            "content_excludes",
            json!({"patterns": ["cat"]}),
            "content_excludes",
            json!({"words": ["cat"]}),
            &banned,
        ),
        (
            "content_excludes",
            json!({"patterns": ["cat"], "match_mode": "substring"}),
            "banned_words",
            json!({"words": ["cat"], "match_mode": "substring"}),
            &banned,
        ),
        (
            "regex",
            json!({"pattern": r"^\d+$"}),
            "content_matches",
            json!({"pattern": r"^\d+$"}),
            &digits,
        ),
        (
            "regex",
            json!({"pattern": r"^\d+$", "expect_match": false}),
            "content_matches",
            json!({"pattern": r"^\d+$", "expect_match": false}),
            &digits,
        ),
        (
            "min_length",
            json!({"min": 4}),
            "min_length",
            json!({"min_characters": 4}),
            &lengths,
        ),
        (
            "min_length",
            json!({"min": 4}),
            "min_length",
            json!({"min_chars": 4}),
            &lengths,
        ),
        (
            "max_length",
            json!({"max": 4}),
            "length",
            json!({"max": 4}),
            &lengths,
        ),
        (
            "max_length",
            json!({"max": 4}),
            "max_length",
            json!({"max_characters": 4}),
            &lengths,
        ),
        (
            "max_length",
            json!({"max": 4}),
            "max_length",
            json!({"max_chars": 4}),
            &lengths,
        ),
        (
            "max_length",
            json!({"max": 4, "max_tokens": 1}),
            "length",
            json!({"max_chars": 4, "max_tokens": 1}),
            &lengths,
        ),
        (
            "tool_args_excluded",
            json!({"tool_name": "search", "excluded_args": {"q": "x"}}),
            "tools_not_called_with_args",
            json!({"tool": "search", "forbidden_args": {"q": "x"}}),
            &searched,
        ),
        (
            "sentence_count",
            json!({"max": 2}),
            "max_sentences",
            json!({"max": 2}),
            &sentences,
        ),
        (
            "field_presence",
            json!({"fields": ["a.b"]}),
            "required_fields",
            json!({"required_fields": ["a.b"]}),
            &fields,
        ),
        ("json_valid", json!({}), "is_valid_json", json!({}), &texts),
        (
            "json_valid",
            json!({"allow_wrapped": true}),
            "valid_json",
            json!({"allow_wrapped": true}),
            &texts,
        ),
        (
            "json_path",
            json!({"expression": "a.b", "expected": 1}),
            "json_path",
            json!({"jmespath_expression": "a.b", "expected": 1}),
            &documents,
        ),
        (
            "tools_called",
            json!({"tool_names": ["a", "b"]}),
            "tool_called",
            json!({"tool_names": ["a", "b"]}),
            &called,
        ),
        (
            "tools_called",
            json!({"tool_names": ["a", "b"], "max_calls": 1}),
            "tools_called",
            json!({"tools": ["a", "b"], "max_calls": 1}),
            &called,
        ),
        (
            "tools_not_called",
            json!({"tool_names": ["b"]}),
            "tools_not_called",
            json!({"tools": ["b"]}),
            &called,
        ),
        (
            "tool_args",
            json!({"tool_name": "search", "expected_args": {"q": "x"}}),
            "tool_args",
            json!({"tool": "search", "expected_args": {"q": "x"}}),
            &searched,
        ),
        (
            "tool_call_count",
            json!({"tool": "a", "max": 1}),
            "tool_call_count",
            json!({"tool_name": "a", "max": 1}),
            &counted,
        ),
        (
            "no_tool_errors",
            json!({"tools": ["a"]}),
            "no_tool_errors",
            json!({"tool_names": ["a"]}),
            &errors,
        ),
        (
            "tool_result_includes",
            json!({"tool": "a", "patterns": ["OK"]}),
            "tool_result_includes",
            json!({"tool_name": "a", "patterns": ["OK"]}),
            &results,
        ),
        (
            "tool_result_matches",
            json!({"tool": "a", "pattern": "^ok"}),
            "tool_result_matches",
            json!({"tool_name": "a", "pattern": "^ok"}),
            &results,
        ),
    ];
    for (_, aliases, _) in super::super::CHECKS {
        for alias in *aliases {
            assert!(
                cases.iter().any(|c| c.2 == *alias),
                "alias `{alias}` has no case here"
            );
        }
    }
    for (canonical, canonical_params, alias, alias_params, inputs) in &cases {
        let name = format!("{alias} {alias_params} as {canonical} {canonical_params}");
        let mut verdicts = Vec::new();
        for (content, context) in inputs.iter() {
            let on = format!("{name}, on {content:?} {context:?}");
            let judged = |check: &'static str, params: &Json| {
                let one = case(check, content, params.clone());
                match context {
                    Some(context) => one.with(context.clone()),
                    None => one,
                }
                .judged()
            };
            let expected = judged(canonical, canonical_params)
                .unwrap_or_else(|e| panic!("{on}: the canonical check gave no score: {e}"));
            let got = judged(alias, alias_params).unwrap_or_else(|e| panic!("{on}: {e}"));
            assert_eq!(passes(got.score), passes(expected.score), "{on}");
            assert_eq!(got, expected, "{on}");
            verdicts.push(passes(expected.score));
        }
        assert!(
            verdicts.contains(&true) && verdicts.contains(&false),
            "{name}: the inputs should both pass and fail, got {verdicts:?}"
        );
    }
}
