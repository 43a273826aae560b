//! `promptexec eval TYPE` runs the built-in checks: one test per family proving the
//! binary wires them, and what only the command does (thresholds from flags, the
//! context from a file, refusals with exit 2). Every check's cases, its aliases and
//! the params it refuses are unit tests in `src/evals/builtin`.

use serde_json::{Value as Json, json};

use crate::util::{Outcome, fixtures, promptexec};

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
    let out = promptexec()
        .in_dir(fixtures().join("checks"))
        .args(args)
        .run();
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
    out.expect_code(want.code);
    let shown = format!("{name}: exit {}\n{}\n{}", out.code, out.stdout, out.stderr);
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

/// A turn that called `search` twice and `fetch` once, then failed a call to `pay`.
fn busy_turn() -> Json {
    let call = |name: &str, error: Option<&str>| json!({"name": name, "args": {}, "result": "", "error": error});
    json!({ "tool_calls": [
        call("search", None), call("fetch", None), call("search", None), call("pay", Some("boom"))
    ] })
}

mod content_checks_are_wired {
    use super::*;

    fn patterns() -> Json {
        json!({"patterns": ["hello", "WORLD"]})
    }

    #[test]
    fn contains_every_pattern_any_case() {
        expect(
            "contains: every pattern, any case",
            &case("contains", "Hello World", patterns()),
            &[],
            &pass("every pattern appears"),
        );
    }

    #[test]
    fn contains_one_of_two_patterns() {
        expect(
            "contains: one of two patterns",
            &case("contains", "Hello there", patterns()),
            &[],
            &fail(0.5, "1 of 2 patterns appear; missing: WORLD"),
        );
    }

    #[test]
    fn banned_words_in_an_earlier_assistant_message() {
        expect(
            "banned_words: in an earlier assistant message",
            &case("banned_words", "A dog barked.", json!({"words": ["cat"]})).with(json!({
                "messages": [{"role": "assistant", "content": "a cat, maybe"}]
            })),
            &[],
            &fail(0.0, "excluded: cat"),
        );
    }
}

mod json_checks_are_wired {
    use super::*;

    const ORDER: &str = r#"{"order": {"id": "A-1", "total": 42}}"#;

    #[test]
    fn json_valid_not_json() {
        expect(
            "json_valid: not JSON",
            &case("json_valid", "{a: 1}", json!({})),
            &[],
            &fail(0.0, "not JSON"),
        );
    }

    #[test]
    fn json_path_expected_equal() {
        expect(
            "json_path: expected equal",
            &case(
                "json_path",
                ORDER,
                json!({"expression": "order.id", "expected": "A-1"}),
            ),
            &[],
            &pass(r#"`order.id` is "A-1""#),
        );
    }

    #[test]
    fn json_schema_a_wrong_type() {
        expect(
            "json_schema: a wrong type",
            &case(
                "json_schema",
                ORDER,
                json!({"schema": {"properties": {"order": {"type": "string"}}}}),
            ),
            &[],
            &fail(0.0, "/order: "),
        );
    }
}

mod tool_checks_are_wired {
    use super::*;

    #[test]
    fn tool_call_count_one_tool_within_range() {
        expect(
            "tool_call_count: one tool within range",
            &case(
                "tool_call_count",
                "x",
                json!({"tool": "search", "min": 1, "max": 2}),
            )
            .with(busy_turn()),
            &[],
            &pass("2 call(s) to `search`"),
        );
    }

    #[test]
    fn no_tool_errors_one_of_four_failed() {
        expect(
            "no_tool_errors: one of four failed",
            &case("no_tool_errors", "x", json!({})).with(busy_turn()),
            &[],
            &fail(0.75, "1 of 4 call(s) failed: pay"),
        );
    }
}

mod latency_budget_is_wired_and_judges_nothing_without_a_latency {
    use super::*;

    fn budget() -> Json {
        json!({"max_ms": 100})
    }

    #[test]
    fn four_times_over() {
        expect(
            "latency_budget: four times over",
            &case("latency_budget", "x", budget()).with(json!({"metadata": {"latency_ms": 400}})),
            &[],
            &fail(0.25, "400 ms (budget 100 ms)"),
        );
    }

    /// A check that cannot judge its input ends in an error (exit 3), not a score of 0.
    #[test]
    fn without_a_latency_it_is_an_error() {
        let (out, result) = eval("latency_budget", "x", &budget(), None, &[]);
        out.expect_code(3);
        assert_eq!(result["status"], "error", "{}", out.stdout);
        assert_eq!(result["score"], Json::Null, "{}", out.stdout);
        assert_eq!(result["passed"], false, "{}", out.stdout);
        assert_eq!(
            result["error"], "the context has no `metadata.latency_ms` to judge",
            "{}",
            out.stdout
        );
    }
}

mod min_and_max_score_decide_pass_and_fail {
    use super::*;

    /// `contains` finding one of its two patterns: a score of 0.5.
    fn half() -> Case {
        case("contains", "Hello", json!({"patterns": ["hello", "world"]}))
    }

    fn half_passes() -> Want {
        Want {
            code: 0,
            score: 0.5,
            why: "missing: world",
        }
    }

