//! `latency_budget`.

use serde_json::json;

use super::{case, fail, judge_all, pass};

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
    // Without a latency there is nothing to judge: an error, not a score of 0.
    let error = case("latency_budget", "x", budget)
        .judged()
        .expect_err("no score without a latency");
    assert_eq!(
        error.to_string(),
        "the context has no `metadata.latency_ms` to judge"
    );
}
