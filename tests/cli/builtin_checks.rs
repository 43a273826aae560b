//! `promptexec eval TYPE` runs the built-in checks: one test per family proving the
//! binary wires them, and what only the command does (thresholds from flags, the
//! context from a file, refusals with exit 2). Every check's cases, its aliases and
//! the params it refuses are unit tests in `src/evals/builtin`.

use serde_json::{Value as Json, json};

use crate::util::{Outcome, fixtures, run_in};

/// Runs the built-in check `eval_type` on `content`, in `tests/fixtures/checks` (so
/// `@FILE` contexts resolve there).
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
    run_eval(&args)
}

/// Runs `promptexec ARGS` in `tests/fixtures/checks`; the result is `Json::Null` when
/// stdout holds none.
#[track_caller]
fn run_eval(args: &[&str]) -> (Outcome, Json) {
    let out = run_in(&fixtures().join("checks"), args);
    let result = serde_json::from_str(&out.stdout).unwrap_or(Json::Null);
    (out, result)
}

/// One run of `promptexec eval CHECK` on some content, with its params.
struct Case {
    check: &'static str,
    args: Vec<String>,
}

fn case(check: &'static str, content: &str, params: Json) -> Case {
    let args = ["--content", content, "--params", &params.to_string()]
        .map(String::from)
        .to_vec();
    Case { check, args }
}

impl Case {
    /// Adds the context the check reads: messages, tool calls, metadata.
    fn with(mut self, context: Json) -> Self {
        self.args
            .extend(["--context".to_string(), context.to_string()]);
        self
    }

    #[track_caller]
    fn run(&self, extra: &[&str]) -> (Outcome, Json) {
        let mut args = vec!["eval", self.check];
        args.extend(self.args.iter().map(String::as_str));
        args.extend_from_slice(extra);
        run_eval(&args)
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

/// A turn that called `search` twice and `fetch` once, then failed a call to `pay`.
fn busy_turn() -> Json {
    let call = |name: &str, error: Option<&str>| json!({"name": name, "args": {}, "result": "", "error": error});
    json!({ "tool_calls": [
        call("search", None), call("fetch", None), call("search", None), call("pay", Some("boom"))
    ] })
}

#[test]
fn content_checks_are_wired() {
    let patterns = json!({"patterns": ["hello", "WORLD"]});
    judge_all(vec![
        (
            "contains: every pattern, any case",
            case("contains", "Hello World", patterns.clone()),
            pass("every pattern appears"),
        ),
        (
            "contains: one of two patterns",
            case("contains", "Hello there", patterns),
            fail(0.5, "1 of 2 patterns appear; missing: WORLD"),
        ),
        (
            "banned_words: in an earlier assistant message",
            case("banned_words", "A dog barked.", json!({"words": ["cat"]})).with(json!({
                "messages": [{"role": "assistant", "content": "a cat, maybe"}]
            })),
            fail(0.0, "excluded: cat"),
        ),
    ]);
}

#[test]
fn json_checks_are_wired() {
    let order = r#"{"order": {"id": "A-1", "total": 42}}"#;
    judge_all(vec![
        (
            "json_valid: not JSON",
            case("json_valid", "{a: 1}", json!({})),
            fail(0.0, "not JSON"),
        ),
        (
            "json_path: expected equal",
            case(
                "json_path",
                order,
                json!({"expression": "order.id", "expected": "A-1"}),
            ),
            pass(r#"`order.id` is "A-1""#),
        ),
        (
            "json_schema: a wrong type",
            case(
                "json_schema",
                order,
                json!({"schema": {"properties": {"order": {"type": "string"}}}}),
            ),
            fail(0.0, "/order: "),
        ),
    ]);
}

#[test]
fn tool_checks_are_wired() {
    judge_all(vec![
        (
            "tool_call_count: one tool within range",
            case(
                "tool_call_count",
                "x",
                json!({"tool": "search", "min": 1, "max": 2}),
            )
            .with(busy_turn()),
            pass("2 call(s) to `search`"),
        ),
        (
            "no_tool_errors: one of four failed",
            case("no_tool_errors", "x", json!({})).with(busy_turn()),
            fail(0.75, "1 of 4 call(s) failed: pay"),
        ),
    ]);
}

/// A check that cannot judge its input ends in an error (exit 3), not a score of 0.
#[test]
fn latency_budget_is_wired_and_judges_nothing_without_a_latency() {
    let budget = json!({"max_ms": 100});
    judge_all(vec![(
        "latency_budget: four times over",
        case("latency_budget", "x", budget.clone()).with(json!({"metadata": {"latency_ms": 400}})),
        fail(0.25, "400 ms (budget 100 ms)"),
    )]);
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

/// An alias runs its canonical check and reports itself under the name it was given.
#[test]
fn an_alias_is_reported_under_its_own_name() {
    for content in ["the cat sat", "concatenate"] {
        let params = json!({"patterns": ["cat"]});
        let (want, expected) = eval("content_excludes", content, &params, None, &[]);
        let (got, result) = eval("banned_words", content, &params, None, &[]);
        assert_eq!(got.code, want.code, "{content}: {}", got.stderr);
        assert_eq!(verdict_of(&result), verdict_of(&expected), "{content}");
        assert_eq!(result["type"], "banned_words", "{content}");
        assert_eq!(result["eval_id"], "banned_words", "{content}");
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
            "an unknown param close to a param",
            "regex",
            json!({"patern": "x"}),
            "`regex` takes no param `patern`; did you mean `pattern`? (it takes pattern, expect_match)",
        ),
        (
            "params not an object",
            "contains",
            json!(["x"]),
            "the params must be a JSON object",
        ),
        (
            "patterns missing",
            "contains",
            json!({}),
            "`contains` needs `patterns`, a non-empty list of strings",
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
