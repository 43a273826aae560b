use serde_json::{Value as Json, json};

use super::*;

fn trial(code: u64) -> Json {
    json!({"exit_code": code, "tool_calls": [], "hook_decisions": [], "evals": [],
           "totals": {"duration_ms": 100, "model": {"calls": 1, "latency_ms": 0}}})
}

fn scenario(id: &str, result: &str, codes: &[u64]) -> Json {
    json!({"id": id, "result": result, "assertions": [],
           "trials": codes.iter().map(|c| trial(*c)).collect::<Vec<_>>()})
}

fn suite(scenarios: Vec<Json>) -> Json {
    json!({"summary": {}, "scenarios": scenarios})
}

fn run(base: &Json, head: &Json, tol: &Tolerances, known: &[KnownFailure]) -> Diff {
    compare(
        Side {
            file: "base.json",
            report: base,
        },
        Side {
            file: "head.json",
            report: head,
        },
        tol,
        known,
    )
    .expect("comparable")
}

fn statuses(diff: &Diff) -> Vec<(&str, Status)> {
    diff.items
        .iter()
        .map(|i| (i.id.as_str(), i.status))
        .collect()
}

#[test]
fn a_report_against_itself_is_unchanged_and_passes_the_gate() {
    let report = suite(vec![
        scenario("a", "passed", &[0]),
        scenario("b", "failed", &[1]),
    ]);
    let diff = run(&report, &report, &Tolerances::default(), &[]);
    assert_eq!(
        statuses(&diff),
        [("a", Status::Unchanged), ("b", Status::Unchanged)]
    );
    assert!(!diff.gate.failed);
    assert!(human(&diff).starts_with("no change: 2 scenarios compared"));
}

#[test]
fn verdicts_new_and_removed_items_and_the_gate() {
    let base = suite(vec![
        scenario("a", "passed", &[0]),
        scenario("b", "failed", &[1]),
        scenario("gone", "passed", &[0]),
    ]);
    let head = suite(vec![
        scenario("a", "failed", &[1]),
        scenario("b", "passed", &[0]),
        scenario("extra", "failed", &[1]),
    ]);
    let diff = run(&base, &head, &Tolerances::default(), &[]);
    assert_eq!(
        statuses(&diff),
        [
            ("a", Status::Regressed),
            ("b", Status::Fixed),
            ("gone", Status::Removed),
            ("extra", Status::New)
        ]
    );
    assert_eq!(
        diff.gate.reasons,
        [
            "`a` regressed: passed → failed",
            "`extra` is new and failed"
        ]
    );
    let known = [
        KnownFailure {
            id: "a".into(),
            reason: Some("upstream".into()),
        },
        KnownFailure {
            id: "b".into(),
            reason: None,
        },
        KnownFailure {
            id: "nowhere".into(),
            reason: None,
        },
    ];
    let diff = run(&base, &head, &Tolerances::default(), &known);
    assert_eq!(
        diff.gate.reasons,
        [
            "known failure `b` passes now: take it out of the known failures",
            "`extra` is new and failed"
        ]
    );
    assert_eq!(diff.summary.known_failures, 1);
    assert_eq!(
        diff.notes,
        ["known failure `nowhere` names no item of either report"]
    );
}

#[test]
fn disagreeing_trials_are_judged_by_the_exact_test() {
    let base = suite(vec![
        scenario("steady", "passed", &[0; 6]),
        scenario("wobbly", "passed", &[0, 0, 0, 0, 0, 0]),
    ]);
    let head = suite(vec![
        scenario("steady", "failed", &[1; 6]),
        scenario("wobbly", "failed", &[0, 1, 0, 0, 1, 0]),
    ]);
    let diff = run(&base, &head, &Tolerances::default(), &[]);
    // All six failing is a regression by verdict; two of six failing is within
    // chance (exact McNemar, p = 0.5).
    assert_eq!(
        statuses(&diff),
        [("steady", Status::Regressed), ("wobbly", Status::Flaky)]
    );
    let wobbly = &diff.items[1];
    let tested = wobbly.test.expect("tested");
    assert!((tested.p_value - 0.5).abs() < 1e-12);
    assert_eq!(
        wobbly.changes[1].text,
        "trials passed: 6/6 → 4/6 (exact McNemar test, p = 0.500)"
    );
    assert_eq!(diff.gate.reasons.len(), 1, "{:?}", diff.gate.reasons);

    let mut ten_fail = vec![1; 10];
    ten_fail[0] = 0;
    let base = suite(vec![scenario("many", "passed", &[0; 10])]);
    let head = suite(vec![scenario("many", "failed", &ten_fail)]);
    let diff = run(&base, &head, &Tolerances::default(), &[]);
    assert_eq!(statuses(&diff), [("many", Status::Regressed)]);
    assert!(diff.items[0].test.expect("tested").p_value < 0.05);
}

