//! Keys promptexec accepts but does not apply are warnings with their position; the
//! reports list them; `--strict` makes them fatal before anything starts; a mock
//! scenario that is not there is caught.

use std::path::PathBuf;

use serde_json::Value as Json;

use crate::util::{Outcome, fixtures, promptexec};

fn strict_dir() -> PathBuf {
    fixtures().join("strict")
}

const RAW_OUTPUT: &str = "strict.yaml:8:7: warning: `include_raw_output` in spec.providers[0] is a PromptKit key promptexec does not apply";
const MODEL_OVERRIDES: &str = "strict.pack.json:19:7: warning: `model_overrides` in /prompts/chat is a PromptKit key promptexec does not apply";

/// `run` of the strict fixture, with a marker file the tool leaves when it runs.
#[track_caller]
fn play(extra: &[&str]) -> (Outcome, bool) {
    let marker_dir = tempfile::tempdir().expect("temp dir");
    let marker = marker_dir.path().join("ran");
    let marker_text = marker.display().to_string();
    let mut args = vec![
        "-c",
        "strict.yaml",
        "run",
        "strict.pack.json",
        "--message",
        "hi",
    ];
    if !extra.contains(&"--prompt") {
        args.extend(["--prompt", "chat"]);
    }
    args.extend_from_slice(extra);
    let out = promptexec()
        .in_dir(strict_dir())
        .args(&args)
        .envs(&[("MARKER", &marker_text)])
        .run();
    (out, marker.exists())
}

#[test]
fn ignored_keys_are_warnings_that_name_them_and_where_they_are() {
    let out = promptexec()
        .in_dir(strict_dir())
        .args(&[
            "validate",
            "-c",
            "strict.yaml",
            "--pack",
            "strict.pack.json",
        ])
        .run();
    assert_eq!(out.code, 0, "warnings alone pass: {}", out.stderr);
    assert!(out.stderr.contains(RAW_OUTPUT), "{}", out.stderr);
    assert!(out.stderr.contains(MODEL_OVERRIDES), "{}", out.stderr);
}

#[test]
fn validate_strict_fails_on_warnings() {
    let out = promptexec()
        .in_dir(strict_dir())
        .args(&[
            "validate",
            "--strict",
            "-c",
            "strict.yaml",
            "--pack",
            "strict.pack.json",
        ])
        .run();
    out.expect_code(2);
    assert!(out.stderr.contains(MODEL_OVERRIDES), "{}", out.stderr);
    out.stderr_has("error: --strict: 2 warnings count as errors");
}

#[test]
fn a_misspelt_eval_threshold_is_an_error_not_a_measurement() {
    let out = promptexec()
        .in_dir(strict_dir())
        .args(&["validate", "--pack", "typo.pack.json"])
        .run();
    out.expect_code(2);
    out.stderr_has("typo.pack.json:17:11: unknown key `treshold` in /prompts/chat/evals/0; did you mean `threshold`?");
}

#[test]
fn the_json_report_lists_the_warnings_with_positions() {
    let (out, ran) = play(&["--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.report());
    assert!(ran, "the tool ran");
    let report: Json = serde_json::from_str(&out.stdout).expect("one JSON document");
    let warnings = report["warnings"].as_array().expect("a warnings list");
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert_eq!(warnings[1]["file"], "strict.pack.json");
    assert_eq!(warnings[1]["line"], 19);
    assert_eq!(warnings[1]["column"], 7);
    assert!(
        warnings[1]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("`model_overrides` in /prompts/chat")),
        "{warnings:?}"
    );
}

#[test]
fn the_junit_report_carries_the_warnings_as_system_err() {
    let (out, _) = play(&["--format", "junit"]);
    assert_eq!(out.code, 0, "{}", out.report());
    let system_err = out
        .stdout
        .split_once("<system-err>")
        .and_then(|(_, rest)| rest.split_once("</system-err>"))
        .map(|(inside, _)| inside)
        .expect("a <system-err> element");
    assert!(system_err.contains(RAW_OUTPUT), "{system_err}");
    assert!(system_err.contains(MODEL_OVERRIDES), "{system_err}");
}

#[test]
fn run_strict_stops_on_warnings_before_anything_starts() {
    let (out, ran) = play(&["--strict", "--format", "json"]);
    assert_eq!(out.code, 2, "{}", out.report());
    assert!(!ran, "no extension may start under --strict with warnings");
    assert!(out.stdout.is_empty(), "no report: {}", out.stdout);
    assert!(out.stderr.contains(RAW_OUTPUT), "{}", out.stderr);
    assert!(out.stderr.contains(MODEL_OVERRIDES), "{}", out.stderr);
    out.stderr_has("--strict: 2 warnings");
}

#[test]
fn a_named_scenario_the_mock_lacks_is_bad_input_with_a_suggestion() {
    let (out, ran) = play(&["--scenario", "chta"]);
    assert_eq!(out.code, 2, "{}", out.report());
    assert!(!ran);
    out.stderr_has("strict.mock.yaml:1:1: --scenario `chta` is not a scenario of this file (it defines `chat`); did you mean `chat`?");
}

#[test]
fn a_prompt_id_that_is_not_a_scenario_warns_and_uses_the_defaults() {
    let (out, _) = play(&["--prompt", "other", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.report());
    let warning = "strict.mock.yaml:1:1: warning: no scenario `other` (the prompt id) in this file; every model call gets the default responses";
    assert!(out.stderr.contains(warning), "{}", out.stderr);
    let report: Json = serde_json::from_str(&out.stdout).expect("one JSON document");
    assert!(
        report["warnings"]
            .as_array()
            .is_some_and(|w| w.iter().any(|w| w["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("no scenario `other`")))),
        "{report:#}"
    );
    let (strict, _) = play(&["--prompt", "other", "--strict"]);
    assert_eq!(strict.code, 2, "{}", strict.report());
}
