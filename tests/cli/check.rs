//! `check`: the bundled extensions pass every probe; a fixture per probe that breaks
//! exactly that probe fails it, alone, with exit 1; the fuzzer finds a planted bug
//! and prints a command that shows it again.

use serde_json::Value as Json;

use crate::util::{Invocation, Outcome, example_config, fixtures, promptexec};

/// `check` on one fixture config of `tests/fixtures/check/`, as JSON.
fn check_fixture(config: &str, extra: &[&str]) -> Outcome {
    checking(config, extra).run()
}

/// `promptexec -c CONFIG check --pack pack.json --format json EXTRA...` in the
/// check fixtures, not yet run.
fn checking(config: &str, extra: &[&str]) -> Invocation {
    promptexec()
        .in_dir(fixtures().join("check"))
        .args([
            "-c",
            config,
            "check",
            "--pack",
            "pack.json",
            "--format",
            "json",
        ])
        .args(extra)
}

/// Every (extension, probe) that failed.
fn failures(report: &Json) -> Vec<(String, String, String)> {
    report["extensions"]
        .as_array()
        .expect("extensions")
        .iter()
        .flat_map(|e| {
            e["probes"]
                .as_array()
                .expect("probes")
                .iter()
                .filter(|p| p["passed"] == false)
                .map(move |p| {
                    (
                        e["name"].as_str().unwrap_or_default().to_string(),
                        p["probe"].as_str().unwrap_or_default().to_string(),
                        p["reason"].as_str().unwrap_or_default().to_string(),
                    )
                })
        })
        .collect()
}

fn probes_of<'a>(report: &'a Json, extension: &str) -> Vec<&'a str> {
    report["extensions"]
        .as_array()
        .expect("extensions")
        .iter()
        .find(|e| e["name"] == extension)
        .unwrap_or_else(|| panic!("no extension `{extension}` in {report}"))["probes"]
        .as_array()
        .expect("probes")
        .iter()
        .map(|p| p["probe"].as_str().unwrap_or_default())
        .collect()
}

#[test]
fn the_bundled_extensions_pass_every_probe() {
    let out = example_config()
        .args([
            "check",
            "--pack",
            "examples/assistant.pack.json",
            "--format",
            "json",
            "--seed",
            "7",
        ])
        .run();
    out.expect_code(0);
    let report = out.json();
    assert_eq!(failures(&report), Vec::<(String, String, String)>::new());
    assert_eq!(report["passed"], true);
    assert_eq!(report["seed"], 7);
    let kinds: Vec<&str> = report["extensions"]
        .as_array()
        .expect("extensions")
        .iter()
        .map(|e| e["kind"].as_str().unwrap_or_default())
        .collect();
    for kind in [
        "tool",
        "server_tool",
        "hook",
        "rpc_hook",
        "eval",
        "mcp_server",
    ] {
        assert!(kinds.contains(&kind), "a {kind} was checked: {kinds:?}");
    }
    let expected: [(&str, &[&str]); 6] = [
        (
            "lookup_order",
            &[
                "one_json_answer",
                "reads_whole_request",
                "closed_stdin",
                "ignores_unknown_fields",
                "within_deadline",
                "no_leftover_processes",
                "fuzz",
            ],
        ),
        (
            "db_query",
            &[
                "flushes_replies",
                "echoes_ids",
                "notifications",
                "exits_on_eof",
                "fuzz",
            ],
        ),
        ("review_gate", &["hello", "answers_each_phase"]),
        ("pii_guard", &["answers_each_phase"]),
        ("tone", &["score_in_range"]),
        (
            "store",
            &[
                "initialize",
                "tool_schemas",
                "calls_each_tool",
                "exits_on_eof",
                "fuzz",
            ],
        ),
    ];
    for (extension, probes) in expected {
        let had = probes_of(&report, extension);
        for probe in probes {
            assert!(had.contains(probe), "{extension} had {probe}: {had:?}");
        }
    }
}

