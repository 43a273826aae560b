//! `promptexec eval TYPE`: every built-in check passing and failing, its aliases,
//! and the params it refuses.

use serde_json::{Value as Json, json};

use crate::util::{Outcome, fixtures, run_in};

/// Runs the built-in check `eval_type` on `content`, in `tests/fixtures/checks` (so
/// `@FILE` contexts resolve there). The result is `Json::Null` when stdout holds none.
#[track_caller]
fn eval(
    eval_type: &str,
    content: &str,
    params: &Json,
    context: Option<&Json>,
    extra: &[&str],
) -> (Outcome, Json) {
    let params = params.to_string();
    let context = context.map(Json::to_string);
    let mut args = vec!["eval", eval_type, "--content", content, "--params", &params];
    if let Some(context) = &context {
        args.extend(["--context", context.as_str()]);
    }
    args.extend_from_slice(extra);
    let out = run_in(&fixtures().join("checks"), &args);
    let result = serde_json::from_str(&out.stdout).unwrap_or(Json::Null);
    (out, result)
}

/// One input to one check.
struct Case {
    check: &'static str,
    content: &'static str,
    params: Json,
    context: Option<Json>,
}

fn case(check: &'static str, content: &'static str, params: Json) -> Case {
    Case {
        check,
        content,
        params,
        context: None,
    }
}

impl Case {
    fn with(mut self, context: Json) -> Self {
        self.context = Some(context);
        self
    }

    #[track_caller]
    fn run(&self, extra: &[&str]) -> (Outcome, Json) {
        eval(
            self.check,
            self.content,
            &self.params,
            self.context.as_ref(),
            extra,
        )
    }
}

/// What a case must come to: the exit code (which decides the status), the score
/// and a piece of the explanation.
struct Want {
    code: i32,
    score: f64,
    why: &'static str,
}

fn pass(why: &'static str) -> Want {
    Want {
        code: 0,
        score: 1.0,
        why,
    }
}

fn fail(score: f64, why: &'static str) -> Want {
    Want {
        code: 1,
        score,
        why,
    }
}

#[track_caller]
fn expect(name: &str, case: &Case, extra: &[&str], want: &Want) {
    let (out, result) = case.run(extra);
    let shown = format!("{name}: exit {}\n{}\n{}", out.code, out.stdout, out.stderr);
    assert_eq!(out.code, want.code, "{shown}");
    let (status, passed) = if want.code == 0 {
        ("passed", true)
    } else {
        ("failed", false)
    };
    assert_eq!(result["status"], status, "{shown}");
    assert_eq!(result["passed"], passed, "{shown}");
    assert_eq!(result["type"], case.check, "{shown}");
    assert_eq!(result["eval_id"], case.check, "{shown}");
    assert_eq!(result["error"], Json::Null, "{shown}");
    let score = result["score"].as_f64().expect("a score");
    assert!((score - want.score).abs() < 1e-9, "score {score}: {shown}");
    let explanation = result["explanation"].as_str().unwrap_or_default();
    assert!(
        explanation.contains(want.why),
        "`{}` not in the explanation: {shown}",
        want.why
    );
}

#[track_caller]
fn judge_all(cases: Vec<(&str, Case, Want)>) {
    for (name, case, want) in &cases {
        expect(name, case, &[], want);
    }
}

/// A context with these messages: (role, content).
fn said(messages: &[(&str, &str)]) -> Json {
    let messages: Vec<Json> = messages
        .iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    json!({ "messages": messages })
}

/// A context whose turn made these calls.
fn calls(list: Vec<Json>) -> Json {
    json!({ "tool_calls": list })
}

/// A call to `name` with `args` that returned `result`.
fn ok(name: &str, args: Json, result: &str) -> Json {
    json!({"name": name, "args": args, "result": result, "error": null})
}

/// A call to `name` that failed.
fn broke(name: &str) -> Json {
    json!({"name": name, "args": {}, "result": null, "error": "boom"})
}

/// A call to `name` with empty args and result.
fn call(name: &str) -> Json {
    ok(name, json!({}), "")
}

