//! `run --baseline`: a suite compared with an earlier report as it ends, `--bless`
//! writing the baseline, and the comparability fingerprint that makes a run with a
//! changed extension file unverifiable.

use std::path::Path;

use serde_json::Value as Json;

use crate::util::{Invocation, copy_dir, fixtures, promptexec};

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    copy_dir(&fixtures().join("diff"), dir.path());
    dir
}

/// `run` of the project's four scenarios in `dir`.
fn suite(dir: &Path) -> Invocation {
    promptexec().in_dir(dir).args([
        "-c",
        "runtimeconfig.yaml",
        "run",
        "diff.pack.json",
        "scenarios",
    ])
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).expect("readable")
}

#[test]
fn a_baseline_is_blessed_then_guards_the_next_runs() {
    let dir = project();
    let baseline = dir.path().join("baseline.json");
    suite(dir.path())
        .args(["--baseline", "baseline.json"])
        .run()
        .expect_code(2)
        .stderr_has("no baseline at baseline.json: run once with --bless to write it");
    assert!(!baseline.exists());

    suite(dir.path())
        .args(["--baseline", "baseline.json", "--bless"])
        .run()
        .expect_code(0)
        .stderr_has("baseline: wrote baseline.json\n");
    let blessed: Json = serde_json::from_str(&read(&baseline)).expect("a JSON report");
    assert_eq!(blessed["scenarios"].as_array().map(Vec::len), Some(4));
    let parts: Vec<&String> = blessed["fingerprint"]
        .as_object()
        .expect("a fingerprint")
        .keys()
        .collect();
    assert_eq!(
        parts,
        ["evals", "extensions", "prompts", "provider", "tools"]
    );

    // The same suite again: nothing regressed, the gate holds.
    suite(dir.path())
        .args(["--baseline", "baseline.json", "--fail-on-regression"])
        .run()
        .expect_code(0)
        .stderr_has("4 scenarios compared (baseline.json → this run)")
        .stderr_lacks("regressed");

    // The guard denies now: the gate fails, and the baseline is not blessed.
    let before = read(&baseline);
    suite(dir.path())
        .args([
            "--baseline",
            "baseline.json",
            "--fail-on-regression",
            "--bless",
        ])
        .env("DIFF_DENY", "1")
        .run()
        .expect_code(1)
        .stderr_has("regressed  guarded  passed → failed\n")
        .stderr_has("    hook `guard` at before_execution decides deny_tool now")
        .stderr_has("gate failed:\n  `guarded` regressed: passed → failed\n")
        .stderr_has("baseline: baseline.json is kept: the gate failed");
    assert_eq!(read(&baseline), before);

    // Under -q, what failed the gate still shows.
    suite(dir.path())
        .args(["-q", "--baseline", "baseline.json", "--fail-on-regression"])
        .env("DIFF_DENY", "1")
        .run()
        .expect_code(1)
        .stderr_has("`guarded` regressed: passed → failed")
        .stderr_lacks("scenarios compared");

    // Without --fail-on-regression the run's own verdict is the exit code.
    suite(dir.path())
        .args([
            "--baseline",
            "baseline.json",
            "--known-failures",
            "known.yaml",
        ])
        .file("known.yaml", "- lookup-order\n")
        .run()
        .expect_code(0)
        .stderr_has("known failure `lookup-order` passes now");
}

#[test]
fn a_changed_extension_file_makes_every_scenario_unverifiable() {
    let dir = project();
    suite(dir.path())
        .args(["--json", "base.json"])
        .run()
        .expect_code(0);
    let lookup = dir.path().join("lookup.py");
    let mut script = read(&lookup);
    script.push_str("# reviewed\n");
    std::fs::write(&lookup, script).expect("written");
    suite(dir.path())
        .args(["--json", "head.json", "--baseline", "base.json", "--fail-on-regression"])
        .env("DIFF_DENY", "1")
        .run()
        .expect_code(1)
        .stderr_has("unverifiable  guarded  passed → failed\n")
        .stderr_has("4 scenarios compared (base.json → this run): 4 unverifiable\n")
        .stderr_has(
            "not comparable: the fingerprints differ in extensions; bless a new baseline to compare again\n",
        )
        .stderr_lacks("gate failed");

    let out = promptexec()
        .in_dir(dir.path())
        .args(["diff", "base.json", "head.json", "--format", "json"])
        .run();
    out.expect_code(0);
    let report = out.json();
    assert_eq!(
        report["unverifiable_parts"],
        serde_json::json!(["extensions"])
    );
    assert_eq!(report["summary"]["unverifiable"], 4);
    let base = &report["base"]["fingerprint"];
    let head = &report["head"]["fingerprint"];
    assert_ne!(base["extensions"], head["extensions"]);
    assert_eq!(base["prompts"], head["prompts"]);
}

#[test]
fn gate_options_need_a_baseline() {
    let dir = project();
    suite(dir.path())
        .arg("--fail-on-regression")
        .run()
        .expect_code(2)
        .stderr_has("--fail-on-regression applies with --baseline FILE");
    suite(dir.path())
        .arg("--bless")
        .run()
        .expect_code(2)
        .stderr_has("--baseline");
}
