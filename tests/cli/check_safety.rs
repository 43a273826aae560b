//! `check` is safe by default and fails only what a run would: tools that may write
//! are not called with generated arguments without `--allow-writes`, schema-breaking
//! arguments go only with `--invalid-args`, a tool whose time grows with its input is
//! advice, and a probe whose every call answered an error says it exercised nothing.

use std::fs;
use std::path::Path;

use serde_json::{Value as Json, json};

use crate::util::{Outcome, fixtures, promptexec};

/// The names of the files in `folder`, sorted.
fn listing(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(folder)
        .expect("folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `check --format json ARGS` with CONFIG written into `dir`.
fn check(dir: &Path, config: &str, args: &[&str]) -> Outcome {
    fs::write(dir.join("c.yaml"), config).expect("config");
    promptexec()
        .in_dir(dir)
        .args(["-c", "c.yaml", "check", "--format", "json", "--seed", "3"])
        .args(args)
        .run()
}

/// The verdict of `probe` on `extension`.
fn verdict<'a>(report: &'a Json, extension: &str, probe: &str) -> &'a Json {
    report["extensions"]
        .as_array()
        .expect("extensions")
        .iter()
        .find(|e| e["name"] == extension)
        .and_then(|e| e["probes"].as_array())
        .and_then(|p| p.iter().find(|p| p["probe"] == probe))
        .unwrap_or_else(|| panic!("no {probe} of {extension} in {report:#}"))
}

fn mcp_config(served: &Path, extra: &str) -> String {
    let server = fixtures().join("check_safety/files_mcp.py");
    format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  mcp_servers:\n    - name: files\n      command: python3\n      args: [{}, {}{extra}]\n      timeout_ms: 20000\n",
        server.display(),
        served.display()
    )
}

#[test]
fn tools_that_may_write_are_not_called_and_each_is_named_with_why() {
    let dir = tempfile::tempdir().expect("temp dir");
    let served = dir.path().join("served");
    fs::create_dir(&served).expect("served");
    fs::write(served.join("notes.txt"), "keep me\n").expect("note");

    let out = check(dir.path(), &mcp_config(&served, ""), &["--cases", "10"]);
    out.expect_code(0);
    assert_eq!(
        listing(&served),
        ["notes.txt"],
        "check wrote into the folder"
    );
    assert_eq!(
        fs::read_to_string(served.join("notes.txt")).expect("note"),
        "keep me\n"
    );
    let report = out.json();
    let calls = verdict(&report, "files", "calls_each_tool");
    assert_eq!(calls["passed"], json!(true), "{calls}");
    let reason = calls["reason"].as_str().expect("reason");
    assert!(reason.starts_with("answered read_note (ok)"), "{reason}");
    assert!(
        reason.contains("write_note (annotated `destructiveHint: true`)")
            || reason.contains("write_note (not annotated `readOnlyHint: true`)"),
        "{reason}"
    );
    assert!(
        reason.contains("touch (not annotated `readOnlyHint: true`)"),
        "{reason}"
    );
    assert!(reason.ends_with("(--allow-writes calls them)"), "{reason}");
    let fuzz = verdict(&report, "files", "fuzz")["reason"]
        .as_str()
        .expect("reason");
    assert!(
        fuzz.contains("not called: `mcp__files__write_note`"),
        "{fuzz}"
    );
}

#[test]
fn allow_writes_calls_them_and_warns_to_use_a_scratch_copy() {
    let dir = tempfile::tempdir().expect("temp dir");
    let served = dir.path().join("served");
    fs::create_dir(&served).expect("served");

    let out = check(
        dir.path(),
        &mcp_config(&served, ""),
        &[
            "--cases",
            "5",
            "--allow-writes",
            "--probe",
            "calls_each_tool",
        ],
    );
    out.expect_code(0);
    assert_eq!(listing(&served), ["touched", "written.txt"]);
    let calls = verdict(&out.json(), "files", "calls_each_tool").clone();
    assert_eq!(calls["warning"], json!(true), "{calls}");
    assert!(
        calls["hint"]
            .as_str()
            .expect("hint")
            .starts_with("point the server at a scratch copy"),
        "{calls}"
    );
}

#[test]
fn a_server_whose_every_call_errs_exercised_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let served = dir.path().join("served");
    fs::create_dir(&served).expect("served");

    let out = check(
        dir.path(),
        &mcp_config(&served, ", --all-fail"),
        &["--probe", "calls_each_tool"],
    );
    out.expect_code(0);
    let calls = verdict(&out.json(), "files", "calls_each_tool").clone();
    assert_eq!(calls["warning"], json!(true), "{calls}");
    assert!(
        calls["reason"]
            .as_str()
            .expect("reason")
            .starts_with("every one of the 1 calls answered an error: the probe exercised nothing"),
        "{calls}"
    );
    let human = promptexec()
        .in_dir(dir.path())
        .args(["-c", "c.yaml", "check", "--probe", "calls_each_tool"])
        .run();
    human
        .expect_code(0)
        .stdout_has("PASS files (mcp_server): 1 probe passed, 1 warning (")
        .stdout_has("  calls_each_tool warning: every one of the 1 calls")
        .stdout_has(", 1 warning (seed ");
}