/// Each hostile fixture breaks one probe: `check` fails that one and no other.
#[test]
fn a_fixture_that_breaks_one_probe_fails_that_probe_alone() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "non_flushing_server.yaml",
            "flushes_replies",
            "while stdin stayed open",
        ),
        (
            "two_documents.yaml",
            "one_json_answer",
            "more output after the JSON value",
        ),
        ("wrong_id_server.yaml", "echoes_ids", "the replies carried"),
        ("no_eof_server.yaml", "exits_on_eof", "after stdin closed"),
        ("grandchild.yaml", "no_leftover_processes", "sleep 300"),
        (
            "setsid_grandchild.yaml",
            "no_leftover_processes",
            "sleep 300",
        ),
        (
            "crash_on_phase_hook.yaml",
            "answers_each_phase",
            "after_call",
        ),
        ("eval_score_high.yaml", "score_in_range", "1.7"),
        (
            "mcp_bad_schema.yaml",
            "tool_schemas",
            "not valid JSON Schema",
        ),
        ("unicode_crash.yaml", "fuzz", "exited with status"),
    ];
    let outcomes = crate::util::run_all(
        cases
            .iter()
            .map(|(config, _, _)| checking(config, &["--seed", "3"]))
            .collect(),
    );
    for ((config, probe, says), out) in cases.iter().zip(&outcomes) {
        assert_eq!(out.code, 1, "{config}: exit 1\n{}", out.report());
        let failed = failures(&out.json());
        assert_eq!(
            failed
                .iter()
                .map(|(_, p, _)| p.as_str())
                .collect::<Vec<_>>(),
            vec![*probe],
            "{config}: only {probe} fails: {failed:#?}"
        );
        assert!(
            failed[0].2.contains(says),
            "{config}: the reason names what went wrong ({says}): {}",
            failed[0].2
        );
    }
}

#[test]
fn the_human_report_names_the_failing_probe_its_hint_and_exit_1() {
    let out = promptexec()
        .in_dir(fixtures().join("check"))
        .args(["-c", "eval_score_high.yaml", "check"])
        .run();
    out.expect_code(1);
    out.stdout_has("score_in_range")
        .stdout_has("1.7")
        .stdout_has("hint:")
        .stdout_has("failed");
}