#[test]
fn content_checks_pass_and_fail() {
    let patterns = json!({"patterns": ["hello", "WORLD"]});
    let refund = json!({"patterns": ["refund", "credit"]});
    let cat = json!({"patterns": ["cat"]});
    judge_all(vec![
        (
            "contains: every pattern, any case",
            case("contains", "Hello World", patterns.clone()),
            pass("every pattern appears"),
        ),
        (
            "contains: one of two patterns",
            case("contains", "Hello there", patterns.clone()),
            fail(0.5, "1 of 2 patterns appear; missing: WORLD"),
        ),
        (
            "contains: only the content counts, not earlier assistant messages",
            case("contains", "Hello", patterns).with(said(&[("assistant", "world")])),
            fail(0.5, "missing: WORLD"),
        ),
        (
            "contains_any: one pattern in the content",
            case("contains_any", "We issued a REFUND.", refund.clone()),
            pass("found: refund"),
        ),
        (
            "contains_any: one pattern in an earlier assistant message",
            case("contains_any", "Anything else?", refund.clone())
                .with(said(&[("assistant", "A credit note is on its way.")])),
            pass("found: credit"),
        ),
        (
            "contains_any: a user message does not count",
            case("contains_any", "Anything else?", refund.clone())
                .with(said(&[("user", "I want a refund")])),
            fail(0.0, "none of refund, credit appears"),
        ),
        (
            "contains_any: no pattern anywhere",
            case("contains_any", "Hello", refund),
            fail(0.0, "none of refund, credit appears"),
        ),
        (
            "content_excludes: no pattern",
            case("content_excludes", "A dog barked.", cat.clone()),
            pass("no excluded word appears"),
        ),
        (
            "content_excludes: a pattern in the content, any case",
            case("content_excludes", "The Cat sat.", cat.clone()),
            fail(0.0, "excluded: cat"),
        ),
        (
            "content_excludes: a pattern in an earlier assistant message",
            case("content_excludes", "A dog barked.", cat.clone())
                .with(said(&[("assistant", "a cat, maybe")])),
            fail(0.0, "excluded: cat"),
        ),
        (
            "content_excludes: a user message does not count",
            case("content_excludes", "A dog barked.", cat).with(said(&[("user", "my cat")])),
            pass("no excluded word appears"),
        ),
        (
            "regex: matches",
            case("regex", "order A-1002", json!({"pattern": r"A-\d{4}"})),
            pass(r"the content matches /A-\d{4}/ as expected"),
        ),
        (
            "regex: no match",
            case("regex", "order 1002", json!({"pattern": r"A-\d{4}"})),
            fail(0.0, r"the content does not match /A-\d{4}/"),
        ),
        (
            "regex: case-sensitive",
            case("regex", "Hello", json!({"pattern": "hello"})),
            fail(0.0, "does not match /hello/"),
        ),
        (
            "regex: expect_match false, no match",
            case(
                "regex",
                "all good",
                json!({"pattern": "error", "expect_match": false}),
            ),
            pass("does not match /error/ as expected"),
        ),
        (
            "regex: expect_match false, a match",
            case(
                "regex",
                "an error",
                json!({"pattern": "error", "expect_match": false}),
            ),
            fail(0.0, "the content matches /error/"),
        ),
        (
            "min_length: enough characters",
            case("min_length", "abcd", json!({"min": 4})),
            pass("4 characters (at least 4)"),
        ),
        (
            "min_length: counts characters, not bytes",
            case("min_length", "ééé", json!({"min": 3})),
            pass("3 characters (at least 3)"),
        ),
        (
            "min_length: the share reached",
            case("min_length", "abc", json!({"min": 4})),
            fail(0.75, "3 characters (at least 4)"),
        ),
        (
            "max_length: within",
            case("max_length", "abc", json!({"max": 3})),
            pass("3 characters, about 1 tokens (at most 3)"),
        ),
        (
            "max_length: counts characters, not bytes",
            case("max_length", "éééé", json!({"max": 4})),
            pass("4 characters"),
        ),
        (
            "max_length: twice too long",
            case("max_length", "abcdef", json!({"max": 3})),
            fail(0.5, "6 characters, about 2 tokens (at most 3)"),
        ),
        (
            "max_length: max_tokens within",
            case("max_length", "abcd", json!({"max_tokens": 1})),
            pass("4 characters, about 1 tokens (at most any, 1 tokens)"),
        ),
        (
            "max_length: max_tokens rounds up (5 characters are 2 tokens)",
            case("max_length", "abcde", json!({"max_tokens": 1})),
            fail(0.5, "about 2 tokens"),
        ),
        (
            "max_length: the tighter of max and max_tokens",
            case("max_length", "abcdefgh", json!({"max": 6, "max_tokens": 1})),
            fail(0.5, "8 characters, about 2 tokens (at most 6, 1 tokens)"),
        ),
    ]);
}