fn tools_config(dir: &Path) -> String {
    let tools = fixtures().join("check_safety/tools.py");
    let out = dir.join("out");
    fs::create_dir_all(&out).expect("out");
    format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  tools:\n    writer:\n      side_effects: writes\n      exec: {{ command: python3, args: [{t}, writer, {o}], timeout_ms: 5000 }}\n    strict:\n      exec: {{ command: python3, args: [{t}, strict], timeout_ms: 5000 }}\n    slow:\n      exec: {{ command: python3, args: [{t}, slow], timeout_ms: 1500 }}\n",
        t = tools.display(),
        o = out.display()
    )
}

fn pack() -> String {
    fixtures()
        .join("check_safety/pack.json")
        .display()
        .to_string()
}

#[test]
fn a_tool_with_side_effects_writes_is_not_fuzzed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = tools_config(dir.path());
    let out = check(dir.path(), &config, &[&pack(), "writer", "--probe", "fuzz"]);
    out.expect_code(0);
    let fuzz = verdict(&out.json(), "writer", "fuzz").clone();
    assert_eq!(fuzz["skipped"], json!(true), "{fuzz}");
    assert_eq!(
        fuzz["reason"],
        json!("not called: `writer` (`side_effects: writes`; --allow-writes calls it)")
    );
    // Only the ordinary request, which a run would send too.
    assert_eq!(listing(&dir.path().join("out")).len(), 1);

    let allowed = check(
        dir.path(),
        &config,
        &[
            &pack(),
            "writer",
            "--probe",
            "fuzz",
            "--cases",
            "3",
            "--allow-writes",
        ],
    );
    allowed.expect_code(0);
    // Once more the ordinary request, then the fuzzer's own and its three cases.
    assert_eq!(listing(&dir.path().join("out")).len(), 1 + 1 + 1 + 3);
}

#[test]
fn schema_breaking_arguments_go_only_when_asked_and_a_crash_on_them_is_advice() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = tools_config(dir.path());
    let base = [
        pack(),
        "strict".into(),
        "--probe".into(),
        "fuzz".into(),
        "--cases".into(),
        "40".into(),
    ];
    let base: Vec<&str> = base.iter().map(String::as_str).collect();

    let plain = check(dir.path(), &config, &base);
    plain.expect_code(0);
    let fuzz = verdict(&plain.json(), "strict", "fuzz").clone();
    assert_eq!(fuzz.get("warning"), None, "{fuzz}");
    assert!(
        fuzz["reason"]
            .as_str()
            .expect("reason")
            .starts_with("40 generated calls (seed 3)")
    );

    let advised = check(
        dir.path(),
        &config,
        &[&base[..], &["--invalid-args"]].concat(),
    );
    advised.expect_code(0);
    let fuzz = verdict(&advised.json(), "strict", "fuzz").clone();
    assert_eq!(fuzz["warning"], json!(true), "{fuzz}");
    assert!(
        fuzz["reason"]
            .as_str()
            .expect("reason")
            .contains("on invalid arguments"),
        "{fuzz}"
    );
    assert!(
        fuzz["reproduce"]
            .as_str()
            .expect("reproduce")
            .contains("invoke-tool"),
        "{fuzz}"
    );

    let failed = check(
        dir.path(),
        &config,
        &[&base[..], &["--invalid-args=fail"]].concat(),
    );
    failed.expect_code(1);
    assert_eq!(
        verdict(&failed.json(), "strict", "fuzz")["passed"],
        json!(false)
    );
}

#[test]
fn a_tool_whose_time_grows_with_its_input_is_not_called_hung() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = tools_config(dir.path());
    let out = check(
        dir.path(),
        &config,
        &[&pack(), "slow", "--probe", "fuzz", "--cases", "30"],
    );
    out.expect_code(0);
    let fuzz = verdict(&out.json(), "slow", "fuzz").clone();
    assert_eq!(fuzz["warning"], json!(true), "{fuzz}");
    let reason = fuzz["reason"].as_str().expect("reason");
    assert!(
        reason.starts_with("`slow`: its time grows with its input: {\"seconds\":1} answered in"),
        "{reason}"
    );
}

#[test]
fn a_side_effects_value_that_is_neither_is_an_error_at_its_place() {
    let dir = tempfile::tempdir().expect("temp dir");
    fs::write(
        dir.path().join("c.yaml"),
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  tools:\n    writer:\n      side_effects: sometimes\n      exec: { command: python3 }\n",
    )
    .expect("config");
    promptexec()
        .in_dir(dir.path())
        .args(["-c", "c.yaml", "validate"])
        .run()
        .expect_code(2)
        .stderr_has("c.yaml:6:21: spec.tools.writer.side_effects");
}