#[test]
fn the_fuzzer_finds_a_planted_bug_shrinks_it_and_prints_a_command_that_reproduces_it() {
    for seed in ["1", "2", "3"] {
        let out = check_fixture("negative_optional.yaml", &["--seed", seed]);
        assert_eq!(out.code, 1, "seed {seed}\n{}", out.report());
        let report = out.json();
        let fuzz = report["extensions"][0]["probes"]
            .as_array()
            .expect("probes")
            .iter()
            .find(|p| p["probe"] == "fuzz")
            .expect("a fuzz verdict")
            .clone();
        assert_eq!(fuzz["passed"], false, "seed {seed}: {fuzz}");
        let command = fuzz["reproduce"].as_str().expect("a reproducing command");
        assert!(
            command.starts_with("promptexec invoke-tool -c "),
            "seed {seed}: {command}"
        );
        // Shrunk: the optional integer at -1 and nothing else to spare.
        assert!(command.contains(r#""count":-1"#), "seed {seed}: {command}");
        let binary = crate::util::binary();
        let bin_dir = binary.parent().expect("bin dir").to_path_buf();
        let again = std::process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(fixtures().join("check"))
            .env(
                "PATH",
                format!(
                    "{}:{}",
                    bin_dir.display(),
                    std::env::var("PATH").unwrap_or_default()
                ),
            )
            .output()
            .expect("sh runs");
        assert_eq!(
            again.status.code(),
            Some(3),
            "seed {seed}: the command crashes the tool again: {}",
            String::from_utf8_lossy(&again.stderr)
        );
        assert!(
            String::from_utf8_lossy(&again.stderr).contains("count"),
            "seed {seed}: {}",
            String::from_utf8_lossy(&again.stderr)
        );
    }
}

#[test]
fn one_probe_runs_alone_with_probe() {
    let out = check_fixture("wrong_id_server.yaml", &["--probe", "exits_on_eof"]);
    out.expect_code(0);
    let report = out.json();
    assert_eq!(probes_of(&report, "wrong_id_server"), vec!["exits_on_eof"]);
}

#[test]
fn junit_has_a_testsuite_per_extension_and_a_failure_for_the_broken_probe() {
    let out = promptexec()
        .in_dir(fixtures().join("check"))
        .args([
            "-c",
            "two_documents.yaml",
            "check",
            "--pack",
            "pack.json",
            "--format",
            "junit",
        ])
        .run();
    out.expect_code(1);
    out.stdout_has(r#"<testsuite name="two_documents""#)
        .stdout_has(r#"<testcase name="one_json_answer""#)
        .stdout_has("<failure");
}

#[test]
fn unknown_names_and_probes_are_usage_errors() {
    promptexec()
        .in_dir(fixtures().join("check"))
        .args(["-c", "good.yaml", "check", "nope"])
        .run()
        .expect_code(2)
        .stderr_has("the config binds no extension called `nope`");
    promptexec()
        .in_dir(fixtures().join("check"))
        .args(["-c", "good.yaml", "check", "--probe", "echo_ids"])
        .run()
        .expect_code(2)
        .stderr_has("no probe is called `echo_ids`")
        .stderr_has("echoes_ids");
}

/// What the generator cannot make fails `fuzz` with the reason; a tool that fails
/// every call is reported by `fuzz` when it runs alone; a `\d` pattern is fuzzed.
#[test]
fn fuzz_never_passes_a_tool_it_could_not_fuzz() {
    let fuzz_only = |tool: &str| {
        check_fixture(
            "schemas.yaml",
            &[tool, "--probe", "fuzz", "--seed", "1", "--cases", "20"],
        )
    };
    let out = fuzz_only("huge");
    out.expect_code(1);
    assert_eq!(
        failures(&out.json())[0].2,
        "`huge` was not fuzzed: no arguments can be generated from its schema: \
         `minLength: 100000` at `/properties/text` asks for more than check generates (at most 65536)"
    );
    let out = fuzz_only("always_crash");
    out.expect_code(1);
    let failed = failures(&out.json());
    assert!(
        failed[0].2.starts_with(
            "`always_crash` was not fuzzed: its ordinary call with {} fails: exited with status 3"
        ),
        "{failed:?}"
    );
    let out = fuzz_only("digits");
    out.expect_code(0);
    let reason = out.json()["extensions"][0]["probes"][0]["reason"].clone();
    let calls: u32 = reason
        .as_str()
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_default();
    assert!(calls >= 10, "most of 20 cases were calls: {reason}");
}

/// A server that never reads its stdin, sent a request larger than a pipe holds:
/// every probe still ends by the deadline, and each says there was no reply.
#[test]
fn a_server_that_never_reads_cannot_hold_check() {
    let out = checking(
        "schemas.yaml",
        &["deaf_server", "--seed", "1", "--cases", "3"],
    )
    .timeout(std::time::Duration::from_secs(60))
    .run();
    out.expect_code(1);
    let failed = failures(&out.json());
    let probes: Vec<&str> = failed.iter().map(|(_, p, _)| p.as_str()).collect();
    assert_eq!(
        probes,
        [
            "one_line_per_reply",
            "within_deadline",
            "flushes_replies",
            "echoes_ids",
            "ignores_unknown_fields",
            "notifications",
            "exits_on_eof"
        ]
    );
    assert!(
        failed[0].2.contains("no reply by the deadline"),
        "{failed:?}"
    );
}

/// A result that breaks the pack tool's `output_schema` fails `output_contract`,
/// shrunk to the smallest call that shows it, with the command that repeats it.
#[test]
fn a_result_that_breaks_the_output_schema_fails_the_output_contract() {
    let out = check_fixture(
        "schemas.yaml",
        &["contract", "--seed", "1", "--cases", "20"],
    );
    out.expect_code(1);
    let report = out.json();
    assert_eq!(
        failures(&report),
        vec![(
            "contract".to_string(),
            "output_contract".to_string(),
            r#"`contract` on valid arguments {"text":""}: the result breaks the output schema: /: "length" is a required property"#
                .to_string()
        )]
    );
    let probes = report["extensions"][0]["probes"]
        .as_array()
        .expect("probes");
    let contract = probes
        .iter()
        .find(|p| p["probe"] == "output_contract")
        .expect("an output_contract verdict");
    assert_eq!(
        contract["reproduce"],
        r#"promptexec invoke-tool -c schemas.yaml contract --args '{"text":""}'"#
    );
}

/// The well-behaved fixture of each kind passes every probe: no probe fails a
/// correct extension, and an MCP tool whose results match its `outputSchema` passes
/// the output contract.
#[test]
fn a_well_behaved_extension_of_each_kind_passes_every_probe() {
    let out = check_fixture("good.yaml", &["--seed", "5", "--cases", "30"]);
    out.expect_code(0);
    let report = out.json();
    assert_eq!(failures(&report), Vec::<(String, String, String)>::new());
    assert!(probes_of(&report, "good_mcp").contains(&"output_contract"));
    assert_eq!(report["extensions"].as_array().map(Vec::len), Some(7));
}

/// A pack tool's `output_schema` is checked like its parameters, at its place.
#[test]
fn validate_names_an_output_schema_that_is_not_json_schema() {
    promptexec()
        .in_dir(fixtures().join("check"))
        .args(["-c", "good.yaml", "validate", "--pack", "bad_output_schema.pack.json"])
        .run()
        .expect_code(2)
        .stderr_has("bad_output_schema.pack.json:15:5: /tools/t/output_schema/type: not a valid JSON Schema");
}

/// `promptexec [-v] -c good.yaml check good_tool --pack pack.json --cases 5 EXTRA...`,
/// the human report.
fn check_good_tool(verbose: bool, extra: &[&str]) -> Outcome {
    let global: &[&str] = if verbose { &["-v"] } else { &[] };
    promptexec()
        .in_dir(fixtures().join("check"))
        .args(global)
        .args([
            "-c",
            "good.yaml",
            "check",
            "good_tool",
            "--pack",
            "pack.json",
        ])
        .args(["--cases", "5", "--seed", "3"])
        .args(extra)
        .run()
}

#[test]
fn a_passing_extension_is_one_line_and_its_table_comes_with_v() {
    let short = check_good_tool(false, &[]);
    short
        .expect_code(0)
        .stdout_has("PASS good_tool (tool): ")
        .stdout_has(" probes passed (")
        .stdout_lacks("one_json_answer")
        // No progress bar when stderr is not a terminal.
        .stderr_lacks("extensions");
    assert_eq!(short.stdout.lines().count(), 2, "{}", short.stdout);
    check_good_tool(true, &[])
        .expect_code(0)
        .stdout_has("PASS good_tool (tool)\n")
        .stdout_has("one_json_answer")
        .stdout_has("fuzz");
}

#[test]
fn the_report_goes_whole_to_the_output_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("check.json");
    let out = check_good_tool(
        false,
        &["--format", "json", "--output", &path.display().to_string()],
    );
    out.expect_code(0).stdout_empty();
    let report: Json =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("the report")).expect("JSON");
    assert_eq!(report["passed"], true);
    assert_eq!(report["seed"], 3);
    assert!(probes_of(&report, "good_tool").contains(&"fuzz"));
}
