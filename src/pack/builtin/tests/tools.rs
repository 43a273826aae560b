//! The checks on the turn's tool calls.

use serde_json::json;

use super::{broke, call, calls, case, fail, judge_all, ok, pass};

mod tool_checks_pass_and_fail {
    use super::*;

    table! {
        super::super::judge_row, {
            let both = json!({"tool_names": ["search", "fetch"]});
            let search = |q: &str| ok("search", json!({"q": q, "limit": 5}), "");
        }
        tools_called_every_tool: (
            "tools_called: every tool",
            case("tools_called", "x", both.clone())
                .with(calls(vec![call("search"), call("fetch")])),
            pass("every listed tool was called"),
        );
        tools_called_one_of_two: (
            "tools_called: one of two",
            case("tools_called", "x", both.clone()).with(calls(vec![call("search")])),
            fail(0.5, "not called (at least 1 times): fetch"),
        );
        tools_called_a_failed_call_does_not_count: (
            "tools_called: a failed call does not count",
            case("tools_called", "x", both.clone())
                .with(calls(vec![call("search"), broke("fetch")])),
            fail(0.5, "fetch"),
        );
        tools_called_with_no_tool_named_fails_when_it_runs: (
            "tools_called: no tool named fails when it runs, as in PromptKit",
            case("tools_called", "x", json!({}))
                .with(calls(vec![call("search")])),
            fail(0.0, "no tool named: give `tool_names`, a non-empty list"),
        );
        tools_called_min_calls: (
            "tools_called: min_calls",
            case(
                "tools_called",
                "x",
                json!({"tool_names": ["search"], "min_calls": 2}),
            )
            .with(calls(vec![call("search"), broke("search")])),
            fail(0.0, "not called (at least 2 times): search"),
        );
        tools_called_within_max_calls: (
            "tools_called: within max_calls",
            case(
                "tools_called",
                "x",
                json!({"tool_names": ["search"], "max_calls": 2}),
            )
            .with(calls(vec![call("search"), call("search")])),
            pass("every listed tool was called"),
        );
        tools_called_over_max_calls_scores_0: (
            "tools_called: over max_calls scores 0",
            case(
                "tools_called",
                "x",
                json!({"tool_names": ["search", "fetch"], "max_calls": 1}),
            )
            .with(calls(vec![call("fetch"), call("search"), call("search")])),
            fail(0.0, "`search` was called 2 times, more than 1"),
        );
        tools_not_called_none_called: (
            "tools_not_called: none called",
            case("tools_not_called", "x", both.clone()).with(calls(vec![call("other")])),
            pass("none of the listed tools was called"),
        );
        tools_not_called_one_called: (
            "tools_not_called: one called",
            case("tools_not_called", "x", both).with(calls(vec![call("other"), call("fetch")])),
            fail(0.0, "called: fetch"),
        );
        tool_args_some_call_has_every_expected_arg: (
            "tool_args: some call has every expected arg",
            case(
                "tool_args",
                "x",
                json!({"tool_name": "search", "expected_args": {"q": "shoes"}}),
            )
            .with(calls(vec![search("hats"), search("shoes")])),
            pass("`search` was called with the expected arguments"),
        );
        tool_args_values_compared_as_text: (
            "tool_args: values compared as text",
            case(
                "tool_args",
                "x",
                json!({"tool_name": "search", "expected_args": {"limit": "5"}}),
            )
            .with(calls(vec![search("hats")])),
            pass("expected arguments"),
        );
        tool_args_text_compared_as_a_value: (
            "tool_args: text compared as a value",
            case(
                "tool_args",
                "x",
                json!({"tool_name": "lookup", "expected_args": {"id": 7}}),
            )
            .with(calls(vec![ok("lookup", json!({"id": "7"}), "")])),
            pass("expected arguments"),
        );
        tool_args_no_call_has_the_args: (
            "tool_args: no call has the args",
            case(
                "tool_args",
                "x",
                json!({"tool_name": "search", "expected_args": {"q": "boots"}}),
            )
            .with(calls(vec![search("hats")])),
            fail(0.0, r#"no call to `search` had {"q":"boots"}"#),
        );
        tool_args_the_tool_was_not_called: (
            "tool_args: the tool was not called",
            case(
                "tool_args",
                "x",
                json!({"tool_name": "fetch", "expected_args": {}}),
            )
            .with(calls(vec![search("hats")])),
            fail(0.0, "`fetch` was not called"),
        );
        tool_call_count_one_tool_within_range: (
            "tool_call_count: one tool within range",
            case(
                "tool_call_count",
                "x",
                json!({"tool": "search", "min": 1, "max": 2}),
            )
            .with(calls(vec![call("search"), call("fetch"), call("search")])),
            pass("2 call(s) to `search`"),
        );
        tool_call_count_every_tool_over_max: (
            "tool_call_count: every tool, over max",
            case("tool_call_count", "x", json!({"max": 2})).with(calls(vec![
                call("search"),
                call("fetch"),
                call("search"),
            ])),
            fail(0.0, "3 call(s) to tools, expected at most 2"),
        );
        tool_call_count_under_min: (
            "tool_call_count: under min",
            case("tool_call_count", "x", json!({"tool": "fetch", "min": 1}))
                .with(calls(vec![call("search")])),
            fail(0.0, "0 call(s) to `fetch`, expected at least 1"),
        );
        tool_call_sequence_in_order_other_calls_between: (
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
        );
        tool_call_sequence_the_share_reached: (
            "tool_call_sequence: the share reached",
            case(
                "tool_call_sequence",
                "x",
                json!({"sequence": ["search", "fetch", "pay", "mail"]}),
            )
            .with(calls(vec![call("search"), call("fetch"), call("mail")])),
            fail(0.5, "2 of 4 steps in order"),
        );
        tool_call_sequence_out_of_order: (
            "tool_call_sequence: out of order",
            case(
                "tool_call_sequence",
                "x",
                json!({"sequence": ["fetch", "search"]}),
            )
            .with(calls(vec![call("search"), call("fetch")])),
            fail(0.5, "1 of 2 steps in order"),
        );
        no_tool_errors_no_errors: (
            "no_tool_errors: no errors",
            case("no_tool_errors", "x", json!({})).with(calls(vec![call("search"), call("fetch")])),
            pass("2 call(s), no errors"),
        );
        no_tool_errors_no_calls_at_all: (
            "no_tool_errors: no calls at all",
            case("no_tool_errors", "x", json!({})),
            pass("0 call(s), no errors"),
        );
        no_tool_errors_one_of_four_failed: (
            "no_tool_errors: one of four failed",
            case("no_tool_errors", "x", json!({})).with(calls(vec![
                call("search"),
                broke("fetch"),
                call("search"),
                call("pay"),
            ])),
            fail(0.75, "1 of 4 call(s) failed: fetch"),
        );
        no_tool_errors_only_the_listed_tools_count: (
            "no_tool_errors: only the listed tools count",
            case("no_tool_errors", "x", json!({"tools": ["search"]}))
                .with(calls(vec![call("search"), broke("fetch")])),
            pass("1 call(s), no errors"),
        );
        tool_result_includes_every_pattern_in_one_result_any_case: (
            "tool_result_includes: every pattern in one result, any case",
            case(
                "tool_result_includes",
                "x",
                json!({"tool": "search", "patterns": ["red", "SHOE"]}),
            )
            .with(calls(vec![ok("search", json!({}), "Red shoe, size 9")])),
            pass("1 result(s) include every pattern"),
        );
        tool_result_includes_patterns_spread_over_two_results: (
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
        );
        tool_result_includes_another_tool_s_result_does_not_count: (
            "tool_result_includes: another tool's result does not count",
            case(
                "tool_result_includes",
                "x",
                json!({"tool": "search", "patterns": ["red"]}),
            )
            .with(calls(vec![ok("fetch", json!({}), "red")])),
            fail(0.0, "0 result(s) include every pattern"),
        );
        tool_result_includes_any_tool_occurrence_2: (
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
        );
        tool_result_includes_too_few_occurrences: (
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
        );
        tool_result_matches_a_match: (
            "tool_result_matches: a match",
            case(
                "tool_result_matches",
                "x",
                json!({"tool": "search", "pattern": r"^\d+ hits$"}),
            )
            .with(calls(vec![ok("search", json!({}), "12 hits")])),
            pass(r"1 result(s) match /^\d+ hits$/"),
        );
        tool_result_matches_case_sensitive_no_match: (
            "tool_result_matches: case-sensitive, no match",
            case(
                "tool_result_matches",
                "x",
                json!({"tool": "search", "pattern": "Hits"}),
            )
            .with(calls(vec![ok("search", json!({}), "12 hits")])),
            fail(0.0, "0 result(s) match /Hits/, expected at least 1"),
        );
        tool_result_matches_occurrence: (
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
        );
        tool_result_matches_too_few_occurrences: (
            "tool_result_matches: too few occurrences",
            case(
                "tool_result_matches",
                "x",
                json!({"pattern": "ok", "occurrence": 2}),
            )
            .with(calls(vec![ok("search", json!({}), "ok"), broke("fetch")])),
            fail(0.0, "1 result(s) match /ok/, expected at least 2"),
        );
    }
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

/// PromptKit's `require_args` and `ignore_validation` on `tools_called`.
mod tools_called_reads_require_args_and_ignore_validation {
    use super::*;

    table! {
        super::super::judge_row, {
            let search = json!({"tool_names": ["search"]});
            let refused = json!({"name": "search", "args": {"q": 7}, "result": null,
                "error": "invalid arguments: /q: 7 is not of type \"string\""});
        }
        require_args_a_call_with_no_arguments_does_not_count: (
            "require_args: a call with no arguments does not count",
            case(
                "tools_called",
                "x",
                json!({"tool_names": ["search"], "require_args": true}),
            )
            .with(calls(vec![call("search")])),
            fail(0.0, "not called (at least 1 times): search"),
        );
        require_args_a_call_with_arguments_counts: (
            "require_args: a call with arguments counts",
            case(
                "tool_called",
                "x",
                json!({"tool_names": ["search"], "require_args": true}),
            )
            .with(calls(vec![ok("search", json!({"q": "a"}), "")])),
            pass("every listed tool was called"),
        );
        a_call_refused_for_its_arguments_does_not_count_by_default: (
            "a call refused for its arguments does not count by default",
            case("tools_called", "x", search.clone()).with(calls(vec![refused.clone()])),
            fail(0.0, "search"),
        );
        ignore_validation_a_call_refused_for_its_arguments_counts: (
            "ignore_validation: a call refused for its arguments counts",
            case(
                "tools_called",
                "x",
                json!({"tool_names": ["search"], "ignore_validation": true}),
            )
            .with(calls(vec![refused])),
            pass("every listed tool was called"),
        );
        ignore_validation_a_call_that_failed_otherwise_still_does_not_count: (
            "ignore_validation: a call that failed otherwise still does not count",
            case(
                "tools_called",
                "x",
                json!({"tool_names": ["search"], "ignore_validation": true}),
            )
            .with(calls(vec![broke("search")])),
            fail(0.0, "search"),
        );
    }
}
