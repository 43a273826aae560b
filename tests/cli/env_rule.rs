//! `env_mode`: by default a child gets the base set and the listed names; with
//! `listed` exactly the listed names (and promptexec's own `PROMPTEXEC_*`).

use std::path::PathBuf;

use crate::util::{fixtures, promptexec};

fn env_dir() -> PathBuf {
    fixtures().join("env_rule")
}

/// The variable names the fixture tool `tool` was started with.
#[track_caller]
fn names_seen(config: &str, tool: &str) -> Vec<String> {
    let out = promptexec()
        .in_dir(env_dir())
        .args(&["-c", config, "invoke-tool", tool, "--args", "{}"])
        .envs(&[
            ("LISTED_SECRET", "listed"),
            ("UNLISTED_SECRET", "unlisted"),
            ("PATH", &std::env::var("PATH").unwrap_or_default()),
            ("HOME", "/home/tester"),
        ])
        .run();
    out.expect_code(0);
    serde_json::from_value(out.json()).expect("a list of names")
}

/// promptexec's own variables, which every child gets whatever its `env_mode`.
const CONTEXT: [&str; 4] = [
    "PROMPTEXEC_KIND",
    "PROMPTEXEC_NAME",
    "PROMPTEXEC_SPAWN_ID",
    "PROMPTEXEC_VERSION",
];

fn exactly(names: &[&str]) -> Vec<String> {
    let mut all: Vec<String> = names
        .iter()
        .chain(&CONTEXT)
        .map(|n| n.to_string())
        .collect();
    all.sort();
    all
}

#[test]
fn the_default_rule_adds_the_base_set_to_the_listed_names() {
    let names = names_seen("env_rule.yaml", "base");
    for expected in ["PATH", "HOME", "LISTED_SECRET"].iter().chain(&CONTEXT) {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} in {names:?}"
        );
    }
    assert!(!names.iter().any(|n| n == "UNLISTED_SECRET"), "{names:?}");
}

#[test]
fn listed_mode_gives_exactly_the_listed_names() {
    assert_eq!(
        names_seen("env_rule.yaml", "listed"),
        exactly(&["LISTED_SECRET"])
    );
    // A bare command is still found, through promptexec's own PATH.
    assert_eq!(
        names_seen("env_rule.yaml", "listed_bare"),
        exactly(&["LISTED_SECRET"])
    );
}

#[test]
fn spec_env_mode_is_the_default_and_a_binding_can_override_it() {
    assert_eq!(
        names_seen("listed_default.yaml", "inherits"),
        exactly(&["LISTED_SECRET"])
    );
    let names = names_seen("listed_default.yaml", "overrides");
    assert!(names.iter().any(|n| n == "PATH"), "{names:?}");
}

#[test]
fn an_unknown_env_mode_is_a_config_error_with_its_position() {
    let out = promptexec()
        .in_dir(env_dir())
        .args(&["-c", "bad_env_mode.yaml", "validate"])
        .run();
    out.expect_code(2);
    out.stderr_has("bad_env_mode.yaml:6:50: spec.tools.typo.exec.env_mode: `lsited` is not one of `base` or `listed`; did you mean `listed`?");
}
