//! `test`: extension test cases, run against the fixture tools and hooks of
//! `tests/fixtures/cases` (a one-shot tool, a server tool, an exec filter hook and a
//! JSON-RPC hook, each noting its pid in `$PIDDIR/pids`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value as Json;

use crate::util::{Invocation, Outcome, fixtures, gone, promptexec};

fn cases_dir() -> PathBuf {
    fixtures().join("cases")
}

/// `promptexec -c cases.yaml test ARGS...` in the fixtures' directory.
fn test_cases(args: &[&str]) -> Invocation {
    promptexec()
        .in_dir(cases_dir())
        .args(["-c", "cases.yaml", "test"])
        .args(args)
}

/// `test` of case files outside the fixtures' directory, with the fixtures' config.
fn test_cases_in(dir: &Path, args: &[&str]) -> Invocation {
    let config = cases_dir().join("cases.yaml");
    promptexec()
        .in_dir(dir)
        .arg("-c")
        .arg(config)
        .arg("test")
        .args(args)
}

/// The pids the fixtures noted in `dir`.
fn noted_pids(dir: &Path) -> Vec<i32> {
    std::fs::read_to_string(dir.join("pids"))
        .unwrap_or_default()
        .lines()
        .map(|line| line.trim().parse().expect("a pid"))
        .collect()
}

/// The case named `name` in a JSON report.
#[track_caller]
fn case<'r>(report: &'r Json, name: &str) -> &'r Json {
    report["files"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|file| file["cases"].as_array().into_iter().flatten())
        .find(|case| case["name"] == name)
        .unwrap_or_else(|| panic!("no case `{name}` in {report:#}"))
}

