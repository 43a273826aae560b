//! `diff`: real runs of the small suite in tests/fixtures/diff, differing by one thing
//! at a time (the mock's tool argument and answer, a hook that now denies, a tool
//! that is slow, a lookup that fails more often), compared.

use std::path::Path;

use serde_json::Value as Json;

use crate::util::{Outcome, copy_dir, fixtures, promptexec};

/// A copy of the fixture project, where runs may write and files may change.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    copy_dir(&fixtures().join("diff"), dir.path());
    dir
}

/// `run` of the project's suite in `dir`, its JSON report written to `report`.
fn run_suite(dir: &Path, report: &str, extra: &[&str], env: &[(&str, &str)]) {
    let out = promptexec()
        .in_dir(dir)
        .args(["-c", "runtimeconfig.yaml", "run", "diff.pack.json"])
        .args(extra)
        .args(["--json", report])
        .envs(env)
        .run();
    out.expect_code_not(2);
    assert!(dir.join(report).is_file(), "{}", out.report());
}

/// The base run, and the head run with the head mock (another tool argument, a
/// less courteous answer), the guard denying B-7, and the lookup of S-1 slow.
fn base_and_head() -> tempfile::TempDir {
    let dir = project();
    run_suite(dir.path(), "base.json", &["scenarios"], &[]);
    run_suite(
        dir.path(),
        "head.json",
        &["scenarios", "--mock", "head.mock.yaml"],
        &[("DIFF_DENY", "1"), ("DIFF_SLOW", "1")],
    );
    dir
}

fn diff(dir: &Path, args: &[&str]) -> Outcome {
    promptexec().in_dir(dir).arg("diff").args(args).run()
}

fn item<'a>(report: &'a Json, id: &str) -> &'a Json {
    report["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|i| i["id"] == id)
        .unwrap_or_else(|| panic!("no item {id} in {report:#}"))
}

