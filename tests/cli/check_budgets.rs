//! `check --probe fuzz` on schemas that ask the generator for too much: sizes each
//! within their limit whose product is not, 50,000 required properties, nesting 40
//! deep, a pattern of nested repetitions. Each fails the `fuzz` probe (exit 1) with
//! the reason and the JSON pointer of the part, within a memory limit that the old
//! generator blew through; a schema near the budgets is still fuzzed.

use std::path::Path;

use serde_json::{Value as Json, json};

use crate::util::{Outcome, fixtures, promptexec};

/// Address space promptexec may take: far below the gigabytes the exploding schemas
/// once reached, well above what a run needs.
const MEMORY_LIMIT_KB: u64 = 3_000_000;

/// `check TOOL --probe fuzz` with the budget fixtures' config and `pack`, under the
/// memory limit.
fn fuzz(tool: &str, pack: &Path) -> Outcome {
    let dir = fixtures().join("check_budgets");
    promptexec()
        .in_dir(&dir)
        .after_shell(&format!("ulimit -v {MEMORY_LIMIT_KB}"))
        .timeout(std::time::Duration::from_secs(120))
        .args(["-c", "budgets.yaml", "check", tool, "--probe", "fuzz"])
        .arg("--pack")
        .arg(pack)
        .args(["--seed", "1", "--cases", "10", "--format", "json"])
        .run()
}

/// The one `fuzz` verdict of a run on one tool: whether it passed, its reason and
/// its hint.
fn verdict(out: &Outcome) -> (bool, String, String) {
    let report = out.json();
    let probes = report["extensions"][0]["probes"]
        .as_array()
        .unwrap_or_else(|| panic!("a verdict in {report}"));
    assert_eq!(probes.len(), 1, "{report}");
    assert_eq!(probes[0]["probe"], "fuzz", "{report}");
    (
        probes[0]["passed"] == true,
        probes[0]["reason"].as_str().unwrap_or_default().to_owned(),
        probes[0]["hint"].as_str().unwrap_or_default().to_owned(),
    )
}

fn fails_fuzz(tool: &str, pack: &Path, expected: &str) {
    let out = fuzz(tool, pack);
    out.expect_code(1);
    let (passed, reason, hint) = verdict(&out);
    assert!(!passed, "{reason}");
    assert_eq!(
        hint,
        "keep the schema within the sizes check generates (see `check` in the guide)"
    );
    let prefix =
        format!("`{tool}` was not fuzzed: no arguments can be generated from its schema: ");
    assert!(reason.starts_with(&prefix), "{reason}");
    assert!(
        reason.ends_with(expected),
        "{reason}\nexpected it to end with: {expected}"
    );
}

fn pack() -> std::path::PathBuf {
    fixtures().join("check_budgets").join("pack.json")
}

#[test]
fn arrays_of_4096_arrays_of_4096_strings_fail_fuzz_at_the_outer_array() {
    fails_fuzz(
        "square",
        &pack(),
        "the smallest value at `/properties/a` may take 754987010 bytes of JSON, \
         more than check generates for one call (at most 1048576)",
    );
}

#[test]
fn fifty_thousand_required_properties_fail_fuzz_at_their_object() {
    let dir = tempfile::tempdir().expect("temp dir");
    let names: Vec<String> = (0..50_000).map(|n| format!("p{n}")).collect();
    let properties: serde_json::Map<String, Json> = names
        .iter()
        .map(|name| (name.clone(), json!({"type": "string"})))
        .collect();
    let mut pack: Json =
        serde_json::from_str(&std::fs::read_to_string(pack()).expect("the fixture pack"))
            .expect("JSON");
    pack["tools"] = json!({"wide": {
        "name": "wide",
        "description": "Fifty thousand required properties",
        "parameters": {"type": "object", "properties": properties, "required": names}
    }});
    let path = dir.path().join("wide.pack.json");
    std::fs::write(&path, pack.to_string()).expect("write the pack");
    fails_fuzz(
        "wide",
        &path,
        "the object at the root has 50000 properties, more than check generates (at most 1024)",
    );
}

#[test]
fn nesting_past_the_depth_limit_fails_fuzz_not_the_input() {
    fails_fuzz(
        "deep_properties",
        &pack(),
        &format!(
            "the schema nests deeper than check follows (at most 32 levels) at `{}`",
            "/properties/n".repeat(33)
        ),
    );
    fails_fuzz(
        "deep_all_of",
        &pack(),
        &format!(
            "the schema nests deeper than check follows (at most 32 levels) at `/properties/a{}`",
            "/allOf/0".repeat(32)
        ),
    );
}

#[test]
fn a_pattern_of_nested_repetitions_fails_fuzz_at_the_pattern() {
    fails_fuzz(
        "catastrophic_pattern",
        &pack(),
        "the pattern at `/properties/a/pattern` matches strings of up to 1048576 characters \
         (at most 65536)",
    );
}

/// A 64×64 grid, a 60,000-character text, a pattern and nesting 20 deep, together
/// within the budgets: fuzzed, and every call answered.
#[test]
fn a_schema_near_the_budgets_is_fuzzed() {
    let out = fuzz("near_limits", &pack());
    out.expect_code(0);
    let (passed, reason, _) = verdict(&out);
    assert!(passed, "{reason}");
    assert!(
        reason.contains("no crash, hang or invalid answer"),
        "{reason}"
    );
}