/// The names of every case of file `index` in a JSON report, and of those not run.
fn names(report: &Json, index: usize) -> (Vec<String>, Vec<String>) {
    let file = &report["files"][index];
    let list = |key: &str| -> Vec<String> {
        let values = file[key].as_array().cloned().unwrap_or_default();
        values
            .iter()
            .map(|v| {
                v.get("name")
                    .unwrap_or(v)
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect()
    };
    (list("cases"), list("not_run"))
}

/// Settings that hide what differs between runs: durations, times and pids.
fn filtered() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    for (pattern, replacement) in [
        (r#""duration_ms": \d+"#, r#""duration_ms": [ms]"#),
        (r#""pid": \d+"#, r#""pid": [pid]"#),
        (
            r"&quot;duration_ms&quot;: \d+",
            "&quot;duration_ms&quot;: [ms]",
        ),
        (r#"time="[\d.]+""#, r#"time="[s]""#),
        (r"\(\d+ ms\)", "([ms])"),
        (r"after \d+ ms", "after [ms]"),
    ] {
        settings.add_filter(pattern, replacement);
    }
    settings
}

#[test]
fn every_tool_matcher_passes_for_a_one_shot_and_a_server_tool() {
    let out = test_cases(&["good/tools.cases.yaml", "--format", "json"]).run();
    out.expect_code(0);
    let report = out.json_report();
    assert_eq!(report["summary"]["passed"], 9, "{report:#}");
    assert_eq!(report["summary"]["failed"], 0);
    // One server process answers every case of the file, in file order.
    let first = &case(&report, "the server counts its first call")["actual"];
    let second = &case(&report, "the same server counts its second call")["actual"];
    assert_eq!(
        (&first["result"]["served"], &second["result"]["served"]),
        (&Json::from(1), &Json::from(2))
    );
    assert_eq!(first["result"]["pid"], second["result"]["pid"]);
    assert_eq!(first["mode"], "server");
    // Arguments that break the schema start no process.
    let invalid = case(&report, "arguments that break the schema are expected");
    assert_eq!(invalid["actual"]["status"], "invalid_args");
    assert_eq!(invalid["kind"], "tool");
    assert_eq!(invalid["target"], "echo");
}

#[test]
fn hook_cases_expect_the_words_hook_test_prints() {
    let out = test_cases(&["good/hooks.cases.json", "--format", "json"]).run();
    out.expect_code(0);
    let report = out.json_report();
    assert_eq!(report["summary"]["passed"], 6, "{report:#}");
    let refused = case(&report, "the gate refuses rm");
    assert_eq!(refused["kind"], "hook");
    assert_eq!(refused["actual"]["action"], "deny_tool");
    assert_eq!(refused["actual"]["decision"], "deny");
    let guard = case(&report, "the guard allows a plain question");
    // Without an event, the hook gets the sample `hook test` sends.
    assert_eq!(guard["actual"]["phase"], "before_call");
    assert_eq!(guard["actual"]["decision"], "allow");
}

#[test]
fn each_failing_expectation_says_what_differed() {
    let out = test_cases(&["failing.cases.yaml", "-j", "1"]).run();
    out.expect_code(1);
    assert!(
        out.stdout.is_empty(),
        "human output is on stderr: {}",
        out.stdout
    );
    filtered().bind(|| insta::assert_snapshot!(out.report()));
}

#[test]
fn a_crash_the_case_did_not_expect_is_an_error_with_exit_3() {
    let out = test_cases(&["crash.cases.yaml", "-j", "1"]).run();
    out.expect_code(3)
        .stderr_has("ERROR crash.cases.yaml: an unexpected crash")
        .stderr_has(r#"status: expected ok, got failed: "exited with status 3""#)
        .stderr_has("tool.py: crashed on purpose")
        .stderr_has("PASS  crash.cases.yaml: a crash is expected")
        .stderr_has("PASS  crash.cases.yaml: a timeout is expected");
    // Failures and timeouts the cases expect pass.
    test_cases(&["crash.cases.yaml", "--filter", "is expected"])
        .run()
        .expect_code(0)
        .stderr_has("summary: 2 passed, 0 failed, 0 error(s) in 1 file(s)");
}

#[test]
fn a_bad_case_file_is_exit_2_with_every_problem_at_its_place_and_nothing_started() {
    let piddir = tempfile::tempdir().expect("temp dir");
    let out = test_cases(&["bad.cases.yaml", "names.cases.yaml"])
        .env("PIDDIR", piddir.path())
        .run();
    out.expect_code(2);
    assert!(noted_pids(piddir.path()).is_empty(), "no extension started");
    insta::assert_snapshot!(out.report());
}

#[test]
fn snapshots_are_written_on_request_then_hold_the_result() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("value.cases.yaml"),
        "cases:
  - name: The value, stored
    tool: echo
    args: {value: true}
    expect: {snapshot: true}
  - name: an error is never stored
    tool: echo
    args: {error: nope}
    expect: {snapshot: true}
",
    )
    .expect("write the case file");
    let stored = dir
        .path()
        .join("__snapshots__/value.cases/the-value-stored.json");
    let never = dir
        .path()
        .join("__snapshots__/value.cases/an-error-is-never-stored.json");
    let run = |value: &str, flags: &[&str]| {
        let mut args = vec!["value.cases.yaml", "-j", "1"];
        args.extend(flags);
        test_cases_in(dir.path(), &args).env("VALUE", value).run()
    };

    let missing = run("one", &["--filter", "The value"]);
    missing.expect_code(1).stderr_has(
        "snapshot: none stored at __snapshots__/value.cases/the-value-stored.json; run with --update-snapshots to create it",
    );
    assert!(!stored.exists());

    let created = run("one", &["--update-snapshots"]);
    // The status is still checked: the error case fails and stores nothing.
    created
        .expect_code(1)
        .stderr_has("snapshot written to __snapshots__/value.cases/the-value-stored.json")
        .stderr_has(r#"FAIL  value.cases.yaml: an error is never stored"#)
        .stderr_has(r#"status: expected ok, got error: "nope""#);
    assert_eq!(
        std::fs::read_to_string(&stored).expect("the snapshot"),
        "{\n  \"value\": \"one\"\n}\n"
    );
    assert!(!never.exists(), "a status mismatch is never stored");

    run("one", &["--filter", "The value"]).expect_code(0);
    run("two", &["--filter", "The value"]).expect_code(1).stderr_has(
        r#"snapshot __snapshots__/value.cases/the-value-stored.json at /value: expected "one", got "two""#,
    );
    run("two", &["--filter", "The value", "--update-snapshots"]).expect_code(0);
    run("two", &["--filter", "The value"]).expect_code(0);
    assert!(
        std::fs::read_to_string(&stored)
            .expect("the snapshot")
            .contains(r#""two""#)
    );
}

#[test]
fn filter_selects_cases_by_name_and_a_filter_that_selects_none_is_bad_input() {
    let out = test_cases(&["good", "--filter", "gate", "--format", "json"]).run();
    out.expect_code(0);
    let report = out.json_report();
    assert_eq!(
        report["files"].as_array().map(Vec::len),
        Some(1),
        "{report:#}"
    );
    assert_eq!(report["files"][0]["file"], "good/hooks.cases.json");
    let (ran, _) = names(&report, 0);
    assert_eq!(
        ran,
        [
            "the gate refuses rm",
            "the gate lets ls through",
            "the gate holds a refund"
        ]
    );
    test_cases(&["good", "--filter", "no such case"])
        .run()
        .expect_code(2)
        .stderr_has("error: no case name contains `no such case`");
}

#[test]
fn fail_fast_starts_no_case_after_the_first_failure() {
    let out = test_cases(&["failfast", "--fail-fast", "-j", "1", "--format", "json"]).run();
    out.expect_code(1);
    let report = out.json_report();
    assert_eq!(
        names(&report, 0),
        (
            vec!["a passes".to_string(), "a fails".to_string()],
            vec!["a is not run".to_string()]
        )
    );
    assert_eq!(
        names(&report, 1),
        (vec![], vec!["b is not run".to_string()])
    );
    assert_eq!(report["summary"]["not_run"], 2);
    // Without the flag every case runs.
    let all = test_cases(&["failfast", "-j", "1", "--format", "json"]).run();
    all.expect_code(1);
    let report = all.json_report();
    assert_eq!(
        (
            &report["summary"]["passed"],
            &report["summary"]["failed"],
            &report["summary"]["not_run"]
        ),
        (&Json::from(3), &Json::from(1), &Json::from(0))
    );
}

#[test]
fn the_json_report_has_a_summary_and_every_case_of_every_file() {
    let out = test_cases(&[
        "failfast/a.cases.yaml",
        "crash.cases.yaml",
        "--format",
        "json",
    ])
    .run();
    out.expect_code(3);
    filtered().bind(|| insta::assert_snapshot!(out.stdout));
}

#[test]
fn junit_has_a_testsuite_per_case_file_written_to_the_output_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = dir.path().join("cases.xml");
    let out = test_cases(&[
        "failfast/a.cases.yaml",
        "crash.cases.yaml",
        "--format",
        "junit",
    ])
    .arg("--output")
    .arg(&output)
    .run();
    out.expect_code(3);
    assert!(
        out.stdout.is_empty(),
        "the report went to the file: {}",
        out.stdout
    );
    let xml = std::fs::read_to_string(&output).expect("the report");
    roxmltree::Document::parse(&xml)
        .unwrap_or_else(|err| panic!("well-formed XML ({err}):\n{xml}"));
    filtered().bind(|| insta::assert_snapshot!(xml));
    // A case --fail-fast left out is skipped.
    let skipped = test_cases(&["failfast", "--fail-fast", "-j", "1", "--format", "junit"]).run();
    skipped.expect_code(1);
    assert!(
        skipped.stdout.contains(
            r#"<testcase name="b is not run">
            <skipped message="not run: --fail-fast stopped after a failure"/>"#
        ),
        "{}",
        skipped.stdout
    );
}

#[test]
fn each_case_file_gets_its_own_server_and_no_process_outlives_the_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let counting = "cases:
  - {name: first call, tool: counter, expect: {pointer: {/served: 1}}}
  - {name: second call, tool: counter, expect: {pointer: {/served: 2}}}
  - {name: the gate, hook: gate, phase: before_tool}
  - {name: the guard, hook: card_guard}
  - {name: a one-shot call, tool: echo}
";
    for name in ["one.cases.yaml", "two.cases.yaml"] {
        std::fs::write(dir.path().join(name), counting).expect("write a case file");
    }
    let out = test_cases_in(dir.path(), &[".", "-j", "2", "--format", "json"])
        .env("PIDDIR", dir.path())
        .run();
    out.expect_code(0);
    let report = out.json_report();
    let server_pid =
        |file: usize| report["files"][file]["cases"][0]["actual"]["result"]["pid"].clone();
    assert_ne!(
        server_pid(0),
        server_pid(1),
        "a server per file: {report:#}"
    );
    let pids = noted_pids(dir.path());
    // Per file: the server, the JSON-RPC hook, the exec hook and the one-shot tool.
    assert_eq!(pids.len(), 8, "{pids:?}");
    let survivors: Vec<i32> = pids.into_iter().filter(|pid| !gone(*pid)).collect();
    assert!(survivors.is_empty(), "still running: {survivors:?}");
}

#[test]
fn ctrl_c_stops_every_extension_and_exits_130() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("slow.cases.yaml"),
        "cases:
  - {name: start the server, tool: counter}
  - {name: start the hook, hook: gate, phase: before_tool}
  - {name: wait, tool: echo, args: {sleep: 60}}
",
    )
    .expect("write the case file");
    let mut child = test_cases_in(dir.path(), &["slow.cases.yaml"])
        .env("PIDDIR", dir.path())
        .discard_output()
        .spawn();
    let started = Instant::now();
    while noted_pids(dir.path()).len() < 3 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the three extensions never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).expect("send SIGINT");
    let status = child.wait().expect("promptexec exits");
    assert_eq!(status.code(), Some(130));
    let survivors: Vec<i32> = noted_pids(dir.path())
        .into_iter()
        .filter(|pid| !gone(*pid))
        .collect();
    assert!(survivors.is_empty(), "still running: {survivors:?}");
}

#[test]
fn a_directory_without_case_files_and_a_missing_file_are_bad_input() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out: Outcome = test_cases_in(dir.path(), &[".", "missing.cases.yaml"]).run();
    out.expect_code(2)
        .stderr_has(".: the directory holds no case file (*.cases.yaml, *.cases.yml, *.cases.json)")
        .stderr_has("missing.cases.yaml: no such file or directory");
}