#[test]
fn differing_fingerprints_make_items_unverifiable_and_say_which_part() {
    let mut base = suite(vec![scenario("a", "passed", &[0])]);
    let mut head = suite(vec![scenario("a", "failed", &[1])]);
    base["fingerprint"] = json!({"extensions": "1", "prompts": "p"});
    head["fingerprint"] = json!({"extensions": "2", "prompts": "p"});
    let diff = run(&base, &head, &Tolerances::default(), &[]);
    assert_eq!(statuses(&diff), [("a", Status::Unverifiable)]);
    assert_eq!(diff.unverifiable_parts, ["extensions"]);
    assert!(!diff.gate.failed, "what cannot be compared does not gate");
    assert!(human(&diff).contains("the fingerprints differ in extensions;"));
}

#[test]
fn metrics_gate_only_when_their_tolerance_is_given() {
    let slow = |ms: u64| {
        let mut s = scenario("a", "passed", &[0]);
        s["trials"][0]["totals"]["duration_ms"] = json!(ms);
        suite(vec![s])
    };
    let diff = run(&slow(100), &slow(1000), &Tolerances::default(), &[]);
    assert_eq!(statuses(&diff), [("a", Status::Changed)]);
    assert_eq!(diff.items[0].changes[0].kind, "latency");
    assert!(!diff.gate.failed);
    let strict = Tolerances {
        latency: Some(0.5),
        ..Tolerances::default()
    };
    let diff = run(&slow(100), &slow(1000), &strict, &[]);
    assert_eq!(
        diff.gate.reasons,
        ["`a`: took 1000 ms, was 100 ms (+900%) (beyond the latency tolerance)"]
    );
}

#[test]
fn reports_of_other_kinds_are_refused() {
    let a = suite(vec![]);
    let b = json!({"summary": {}, "files": []});
    let err = compare(
        Side {
            file: "a.json",
            report: &a,
        },
        Side {
            file: "b.json",
            report: &b,
        },
        &Tolerances::default(),
        &[],
    )
    .expect_err("refused");
    assert_eq!(
        err.to_string(),
        "a.json is a suite report and b.json a test report; compare two reports of one kind"
    );
}

#[test]
fn markdown_lists_what_changed_in_a_table() {
    let base = suite(vec![scenario("a|b", "passed", &[0])]);
    let head = suite(vec![scenario("a|b", "failed", &[1])]);
    let text = markdown(&run(&base, &head, &Tolerances::default(), &[]));
    assert!(
        text.contains("| regressed | `a\\|b` | passed | failed |  |\n"),
        "{text}"
    );
    assert!(
        text.contains("**The gate fails** (with `--fail-on-regression`):"),
        "{text}"
    );
}

#[test]
fn markdown_lists_at_most_a_hundred_items() {
    let ids: Vec<String> = (0..101).map(|n| format!("s{n:03}")).collect();
    let base = suite(ids.iter().map(|id| scenario(id, "passed", &[0])).collect());
    let head = suite(ids.iter().map(|id| scenario(id, "failed", &[1])).collect());
    let text = markdown(&run(&base, &head, &Tolerances::default(), &[]));
    assert!(text.contains("| regressed | `s099` |"), "{text}");
    assert!(!text.contains("| regressed | `s100` |"), "{text}");
    assert!(text.contains("…and 1 more; the JSON report (`--format json`) has them all."));
    assert!(
        text.ends_with("- `s099` regressed: passed → failed\n- …and 1 more\n"),
        "{text}"
    );
}