/// The texts of an item's changes of `kind`.
fn changes(item: &Json, kind: &str) -> Vec<String> {
    item["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .filter(|c| c["kind"] == kind)
        .map(|c| c["text"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn a_report_compared_with_itself_has_no_change() {
    let dir = project();
    run_suite(dir.path(), "base.json", &["scenarios"], &[]);
    diff(
        dir.path(),
        &["base.json", "base.json", "--fail-on-regression"],
    )
    .expect_code(0)
    .stdout_is("no change: 4 scenarios compared (base.json → base.json)\n");
    let out = diff(dir.path(), &["base.json", "base.json", "--format", "json"]);
    out.expect_code(0);
    let report = out.json();
    assert_eq!(report["kind"], "diff");
    assert_eq!(report["base"]["file"], "base.json");
    assert_eq!(
        report["summary"],
        serde_json::json!({"regressed": 0, "fixed": 0, "new": 0, "removed": 0, "flaky": 0,
            "unverifiable": 0, "changed": 0, "unchanged": 4, "known_failures": 0})
    );
    assert_eq!(
        report["gate"],
        serde_json::json!({"failed": false, "reasons": [], "enforced": false})
    );
    diff(
        dir.path(),
        &["base.json", "base.json", "--format", "markdown"],
    )
    .expect_code(0)
    .stdout_has("no change (4 unchanged)");
}

#[test]
fn each_change_between_two_runs_is_reported() {
    let dir = base_and_head();
    let out = diff(dir.path(), &["base.json", "head.json", "--format", "json"]);
    out.expect_code(0);
    let report = out.json();
    let status = |id: &str| {
        item(&report, id)["status"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };

    // A tool argument the model now gives differently, by its JSON Pointer.
    assert_eq!(status("lookup-order"), "changed");
    let args = &item(&report, "lookup-order")["changes"][0];
    assert_eq!(args["kind"], "tool-args");
    assert_eq!(args["pointer"], "/order_id");
    assert_eq!(
        args["text"],
        "`lookup` argument /order_id: \"A-1\" → \"A-2\""
    );

    // A new hook denial, which fails the scenario that expected the call through.
    let guarded = item(&report, "guarded");
    assert_eq!(guarded["status"], "regressed");
    assert_eq!(
        (&guarded["base"], &guarded["head"]),
        (&"passed".into(), &"failed".into())
    );
    assert_eq!(
        changes(guarded, "hook-decision"),
        ["hook `guard` at before_execution decides deny_tool now: order B-7 is on hold"]
    );
    assert_eq!(
        changes(guarded, "tool-status"),
        ["`lookup` answered blocked, was ok"]
    );

    // An eval whose score dropped.
    assert_eq!(status("polite"), "changed");
    let score = &item(&report, "polite")["changes"][0];
    assert_eq!(score["text"], "eval `courtesy` (turn 1): score 1 → 0 (−1)");
    assert_eq!(score["worse"], "score");

    // A tool that became slow: the call and the trial.
    assert_eq!(status("slow-lookup"), "changed");
    let slow = item(&report, "slow-lookup");
    let tool = changes(slow, "tool-latency");
    assert_eq!(tool.len(), 1, "{slow:#}");
    assert!(tool[0].starts_with("`lookup` took "), "{tool:?}");
    assert_eq!(changes(slow, "latency").len(), 1, "{slow:#}");

    assert_eq!(report["summary"]["regressed"], 1);
    assert_eq!(report["summary"]["changed"], 3);
    assert_eq!(
        report["gate"]["reasons"],
        serde_json::json!(["`guarded` regressed: passed → failed"])
    );

    // The same for people, and as Markdown in a file.
    diff(dir.path(), &["base.json", "head.json"])
        .expect_code(0)
        .stdout_has("regressed  guarded  passed → failed\n")
        .stdout_has("    hook `guard` at before_execution decides deny_tool now")
        .stdout_has("changed    lookup-order\n    `lookup` argument /order_id: \"A-1\" → \"A-2\"\n")
        .stdout_has("4 scenarios compared (base.json → head.json): 1 regressed, 3 changed\n")
        .stdout_has(
            "the gate fails (--fail-on-regression):\n  `guarded` regressed: passed → failed\n",
        );
    diff(
        dir.path(),
        &[
            "base.json",
            "head.json",
            "--format",
            "markdown",
            "-o",
            "diff.md",
        ],
    )
    .expect_code(0)
    .stdout_empty();
    let markdown = std::fs::read_to_string(dir.path().join("diff.md")).expect("written");
    // One self-contained page with the JSON document in it.
    let out = diff(dir.path(), &["base.json", "head.json", "--format", "html"]);
    out.expect_code(0)
        .stdout_has("<body data-kind=\"diff\">")
        .stdout_has("Content-Security-Policy")
        .stdout_has("\"status\":\"regressed\"");
    assert!(
        markdown.contains("| regressed | `guarded` | passed | failed |"),
        "{markdown}"
    );
}

#[test]
fn the_gate_fails_on_a_regression_a_stale_known_failure_and_a_given_tolerance() {
    let dir = base_and_head();
    let gate = |extra: &[&str]| {
        let mut args = vec!["base.json", "head.json", "--fail-on-regression"];
        args.extend(extra);
        diff(dir.path(), &args)
    };
    gate(&[])
        .expect_code(1)
        .stdout_has("gate failed:\n  `guarded` regressed: passed → failed\n");

    // Listed as a known failure, the regression is tolerated.
    std::fs::write(
        dir.path().join("known.yaml"),
        "- id: guarded\n  reason: B-7 is on hold this week\n",
    )
    .expect("written");
    gate(&["--known-failures", "known.yaml"])
        .expect_code(0)
        .stdout_has("    a known failure: B-7 is on hold this week\n")
        .stdout_lacks("gate failed");
    // A time tolerance given gates too: the slow lookup fails it.
    gate(&[
        "--known-failures",
        "known.yaml",
        "--latency-tolerance",
        "0.5",
    ])
    .expect_code(1)
    .stdout_has("  `slow-lookup`: `lookup` took ")
    .stdout_has("(beyond the latency tolerance)");

    // A known failure that passes now is stale, and named.
    std::fs::write(dir.path().join("known.yaml"), "- guarded\n- lookup-order\n").expect("written");
    gate(&["--known-failures", "known.yaml"])
        .expect_code(1)
        .stdout_has(
            "  known failure `lookup-order` passes now: take it out of the known failures\n",
        );

    // A known-failures file that is not a list is bad input, placed.
    std::fs::write(dir.path().join("known.yaml"), "guarded: yes\n").expect("written");
    gate(&["--known-failures", "known.yaml"])
        .expect_code(2)
        .stderr_has("known.yaml:1:1: a known-failures file is a list of ids");
}

#[test]
fn trials_that_disagree_are_flaky_unless_the_exact_test_says_regressed() {
    let dir = project();
    run_suite(dir.path(), "base.json", &["flaky"], &[]);
    run_suite(dir.path(), "again.json", &["flaky"], &[]);
    // The same seeded failures both times: flaky, and nothing regressed.
    let out = diff(
        dir.path(),
        &[
            "base.json",
            "again.json",
            "--format",
            "json",
            "--fail-on-regression",
        ],
    );
    out.expect_code(0);
    let report = out.json();
    let flaky = item(&report, "flaky");
    assert_eq!(flaky["status"], "flaky");
    assert_eq!(flaky["test"]["test"], "mcnemar");
    assert_eq!(flaky["test"]["p_value"], 1.0);
    let passed = flaky["trials"]["base"].as_str().expect("counts");
    assert!(
        passed.ends_with("/12") && passed != "12/12" && passed != "0/12",
        "{passed}"
    );

    // Every lookup failing: significantly worse than the base, a regression.
    let scenario = std::fs::read_to_string(dir.path().join("flaky/flaky.scenario.yaml"))
        .expect("the scenario");
    let worse = scenario.replace("probability: 0.3", "probability: 1.0");
    assert_ne!(worse, scenario);
    std::fs::create_dir(dir.path().join("worse")).expect("folder");
    std::fs::write(dir.path().join("worse/flaky.scenario.yaml"), worse).expect("written");
    run_suite(dir.path(), "head.json", &["worse"], &[]);
    let out = diff(
        dir.path(),
        &[
            "base.json",
            "head.json",
            "--format",
            "json",
            "--fail-on-regression",
        ],
    );
    out.expect_code(1);
    let report = out.json();
    let flaky = item(&report, "flaky");
    assert_eq!(flaky["status"], "regressed");
    assert_eq!(flaky["trials"]["head"], "0/12");
    let p = flaky["test"]["p_value"].as_f64().expect("a p-value");
    assert!(p < 0.05, "{p}");
    diff(dir.path(), &["base.json", "head.json"])
        .expect_code(0)
        .stdout_has(&format!(
            "regressed  flaky  passed → failed  trials passed {passed} → 0/12 (exact McNemar test, p = "
        ));
}

#[test]
fn test_reports_are_compared_case_by_case() {
    let dir = project();
    let test = |report: &str, env: &[(&str, &str)]| {
        let out = promptexec()
            .in_dir(dir.path())
            .args(["-c", "runtimeconfig.yaml", "test", "diff.cases.yaml"])
            .args(["--format", "json", "-o", report])
            .envs(env)
            .run();
        out.expect_code_not(2);
    };
    test("base.json", &[]);
    test("head.json", &[("DIFF_DENY", "1")]);
    diff(
        dir.path(),
        &["base.json", "head.json", "--fail-on-regression"],
    )
    .expect_code(1)
    .stdout_has(
        "regressed  diff.cases.yaml#the guard lets a lookup of B-7 through  passed → failed\n",
    )
    .stdout_has("    the answer /decision: \"allow\" → \"deny\"\n")
    .stdout_has("2 cases compared (base.json → head.json): 1 regressed, 1 unchanged\n");
}

#[test]
fn conversations_and_check_reports_are_compared_too() {
    let dir = project();
    let conversation = |report: &str, env: &[(&str, &str)]| {
        promptexec()
            .in_dir(dir.path())
            .args(["-c", "runtimeconfig.yaml", "run", "diff.pack.json"])
            .args(["--message", "Where is order B-7?", "--scenario", "guarded"])
            .args(["--format", "json", "-o", report])
            .envs(env)
            .run()
            .expect_code(0);
    };
    conversation("base.json", &[]);
    conversation("head.json", &[("DIFF_DENY", "1")]);
    diff(dir.path(), &["base.json", "head.json"])
        .expect_code(0)
        .stdout_is(
            "changed  guarded\n    `lookup` answered blocked, was ok\n    \
             hook `guard` at before_execution decides deny_tool now: order B-7 is on hold\n\
             1 conversation compared (base.json → head.json): 1 changed\n",
        );

    let check = |report: &str, env: &[(&str, &str)]| {
        promptexec()
            .in_dir(dir.path())
            .args([
                "-c",
                "runtimeconfig.yaml",
                "check",
                "lookup",
                "diff.pack.json",
            ])
            .args([
                "--cases", "3", "--seed", "1", "--format", "json", "-o", report,
            ])
            .envs(env)
            .run()
            .expect_code_not(2);
    };
    check("check-base.json", &[]);
    check("check-head.json", &[("DIFF_BROKEN", "1")]);
    diff(
        dir.path(),
        &["check-base.json", "check-head.json", "--fail-on-regression"],
    )
    .expect_code(1)
    .stdout_has("regressed  tool.lookup#one_json_answer  passed → failed\n")
    .stdout_has("  `tool.lookup#one_json_answer` regressed: passed → failed\n");
}

#[test]
fn unreadable_or_mismatched_reports_are_bad_input() {
    let dir = project();
    run_suite(dir.path(), "base.json", &["scenarios"], &[]);
    std::fs::write(
        dir.path().join("cut.json"),
        "{\"scenarios\": [\n  {\"id\": }\n",
    )
    .expect("written");
    diff(dir.path(), &["base.json", "cut.json"])
        .expect_code(2)
        .stderr_has("cut.json:2:10: not valid JSON: expected value");
    std::fs::write(dir.path().join("lock.json"), "{\"version\": 1}").expect("written");
    diff(dir.path(), &["lock.json", "base.json"])
        .expect_code(2)
        .stderr_has("lock.json is not a promptexec report");
    std::fs::write(
        dir.path().join("test.json"),
        "{\"summary\": {}, \"files\": []}",
    )
    .expect("written");
    diff(dir.path(), &["base.json", "test.json"])
        .expect_code(2)
        .stderr_has(
            "base.json is a suite report and test.json a test report; compare two reports of one kind",
        );
    diff(dir.path(), &["base.json", "missing.json"])
        .expect_code(2)
        .stderr_has("missing.json");
}
