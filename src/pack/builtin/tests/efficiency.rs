//! `tool_efficiency`: limits on the number of tool calls, of failed ones, and on
//! their share.

use serde_json::json;

use super::{broke, call, calls, case, fail, pass};

mod within_and_over_the_limits {
    use super::*;

    table! {
        super::super::judge_row, {
            let three = || calls(vec![call("search"), call("fetch"), broke("fetch")]);
        }
        within_every_limit_passes: (
            "within every limit passes",
            case("tool_efficiency", "x", json!({"max_calls": 5, "max_errors": 1, "max_error_rate": 0.5}))
                .with(three()),
            pass("3 calls, 1 errors: within limits"),
        );
        too_many_calls_fails: (
            "too many calls fails",
            case("tool_efficiency", "x", json!({"max_calls": 2})).with(three()),
            fail(0.0, "efficiency check failed: too many calls: 3 (max 2)"),
        );
        too_many_errors_fails: (
            "too many errors fails",
            case("tool_efficiency", "x", json!({"max_errors": 0})).with(three()),
            fail(0.0, "too many errors: 1 (max 0)"),
        );
        an_error_rate_over_the_limit_fails: (
            "an error rate over the limit fails",
            case("tool_efficiency", "x", json!({"max_error_rate": 0.2})).with(three()),
            fail(0.0, "error rate 33.3% exceeds max 20.0%"),
        );
        no_call_is_within_a_rate_limit: (
            "no call is within a rate limit",
            case("tool_efficiency", "x", json!({"max_error_rate": 0.0})).with(calls(vec![])),
            pass("0 calls, 0 errors: within limits"),
        );
    }
}