    #[test]
    fn min_score_reached_passes() {
        expect(
            "min-score 0.5",
            &half(),
            &["--min-score", "0.5"],
            &half_passes(),
        );
    }

    #[test]
    fn min_score_missed_fails() {
        expect(
            "min-score 0.6",
            &half(),
            &["--min-score", "0.6"],
            &fail(0.5, "missing: world"),
        );
    }

    #[test]
    fn max_score_is_inclusive() {
        expect(
            "min-score 0, max-score 0.5 (inclusive)",
            &half(),
            &["--min-score", "0", "--max-score", "0.5"],
            &half_passes(),
        );
    }

    #[test]
    fn max_score_exceeded_fails() {
        expect(
            "min-score 0, max-score 0.4",
            &half(),
            &["--min-score", "0", "--max-score", "0.4"],
            &fail(0.5, "missing: world"),
        );
    }

    /// A check that must score 0: no pattern may appear.
    #[test]
    fn max_score_0_passes_on_a_miss() {
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
    }

    #[test]
    fn max_score_0_fails_on_a_hit() {
        expect(
            "max-score 0 on a hit",
            &case("contains", "Bye", json!({"patterns": ["bye"]})),
            &["--min-score", "0", "--max-score", "0"],
            &fail(1.0, "every pattern appears"),
        );
    }
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
#[track_caller]
fn an_alias_judges(content: &str) {
    let params = json!({"patterns": ["cat"]});
    let (want, expected) = eval("content_excludes", content, &params, None, &[]);
    let (got, result) = eval("banned_words", content, &params, None, &[]);
    got.expect_code(want.code);
    assert_eq!(verdict_of(&result), verdict_of(&expected), "{content}");
    assert_eq!(result["type"], "banned_words", "{content}");
    assert_eq!(result["eval_id"], "banned_words", "{content}");
}

mod an_alias_is_reported_under_its_own_name {
    #[test]
    fn on_a_hit() {
        super::an_alias_judges("the cat sat");
    }

    #[test]
    fn on_a_word_that_only_holds_it() {
        super::an_alias_judges("concatenate");
    }
}

/// `eval EVAL_TYPE` with `params` on some text: exit 2, nothing on stdout, and `says`
/// on stderr.
#[track_caller]
fn refused(eval_type: &str, params: Json, says: &str) {
    let (out, _) = eval(eval_type, "some text", &params, None, &[]);
    out.expect_code(2).stdout_empty().stderr_has(says);
}

mod bad_input_is_exit_2_naming_the_problem {
    use super::*;

    #[test]
    fn an_unknown_type_close_to_a_check() {
        refused(
            "containz",
            json!({}),
            "type `containz` is neither bound in the config's spec.evals nor built in; did you mean `contains`?",
        );
    }

    #[test]
    fn an_unknown_param_close_to_a_param() {
        refused(
            "regex",
            json!({"patern": "x"}),
            "`regex` takes no param `patern`; did you mean `pattern`? (it takes pattern, expect_match)",
        );
    }

    #[test]
    fn params_not_an_object() {
        refused("contains", json!(["x"]), "the params must be a JSON object");
    }

    #[test]
    fn patterns_missing() {
        refused(
            "contains",
            json!({}),
            "`contains` needs `patterns`, a non-empty list of strings",
        );
    }

    /// Far from every name, an unknown type gets no suggestion.
    #[test]
    fn an_unknown_type_far_from_every_check() {
        let (out, _) = eval("frobnicate", "x", &json!({}), None, &[]);
        out.expect_code(2)
            .stderr_has("type `frobnicate` is neither bound")
            .stderr_lacks("did you mean");
    }
}

/// `eval CHECK --context @turn.json` on some text: the exit code and score.
#[track_caller]
fn judged_with_the_file(check: &str, params: Json, code: i32, score: f64) {
    let extra = ["--context", "@turn.json"];
    let (out, result) = eval(check, "Anything else?", &params, None, &extra);
    out.expect_code(code);
    let shown = format!("{check}: exit {}\n{}\n{}", out.code, out.stdout, out.stderr);
    let got = result["score"].as_f64().expect("a score");
    assert!((got - score).abs() < 1e-9, "{shown}");
}

mod the_context_can_come_from_a_file {
    use super::*;

    #[test]
    fn contains_any() {
        judged_with_the_file("contains_any", json!({"patterns": ["refund"]}), 0, 1.0);
    }

    #[test]
    fn tool_args() {
        judged_with_the_file(
            "tool_args",
            json!({"tool_name": "lookup_order", "expected_args": {"order_id": "A-1002"}}),
            0,
            1.0,
        );
    }

    #[test]
    fn tool_result_includes() {
        judged_with_the_file(
            "tool_result_includes",
            json!({"tool": "lookup_order", "patterns": ["REFUNDED"]}),
            0,
            1.0,
        );
    }

    #[test]
    fn tools_called() {
        judged_with_the_file(
            "tools_called",
            json!({"tool_names": ["lookup_order", "email"]}),
            1,
            0.5,
        );
    }

    #[test]
    fn latency_budget() {
        judged_with_the_file("latency_budget", json!({"max_ms": 100}), 1, 0.4);
    }
}