#[test]
fn with_no_path_the_case_files_under_the_current_folder_run() {
    let config = cases_dir().join("cases.yaml");
    let here = promptexec()
        .in_dir(cases_dir().join("good"))
        .arg("-c")
        .arg(&config)
        .args(["test", "--format", "json"])
        .run();
    here.expect_code(0);
    let report: Json = serde_json::from_str(&here.stdout).expect("a JSON report");
    let files: Vec<&str> = report["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|file| file["file"].as_str().expect("a file name"))
        .collect();
    assert_eq!(files, ["hooks.cases.json", "tools.cases.yaml"]);
    // The same cases as naming the folder from above.
    let named = test_cases(&["good", "--format", "json"]).run();
    named.expect_code(0);
    let named: Json = serde_json::from_str(&named.stdout).expect("a JSON report");
    for index in 0..2 {
        assert_eq!(names(&report, index), names(&named, index));
    }
    // A folder without case files says so, as naming it would.
    let empty = tempfile::tempdir().expect("temp dir");
    test_cases_in(empty.path(), &[])
        .run()
        .expect_code(2)
        .stderr_has("the directory holds no case file");
}

#[test]
fn a_failed_pattern_shows_the_result_it_searched_as_compact_json() {
    test_cases(&["failing.cases.yaml", "--filter", "pattern not found"])
        .run()
        .expect_code(1)
        .stderr_has(r#"matches: /^delayed$/ not found in the result as compact JSON: "shipped""#);
}
