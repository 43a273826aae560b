//! The bundled example tools, called the way the README shows.

use serde_json::Value as Json;

use crate::util::{Outcome, example_config};

#[track_caller]
fn invoke(tool: &str, args: &str, env: &[(&str, &str)]) -> Outcome {
    example_config()
        .args(&[
            "invoke-tool",
            tool,
            "--pack",
            "examples/assistant.pack.json",
            "--args",
            args,
        ])
        .envs(env)
        .run()
}

#[track_caller]
fn result(out: &Outcome) -> Json {
    out.expect_code(0);
    out.json()
}

#[test]
fn lookup_order_reads_its_json_file() {
    let found = result(&invoke("lookup_order", r#"{"order_id": "A-1002"}"#, &[]));
    assert_eq!(found["status"], "delayed");
    assert_eq!(found["item"], "rain jacket");
    let missing = invoke("lookup_order", r#"{"order_id": "A-0404"}"#, &[]);
    missing.expect_code(1);
    missing.stderr_has("no order A-0404");
}

#[test]
fn sentiment_check_scores_text() {
    let happy = result(&invoke(
        "sentiment_check",
        r#"{"text": "I love it, thanks!"}"#,
        &[],
    ));
    assert_eq!(happy["label"], "positive");
    let angry = result(&invoke(
        "sentiment_check",
        r#"{"text": "Late and broken. Worst order."}"#,
        &[],
    ));
    assert_eq!(angry["label"], "negative");
    assert_eq!(angry["score"], -1.0);
}

#[test]
fn refund_order_asks_a_person_above_the_limit() {
    let small = result(&invoke(
        "refund_order",
        r#"{"order_id": "A-1001", "amount": 20}"#,
        &[],
    ));
    assert_eq!(small["status"], "refund issued");
    let large = invoke(
        "refund_order",
        r#"{"order_id": "A-1002", "amount": 149}"#,
        &[],
    );
    large.expect_code(4);
    large.stderr_has("needs a manager's approval");
    // The limit comes from a listed environment variable.
    let raised = invoke(
        "refund_order",
        r#"{"order_id": "A-1002", "amount": 149}"#,
        &[("REFUND_LIMIT", "500")],
    );
    assert_eq!(result(&raised)["refunded"], 149.0);
}

#[test]
fn store_clock_is_plain_shell() {
    let clock = result(&invoke("store_clock", "{}", &[]));
    assert!(
        clock["utc"].as_str().is_some_and(|t| t.ends_with('Z')),
        "{clock}"
    );
    assert!(clock["open"].is_boolean(), "{clock}");
}

#[test]
fn example_arguments_are_checked_against_the_pack() {
    let out = invoke(
        "refund_order",
        r#"{"order_id": "A-1002", "amount": -5}"#,
        &[],
    );
    out.expect_code(2);
    out.stderr_has("/amount");
}

#[test]
fn the_example_cases_pass_and_cover_every_example_tool_and_hook() {
    let out = example_config()
        .args(["test", "examples/assistant.cases.yaml", "--format", "json"])
        .envs(&[("REFUND_LIMIT", "100"), ("REVIEW_APPROVE_WRITES", "0")])
        .run();
    out.expect_code(0);
    let report = out.json_report();
    assert_eq!(report["summary"]["failed"], 0, "{report:#}");
    assert_eq!(report["summary"]["errors"], 0, "{report:#}");
    let tested: std::collections::BTreeSet<String> = report["files"][0]["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|case| case["target"].as_str().map(str::to_string))
        .collect();
    let config = promptexec::config::load(
        &crate::util::repo_root().join("runtimeconfig.example.yaml"),
        false,
    )
    .expect("the example config loads")
    .value;
    let bound: std::collections::BTreeSet<String> = config
        .tools
        .keys()
        .chain(config.hooks.keys())
        .cloned()
        .collect();
    assert_eq!(tested, bound, "every example tool and hook has a case");
}