#[test]
fn json_checks_pass_and_fail() {
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
    judge_all(vec![
        (
            "json_valid: an object",
            case("json_valid", r#" {"a": [1, 2]} "#, json!({})),
            pass("valid JSON"),
        ),
        (
            "json_valid: not JSON",
            case("json_valid", "{a: 1}", json!({})),
            fail(0.0, "not JSON"),
        ),
        (
            "json_valid: a fence without allow_wrapped",
            case("json_valid", fenced, json!({})),
            fail(0.0, "not JSON"),
        ),
        (
            "json_valid: a fence with allow_wrapped",
            case("json_valid", fenced, wrapped.clone()),
            pass("valid JSON"),
        ),
        (
            "json_valid: allow_wrapped does not extract from prose",
            case("json_valid", r#"The answer is {"a": 1}."#, wrapped.clone()),
            fail(0.0, "not JSON"),
        ),
        (
            "json_valid: extract_json finds the first object in prose",
            case(
                "json_valid",
                r#"See [note] then {"a": 1} and more."#,
                extract.clone(),
            ),
            pass("valid JSON"),
        ),
        (
            "json_valid: extract_json finds an array",
            case("json_valid", "The ids: [1, 2, 3].", extract.clone()),
            pass("valid JSON"),
        ),
        (
            "json_valid: extract_json without any JSON",
            case("json_valid", "No JSON {here", extract),
            fail(0.0, "not JSON"),
        ),
        (
            "json_schema: matches",
            case(
                "json_schema",
                r#"{"name": "Dana", "age": 31}"#,
                json!({ "schema": schema }),
            ),
            pass("the JSON matches the schema"),
        ),
        (
            "json_schema: a wrong type",
            case(
                "json_schema",
                r#"{"name": "Dana", "age": "old"}"#,
                json!({ "schema": schema }),
            ),
            fail(0.0, "/age: "),
        ),
        (
            "json_schema: a missing property",
            case(
                "json_schema",
                r#"{"name": "Dana"}"#,
                json!({ "schema": schema }),
            ),
            fail(0.0, "age"),
        ),
        (
            "json_schema: not JSON",
            case("json_schema", "Dana, 31", json!({ "schema": schema })),
            fail(0.0, "not JSON"),
        ),
        (
            "json_schema: allow_wrapped",
            case(
                "json_schema",
                "```json\n{\"name\": \"Dana\", \"age\": 31}\n```",
                json!({ "schema": schema, "allow_wrapped": true }),
            ),
            pass("the JSON matches the schema"),
        ),
        (
            "json_schema: extract_json",
            case(
                "json_schema",
                r#"Sure: {"name": "Dana", "age": 31} -- done"#,
                json!({ "schema": schema, "extract_json": true }),
            ),
            pass("the JSON matches the schema"),
        ),
        (
            "json_path: expected equal",
            path(json!({"expression": "order.id", "expected": "A-1"})),
            pass(r#"`order.id` is "A-1""#),
        ),
        (
            "json_path: numbers equal by value",
            path(json!({"expression": "order.total", "expected": 42.0})),
            pass("`order.total` is 42"),
        ),
        (
            "json_path: expected differs",
            path(json!({"expression": "order.id", "expected": "A-2"})),
            fail(0.0, r#"`order.id` is "A-1", expected "A-2""#),
        ),
        (
            "json_path: contains every item",
            path(json!({"expression": "order.items[].sku", "contains": ["y", "x"]})),
            pass(r#"`order.items[].sku` is ["x","y"]"#),
        ),
        (
            "json_path: contains a missing item",
            path(json!({"expression": "order.items[].sku", "contains": ["x", "z"]})),
            fail(0.0, r#"`order.items[].sku` does not contain "z""#),
        ),
        (
            "json_path: a number within min and max",
            path(json!({"expression": "order.total", "min": 40, "max": 42})),
            pass("`order.total` is 42"),
        ),
        (
            "json_path: a number above max",
            path(json!({"expression": "order.total", "max": 41.5})),
            fail(0.0, "`order.total` is 42, outside [-inf, 41.5]"),
        ),
        (
            "json_path: a number below min",
            path(json!({"expression": "order.total", "min": 50})),
            fail(0.0, "outside [50, inf]"),
        ),
        (
            "json_path: min on something not a number",
            path(json!({"expression": "order.id", "min": 1})),
            fail(0.0, r#"`order.id` is "A-1", not a number"#),
        ),
        (
            "json_path: result count within",
            path(json!({"expression": "order.items", "min_results": 2, "max_results": 2})),
            pass("`order.items` is"),
        ),
        (
            "json_path: too few results",
            path(json!({"expression": "order.items", "min_results": 3})),
            fail(0.0, "`order.items` has 2 results"),
        ),
        (
            "json_path: too many results",
            path(json!({"expression": "order.items", "max_results": 1})),
            fail(0.0, "`order.items` has 2 results"),
        ),
        (
            "json_path: not JSON",
            case("json_path", "no json", json!({"expression": "a"})),
            fail(0.0, "not JSON"),
        ),
        (
            "json_path: allow_wrapped",
            case(
                "json_path",
                "```json\n{\"a\": 1}\n```",
                json!({"expression": "a", "expected": 1, "allow_wrapped": true}),
            ),
            pass("`a` is 1"),
        ),
        (
            "json_path: extract_json",
            case(
                "json_path",
                r#"It is {"a": 1}."#,
                json!({"expression": "a", "expected": 1, "extract_json": true}),
            ),
            pass("`a` is 1"),
        ),
    ]);
}

#[test]
fn tool_checks_pass_and_fail() {
    let both = json!({"tool_names": ["search", "fetch"]});
    let search = |q: &str| ok("search", json!({"q": q, "limit": 5}), "");
    judge_all(vec![
        (
            "tools_called: every tool",
            case("tools_called", "x", both.clone())
                .with(calls(vec![call("search"), call("fetch")])),
            pass("every listed tool was called"),
        ),
        (
            "tools_called: one of two",
            case("tools_called", "x", both.clone()).with(calls(vec![call("search")])),
            fail(0.5, "not called (at least 1 times): fetch"),
        ),
        (
            "tools_called: a failed call does not count",
            case("tools_called", "x", both.clone())
                .with(calls(vec![call("search"), broke("fetch")])),
            fail(0.5, "fetch"),
        ),
        (
            "tools_called: min_calls",
            case(
                "tools_called",
                "x",
                json!({"tool_names": ["search"], "min_calls": 2}),
            )
            .with(calls(vec![call("search"), broke("search")])),
            fail(0.0, "not called (at least 2 times): search"),
        ),
        (
            "tools_called: within max_calls",
            case(
                "tools_called",
                "x",
                json!({"tool_names": ["search"], "max_calls": 2}),
            )
            .with(calls(vec![call("search"), call("search")])),
            pass("every listed tool was called"),
        ),
        (
            "tools_called: over max_calls scores 0",
            case(
                "tools_called",
                "x",
                json!({"tool_names": ["search", "fetch"], "max_calls": 1}),
            )
            .with(calls(vec![call("fetch"), call("search"), call("search")])),
            fail(0.0, "`search` was called 2 times, more than 1"),
        ),
        (
            "tools_not_called: none called",
            case("tools_not_called", "x", both.clone()).with(calls(vec![call("other")])),
            pass("none of the listed tools was called"),
        ),
        (
            "tools_not_called: one called",
            case("tools_not_called", "x", both).with(calls(vec![call("other"), call("fetch")])),
            fail(0.0, "called: fetch"),
        ),
        (
            "tool_args: some call has every expected arg",
            case(
                "tool_args",
                "x",
                json!({"tool_name": "search", "expected_args": {"q": "shoes"}}),
            )
            .with(calls(vec![search("hats"), search("shoes")])),
            pass("`search` was called with the expected arguments"),
        ),
        (
            "tool_args: values compared as text",
            case(
                "tool_args",
                "x",
                json!({"tool_name": "search", "expected_args": {"limit": "5"}}),
            )
            .with(calls(vec![search("hats")])),
            pass("expected arguments"),
        ),
        (
            "tool_args: text compared as a value",
            case(
                "tool_args",
                "x",
                json!({"tool_name": "lookup", "expected_args": {"id": 7}}),
            )
            .with(calls(vec![ok("lookup", json!({"id": "7"}), "")])),
            pass("expected arguments"),
        ),
        (
            "tool_args: no call has the args",
            case(
                "tool_args",
                "x",
                json!({"tool_name": "search", "expected_args": {"q": "boots"}}),
            )
            .with(calls(vec![search("hats")])),
            fail(0.0, r#"no call to `search` had {"q":"boots"}"#),
        ),
        (
            "tool_args: the tool was not called",
            case(
                "tool_args",
                "x",
                json!({"tool_name": "fetch", "expected_args": {}}),
            )
            .with(calls(vec![search("hats")])),
            fail(0.0, "`fetch` was not called"),
        ),
        (
            "tool_call_count: one tool within range",
            case(
                "tool_call_count",
                "x",
                json!({"tool": "search", "min": 1, "max": 2}),
            )
            .with(calls(vec![call("search"), call("fetch"), call("search")])),
            pass("2 call(s) to `search`"),
        ),
        (
            "tool_call_count: every tool, over max",
            case("tool_call_count", "x", json!({"max": 2})).with(calls(vec![
                call("search"),
                call("fetch"),
                call("search"),
            ])),
            fail(0.0, "3 call(s) to tools, expected at most 2"),
        ),
        (
            "tool_call_count: under min",
            case("tool_call_count", "x", json!({"tool": "fetch", "min": 1}))
                .with(calls(vec![call("search")])),
            fail(0.0, "0 call(s) to `fetch`, expected at least 1"),
        ),
        (
            "tool_call_sequence: in order, other calls between",
            case(
                "tool_call_sequence",
                "x",
                json!({"sequence": ["search", "fetch", "pay"]}),
            )
            .with(calls(vec![
                call("search"),
                call("log"),
                call("fetch"),
                call("pay"),
            ])),
            pass("3 of 3 steps in order: search → fetch → pay"),
        ),
        (
            "tool_call_sequence: the share reached",
            case(
                "tool_call_sequence",
                "x",
                json!({"sequence": ["search", "fetch", "pay", "mail"]}),
            )
            .with(calls(vec![call("search"), call("fetch"), call("mail")])),
            fail(0.5, "2 of 4 steps in order"),
        ),
        (
            "tool_call_sequence: out of order",
            case(
                "tool_call_sequence",
                "x",
                json!({"sequence": ["fetch", "search"]}),
            )
            .with(calls(vec![call("search"), call("fetch")])),
            fail(0.5, "1 of 2 steps in order"),
        ),
        (
            "no_tool_errors: no errors",
            case("no_tool_errors", "x", json!({})).with(calls(vec![call("search"), call("fetch")])),
            pass("2 call(s), no errors"),
        ),
        (
            "no_tool_errors: no calls at all",
            case("no_tool_errors", "x", json!({})),
            pass("0 call(s), no errors"),
        ),
        (
            "no_tool_errors: one of four failed",
            case("no_tool_errors", "x", json!({})).with(calls(vec![
                call("search"),
                broke("fetch"),
                call("search"),
                call("pay"),
            ])),
            fail(0.75, "1 of 4 call(s) failed: fetch"),
        ),
        (
            "no_tool_errors: only the listed tools count",
            case("no_tool_errors", "x", json!({"tools": ["search"]}))
                .with(calls(vec![call("search"), broke("fetch")])),
            pass("1 call(s), no errors"),
        ),
        (
            "tool_result_includes: every pattern in one result, any case",
            case(
                "tool_result_includes",
                "x",
                json!({"tool": "search", "patterns": ["red", "SHOE"]}),
            )
            .with(calls(vec![ok("search", json!({}), "Red shoe, size 9")])),
            pass("1 result(s) include every pattern"),
        ),
        (
            "tool_result_includes: patterns spread over two results",
            case(
                "tool_result_includes",
                "x",
                json!({"tool": "search", "patterns": ["red", "shoe"]}),
            )
            .with(calls(vec![
                ok("search", json!({}), "red hat"),
                ok("search", json!({}), "blue shoe"),
            ])),
            fail(
                0.0,
                "0 result(s) include every pattern, expected at least 1",
            ),
        ),
        (
            "tool_result_includes: another tool's result does not count",
            case(
                "tool_result_includes",
                "x",
                json!({"tool": "search", "patterns": ["red"]}),
            )
            .with(calls(vec![ok("fetch", json!({}), "red")])),
            fail(0.0, "0 result(s) include every pattern"),
        ),
        (
            "tool_result_includes: any tool, occurrence 2",
            case(
                "tool_result_includes",
                "x",
                json!({"patterns": ["red"], "occurrence": 2}),
            )
            .with(calls(vec![
                ok("search", json!({}), "red hat"),
                ok("fetch", json!({}), "RED shoe"),
            ])),
            pass("2 result(s) include every pattern"),
        ),
        (
            "tool_result_includes: too few occurrences",
            case(
                "tool_result_includes",
                "x",
                json!({"patterns": ["red"], "occurrence": 2}),
            )
            .with(calls(vec![ok("search", json!({}), "red hat")])),
            fail(
                0.0,
                "1 result(s) include every pattern, expected at least 2",
            ),
        ),
        (
            "tool_result_matches: a match",
            case(
                "tool_result_matches",
                "x",
                json!({"tool": "search", "pattern": r"^\d+ hits$"}),
            )
            .with(calls(vec![ok("search", json!({}), "12 hits")])),
            pass(r"1 result(s) match /^\d+ hits$/"),
        ),
        (
            "tool_result_matches: case-sensitive, no match",
            case(
                "tool_result_matches",
                "x",
                json!({"tool": "search", "pattern": "Hits"}),
            )
            .with(calls(vec![ok("search", json!({}), "12 hits")])),
            fail(0.0, "0 result(s) match /Hits/, expected at least 1"),
        ),
        (
            "tool_result_matches: occurrence",
            case(
                "tool_result_matches",
                "x",
                json!({"pattern": "ok", "occurrence": 2}),
            )
            .with(calls(vec![
                ok("search", json!({}), "ok"),
                ok("fetch", json!({}), "ok"),
            ])),
            pass("2 result(s) match /ok/"),
        ),
        (
            "tool_result_matches: too few occurrences",
            case(
                "tool_result_matches",
                "x",
                json!({"pattern": "ok", "occurrence": 2}),
            )
            .with(calls(vec![ok("search", json!({}), "ok"), broke("fetch")])),
            fail(0.0, "1 result(s) match /ok/, expected at least 2"),
        ),
    ]);
}

#[test]
fn latency_budget_judges_the_latency_in_the_context_metadata() {
    let budget = json!({"max_ms": 100});
    let took = |ms: u64| json!({"metadata": {"latency_ms": ms}});
    judge_all(vec![
        (
            "latency_budget: within",
            case("latency_budget", "x", budget.clone()).with(took(50)),
            pass("50 ms (budget 100 ms)"),
        ),
        (
            "latency_budget: exactly the budget",
            case("latency_budget", "x", budget.clone()).with(took(100)),
            pass("100 ms (budget 100 ms)"),
        ),
        (
            "latency_budget: four times over",
            case("latency_budget", "x", budget.clone()).with(took(400)),
            fail(0.25, "400 ms (budget 100 ms)"),
        ),
    ]);
    let (out, result) = eval("latency_budget", "x", &budget, None, &[]);
    assert_eq!(out.code, 3, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(result["status"], "error", "{}", out.stdout);
    assert_eq!(result["score"], Json::Null, "{}", out.stdout);
    assert_eq!(result["passed"], false, "{}", out.stdout);
    assert_eq!(
        result["error"], "the context has no `metadata.latency_ms` to judge",
        "{}",
        out.stdout
    );
}

#[test]
fn min_and_max_score_decide_pass_and_fail() {
    let half = || case("contains", "Hello", json!({"patterns": ["hello", "world"]}));
    let half_passes = Want {
        code: 0,
        score: 0.5,
        why: "missing: world",
    };
    expect(
        "min-score 0.5",
        &half(),
        &["--min-score", "0.5"],
        &half_passes,
    );
    expect(
        "min-score 0.6",
        &half(),
        &["--min-score", "0.6"],
        &fail(0.5, "missing: world"),
    );
    expect(
        "min-score 0, max-score 0.5 (inclusive)",
        &half(),
        &["--min-score", "0", "--max-score", "0.5"],
        &half_passes,
    );
    expect(
        "min-score 0, max-score 0.4",
        &half(),
        &["--min-score", "0", "--max-score", "0.4"],
        &fail(0.5, "missing: world"),
    );
    // A check that must score 0: no pattern may appear.
    expect(
        "max-score 0 on a miss",
        &case("contains", "Hi", json!({"patterns": ["bye"]})),
        &["--min-score", "0", "--max-score", "0"],
        &Want {
            code: 0,
            score: 0.0,
            why: "missing: bye",
        },
    );
    expect(
        "max-score 0 on a hit",
        &case("contains", "Bye", json!({"patterns": ["bye"]})),
        &["--min-score", "0", "--max-score", "0"],
        &fail(1.0, "every pattern appears"),
    );
}

#[test]
fn banned_words_match_whole_words_unless_substring() {
    let words = json!({"words": ["cat"]});
    let substring = json!({"words": ["cat"], "match_mode": "substring"});
    let explicit = json!({"words": ["cat"], "match_mode": "word_boundary"});
    judge_all(vec![
        (
            "word_boundary: inside a longer word",
            case("banned_words", "Please concatenate them.", words.clone()),
            pass("no excluded word appears"),
        ),
        (
            "word_boundary: the word itself",
            case("banned_words", "the cat sat", words.clone()),
            fail(0.0, "excluded: cat"),
        ),
        (
            "word_boundary: next to punctuation",
            case("banned_words", "A CAT!", words),
            fail(0.0, "excluded: cat"),
        ),
        (
            "explicit word_boundary: inside a longer word",
            case("banned_words", "Please concatenate them.", explicit),
            pass("no excluded word appears"),
        ),
        (
            "substring: inside a longer word",
            case(
                "banned_words",
                "Please concatenate them.",
                substring.clone(),
            ),
            fail(0.0, "excluded: cat"),
        ),
        (
            "substring: absent",
            case("banned_words", "A dog.", substring),
            pass("no excluded word appears"),
        ),
    ]);
}

/// A banned word that starts or ends with a symbol is still a word: `\b` next to
/// `+` or `$` needs a word character on the other side, so it must not be what
/// decides whether the word stands alone.
#[test]
fn banned_words_ending_in_symbols_are_found_as_whole_words() {
    judge_all(vec![
        (
            "c++ standing alone",
            case(
                "banned_words",
                "I love C++ a lot",
                json!({"words": ["c++"]}),
            ),
            fail(0.0, "excluded: c++"),
        ),
        (
            "$free standing alone",
            case(
                "banned_words",
                "Get it for $free today",
                json!({"words": ["$free"]}),
            ),
            fail(0.0, "excluded: $free"),
        ),
        (
            "c++ inside a longer word",
            case("banned_words", "abc++ is not it", json!({"words": ["c++"]})),
            pass("no excluded word appears"),
        ),
    ]);
}

/// `tool_args` compares values as JSON: the numbers 5 and 5.0 are the same JSON
/// number (as they are for `json_path`'s `expected`).
#[test]
fn tool_args_compares_numbers_by_value() {
    judge_all(vec![(
        "5.0 expected, 5 given",
        case(
            "tool_args",
            "x",
            json!({"tool_name": "search", "expected_args": {"limit": 5.0}}),
        )
        .with(calls(vec![ok("search", json!({"limit": 5}), "")])),
        pass("expected arguments"),
    )]);
}

/// Everything in a result but what names the eval and its timing.
fn verdict_of(result: &Json) -> Json {
    let mut result = result.clone();
    if let Some(fields) = result.as_object_mut() {
        for key in ["eval_id", "type", "duration_ms"] {
            fields.remove(key);
        }
    }
    result
}

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
    let cases: Vec<(&str, Json, &str, Json, &[Input])> = vec![
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
    for (canonical, canonical_params, alias, alias_params, inputs) in &cases {
        let name = format!("{alias} {alias_params} as {canonical} {canonical_params}");
        let mut codes = Vec::new();
        for (content, context) in inputs.iter() {
            let (want, expected) =
                eval(canonical, content, canonical_params, context.as_ref(), &[]);
            let (got, result) = eval(alias, content, alias_params, context.as_ref(), &[]);
            let on = format!("{name}, on {content:?} {context:?}");
            assert!(
                want.code == 0 || want.code == 1,
                "{on}: the canonical check ended {}: {}",
                want.code,
                want.stderr
            );
            assert_eq!(got.code, want.code, "{on}: {}", got.stderr);
            assert_eq!(verdict_of(&result), verdict_of(&expected), "{on}");
            assert_eq!(result["type"], *alias, "{on}");
            codes.push(want.code);
        }
        assert!(
            codes.contains(&0) && codes.contains(&1),
            "{name}: the inputs should both pass and fail, got exits {codes:?}"
        );
    }
}

#[test]
fn bad_input_is_exit_2_naming_the_problem() {
    let cases: Vec<(&str, &str, Json, &str)> = vec![
        (
            "an unknown type close to a check",
            "containz",
            json!({}),
            "type `containz` is neither bound in the config's spec.evals nor built in; did you mean `contains`?",
        ),
        (
            "an unknown type close to an alias",
            "banned_word",
            json!({}),
            "did you mean `banned_words`?",
        ),
        (
            "an unknown type close to a tool check",
            "tool_call_counts",
            json!({}),
            "did you mean `tool_call_count`?",
        ),
        (
            "an unknown param close to a param",
            "regex",
            json!({"patern": "x"}),
            "`regex` takes no param `patern`; did you mean `pattern`? (it takes pattern, expect_match)",
        ),
        (
            "an unknown param close to a param alias",
            "content_excludes",
            json!({"word": ["x"]}),
            "`content_excludes` takes no param `word`; did you mean `words`?",
        ),
        (
            "an unknown param of json_path",
            "json_path",
            json!({"expresion": "a"}),
            "did you mean `expression`?",
        ),
        (
            "an unknown param of tools_called",
            "tools_called",
            json!({"tool_names": ["a"], "min_call": 1}),
            "did you mean `min_calls`?",
        ),
        (
            "params not an object",
            "contains",
            json!(["x"]),
            "the params must be a JSON object",
        ),
        (
            "patterns a number",
            "contains",
            json!({"patterns": 3}),
            "`contains`: `patterns` must be a list of strings, found 3",
        ),
        (
            "patterns holding a number",
            "contains_any",
            json!({"patterns": ["a", 1]}),
            "`patterns` must be a list of strings",
        ),
        (
            "words a number, under an alias",
            "banned_words",
            json!({"words": 3}),
            "`banned_words`: `words` must be a list of strings, found 3",
        ),
        (
            "expect_match not a boolean",
            "regex",
            json!({"pattern": "x", "expect_match": "yes"}),
            "`expect_match` must be true or false",
        ),
        (
            "min negative",
            "min_length",
            json!({"min": -1}),
            "`min` must be a whole number",
        ),
        (
            "min_chars a string",
            "min_length",
            json!({"min_chars": "10"}),
            "`min_chars` must be a whole number",
        ),
        (
            "max_tokens a fraction",
            "max_length",
            json!({"max_tokens": 1.5}),
            "`max_tokens` must be a whole number",
        ),
        (
            "allow_wrapped not a boolean",
            "json_valid",
            json!({"allow_wrapped": "yes"}),
            "`allow_wrapped` must be true or false",
        ),
        (
            "schema a string",
            "json_schema",
            json!({"schema": "object"}),
            "`schema` must be an object",
        ),
        (
            "json_path contains not a list",
            "json_path",
            json!({"expression": "a", "contains": "x"}),
            "`contains` must be a list",
        ),
        (
            "tool_names a number",
            "tools_called",
            json!({"tool_names": 3}),
            "`tool_names` must be a list of strings",
        ),
        (
            "min_calls a string",
            "tools_called",
            json!({"tool_names": ["a"], "min_calls": "2"}),
            "`min_calls` must be a whole number",
        ),
        (
            "expected_args a list",
            "tool_args",
            json!({"tool_name": "a", "expected_args": ["x"]}),
            "`expected_args` must be an object",
        ),
        (
            "occurrence negative",
            "tool_result_includes",
            json!({"patterns": ["a"], "occurrence": -1}),
            "`occurrence` must be a whole number",
        ),
        (
            "max_ms a string",
            "latency_budget",
            json!({"max_ms": "100"}),
            "`max_ms` must be a number",
        ),
        (
            "an unknown match_mode",
            "content_excludes",
            json!({"patterns": ["a"], "match_mode": "fuzzy"}),
            "`match_mode` is `word_boundary` or `substring`, found `fuzzy`",
        ),
        (
            "an invalid regex",
            "regex",
            json!({"pattern": "(unclosed"}),
            "`regex`: invalid `pattern`",
        ),
        (
            "an invalid regex, under the alias",
            "content_matches",
            json!({"pattern": "[a-"}),
            "`content_matches`: invalid `pattern`",
        ),
        (
            "an invalid regex of tool_result_matches",
            "tool_result_matches",
            json!({"pattern": "(?P<x"}),
            "`tool_result_matches`: invalid `pattern`",
        ),
        (
            "an invalid JMESPath expression",
            "json_path",
            json!({"expression": "a[["}),
            "`json_path`: invalid JMESPath `expression`",
        ),
        (
            "an invalid JMESPath expression, under the alias",
            "json_path",
            json!({"jmespath_expression": "a.|"}),
            "invalid JMESPath `expression`",
        ),
        (
            "an invalid JSON Schema",
            "json_schema",
            json!({"schema": {"type": "nope"}}),
            "`json_schema`: `schema` is not a valid JSON Schema",
        ),
        (
            "an invalid JSON Schema, deeper",
            "json_schema",
            json!({"schema": {"properties": {"a": {"minLength": "three"}}}}),
            "`schema` is not a valid JSON Schema",
        ),
        (
            "patterns missing",
            "contains",
            json!({}),
            "`contains` needs `patterns`, a non-empty list of strings",
        ),
        (
            "patterns empty",
            "content_excludes",
            json!({"patterns": []}),
            "needs `patterns`",
        ),
        (
            "pattern missing",
            "regex",
            json!({}),
            "`regex` needs `pattern`",
        ),
        (
            "min zero",
            "min_length",
            json!({"min": 0}),
            "`min_length` needs `min`",
        ),
        (
            "max missing",
            "max_length",
            json!({}),
            "`max_length` needs `max` (characters) or `max_tokens`",
        ),
        (
            "schema missing",
            "json_schema",
            json!({}),
            "`json_schema` needs `schema`",
        ),
        (
            "expression missing",
            "json_path",
            json!({"expected": 1}),
            "`json_path` needs `expression`",
        ),
        (
            "tool_names missing",
            "tools_not_called",
            json!({}),
            "`tools_not_called` needs `tool_names`",
        ),
        (
            "expected_args missing",
            "tool_args",
            json!({"tool_name": "a"}),
            "`tool_args` needs `expected_args`",
        ),
        (
            "neither min nor max",
            "tool_call_count",
            json!({"tool": "a"}),
            "`tool_call_count` needs `min`, `max` or both",
        ),
        (
            "sequence missing",
            "tool_call_sequence",
            json!({}),
            "`tool_call_sequence` needs `sequence`",
        ),
        (
            "max_ms zero",
            "latency_budget",
            json!({"max_ms": 0}),
            "`latency_budget` needs `max_ms`",
        ),
        (
            "a param under its name and its alias",
            "banned_words",
            json!({"patterns": ["a"], "words": ["b"]}),
            "`banned_words`: give one of patterns and words, not both",
        ),
        (
            "min_chars and min_characters",
            "min_length",
            json!({"min_chars": 1, "min_characters": 2}),
            "give one of min_characters and min_chars, not both",
        ),
    ];
    for (name, eval_type, params, says) in &cases {
        let (out, _) = eval(eval_type, "some text", params, None, &[]);
        let shown = format!("{name}: exit {}\n{}\n{}", out.code, out.stdout, out.stderr);
        assert_eq!(out.code, 2, "{shown}");
        assert_eq!(out.stdout, "", "{shown}");
        assert!(out.stderr.contains(says), "`{says}` not in: {shown}");
    }
    // Far from every name, an unknown type gets no suggestion.
    let (out, _) = eval("frobnicate", "x", &json!({}), None, &[]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("type `frobnicate` is neither bound")
            && !out.stderr.contains("did you mean"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_context_can_come_from_a_file() {
    for (check, params, code, score) in [
        ("contains_any", json!({"patterns": ["refund"]}), 0, 1.0),
        (
            "tool_args",
            json!({"tool_name": "lookup_order", "expected_args": {"order_id": "A-1002"}}),
            0,
            1.0,
        ),
        (
            "tool_result_includes",
            json!({"tool": "lookup_order", "patterns": ["REFUNDED"]}),
            0,
            1.0,
        ),
        (
            "tools_called",
            json!({"tool_names": ["lookup_order", "email"]}),
            1,
            0.5,
        ),
        ("latency_budget", json!({"max_ms": 100}), 1, 0.4),
    ] {
        let extra = ["--context", "@turn.json"];
        let (out, result) = eval(check, "Anything else?", &params, None, &extra);
        let shown = format!("{check}: exit {}\n{}\n{}", out.code, out.stdout, out.stderr);
        assert_eq!(out.code, code, "{shown}");
        let got = result["score"].as_f64().expect("a score");
        assert!((got - score).abs() < 1e-9, "{shown}");
    }
}
