//! `report merge` folds the JSON reports of a suite's shards into the report the
//! whole suite gives, and refuses shards that are missing, repeated or of another
//! suite; `report show` renders a saved report again.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::util::{Outcome, run_example};

/// The bundled suite played whole (`None`) or as one shard, its JSON report written
/// to `dir`.
fn played(dir: &Path, shard: Option<&str>, extra: &[&str]) -> PathBuf {
    let name = shard.map_or("whole".to_string(), |s| s.replace('/', "-of-"));
    let json = dir.join(format!("{name}.json"));
    let mut run = run_example().args(["-q", "--json"]).arg(&json).args(extra);
    if let Some(shard) = shard {
        run = run.args(["--shard", shard]);
    }
    run.run().expect_code(0);
    json
}

fn merge(reports: &[&Path], extra: &[&str]) -> Outcome {
    run_example_free()
        .args(["report", "merge"])
        .args(reports)
        .args(extra)
        .run()
}

/// `report` needs no config; it runs from the repository root all the same.
fn run_example_free() -> crate::util::Invocation {
    crate::util::promptexec().in_dir(crate::util::repo_root())
}

/// A report with what differs from run to run taken out: times, the worker count,
/// and the process id the example's server tool puts in its answers.
fn timeless(report: &Json) -> Json {
    match report {
        Json::Object(map) => Json::Object(
            map.iter()
                .filter(|(key, _)| !matches!(key.as_str(), "duration_ms" | "latency_ms" | "jobs"))
                .map(|(key, value)| (key.clone(), timeless(value)))
                .collect(),
        ),
        Json::Array(items) => Json::Array(items.iter().map(timeless).collect()),
        Json::String(text) => Json::String(without_pid(text)),
        other => other.clone(),
    }
}

fn without_pid(text: &str) -> String {
    match text.find("\"server_pid\":") {
        Some(at) => {
            let digits = text[at + 13..]
                .chars()
                .take_while(char::is_ascii_digit)
                .count();
            format!(
                "{}\"server_pid\":N{}",
                &text[..at],
                &text[at + 13 + digits..]
            )
        }
        None => text.to_string(),
    }
}

fn read_json(path: &Path) -> Json {
    let text = std::fs::read_to_string(path).expect("a report");
    serde_json::from_str(&text).expect("JSON")
}

#[test]
fn three_shards_merge_into_the_whole_suites_report() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let whole_junit = dir.path().join("whole.xml");
    let whole = played(
        dir.path(),
        None,
        &["--junit", whole_junit.to_str().expect("a UTF-8 path")],
    );
    let shards: Vec<PathBuf> = ["3/3", "1/3", "2/3"]
        .iter()
        .map(|s| played(dir.path(), Some(s), &[]))
        .collect();
    let merged_junit = dir.path().join("merged.xml");
    let paths: Vec<&Path> = shards.iter().map(PathBuf::as_path).collect();
    let merged = merge(
        &paths,
        &[
            "--format",
            "json",
            "--junit",
            merged_junit.to_str().expect("a UTF-8 path"),
        ],
    );
    merged.expect_code(0);
    let whole = read_json(&whole);
    assert_eq!(timeless(&merged.json()), timeless(&whole));
    let manifest = &merged.json()["manifest"];
    assert_eq!(manifest["shard"], Json::Null);
    assert_eq!(manifest["ids"].as_array().map(Vec::len), Some(5));
    let junit = |path: &Path| {
        let text = std::fs::read_to_string(path).expect("JUnit");
        // Times differ from run to run; everything else must not.
        let mut out = String::new();
        for piece in text.split(" time=\"") {
            if out.is_empty() {
                out.push_str(piece);
            } else {
                out.push_str(piece.split_once('"').map_or("", |(_, rest)| rest));
            }
        }
        without_pid(&out.replace("&quot;", "\""))
    };
    assert_eq!(junit(&merged_junit), junit(&whole_junit));
}

#[test]
fn missing_repeated_and_foreign_shards_are_named() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let one = played(dir.path(), Some("1/2"), &[]);
    let two = played(dir.path(), Some("2/2"), &[]);
    merge(&[&one], &[])
        .expect_code(2)
        .stderr_has("missing shard(s) 2/2");
    let copy = dir.path().join("copy.json");
    std::fs::copy(&one, &copy).expect("a copy");
    merge(&[&one, &copy, &two], &[])
        .expect_code(2)
        .stderr_has("shard 1/2 is given twice");
    // Another suite: only the scenarios with `order` in their id.
    let other_dir = dir.path().join("other");
    std::fs::create_dir(&other_dir).expect("a folder");
    let other = played(&other_dir, Some("2/2"), &["--filter", "order"]);
    merge(&[&one, &other], &[])
        .expect_code(2)
        .stderr_has("is from another suite than");
    let third = played(&other_dir, Some("1/3"), &[]);
    merge(&[&one, &third], &[])
        .expect_code(2)
        .stderr_has("is shard 1/3, but");
    let whole = played(dir.path(), None, &[]);
    merge(&[&whole], &[])
        .expect_code(2)
        .stderr_has("is a whole suite's report, not a shard's");
}

#[test]
fn show_renders_a_saved_report_in_every_format() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let saved = played(dir.path(), None, &[]);
    let show = |format: &str| {
        run_example_free()
            .args(["report", "show"])
            .arg(&saved)
            .args(["--format", format])
            .run()
    };
    assert_eq!(show("json").expect_code(0).json(), read_json(&saved));
    show("human")
        .expect_code(0)
        .stdout_has("lookup-outage")
        .stdout_has("suite: 5 scenario(s)");
    show("markdown")
        .expect_code(0)
        .stdout_has("promptexec suite");
    show("junit")
        .expect_code(0)
        .stdout_has("<testsuite name=\"store-hours\"");
    show("html")
        .expect_code(0)
        .stdout_has("<body data-kind=\"suite\">")
        .stdout_has("\"id\":\"lookup-outage\"");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"pack\": 1}").expect("a file");
    run_example_free()
        .args(["report", "show"])
        .arg(&bad)
        .run()
        .expect_code(2)
        .stderr_has("not a suite report of promptexec");
}

#[test]
fn shards_balanced_by_timings_give_the_long_scenario_a_machine_of_its_own() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let timings = dir.path().join("timings.json");
    let index: Vec<Json> = [
        ("catalogue-cleanup", 100),
        ("delayed-order", 9_000),
        ("large-refund", 100),
        ("lookup-outage", 100),
    ]
    .iter()
    .map(|(id, ms)| serde_json::json!({"id": id, "duration_ms": ms}))
    .collect();
    // `store-hours` is not in it: it weighs the mean.
    std::fs::write(&timings, serde_json::json!({ "index": index }).to_string()).expect("a file");
    let ids = |shard: &str| -> Vec<String> {
        let report = run_example()
            .args([
                "-q",
                "--format",
                "json",
                "--shard",
                shard,
                "--shard-by",
                "timings",
            ])
            .arg("--timings")
            .arg(&timings)
            .run();
        report.expect_code(0);
        report.json()["manifest"]["ids"]
            .as_array()
            .expect("ids")
            .iter()
            .filter_map(|id| id.as_str().map(str::to_string))
            .collect()
    };
    assert_eq!(ids("1/2"), ["delayed-order"]);
    assert_eq!(
        ids("2/2"),
        [
            "catalogue-cleanup",
            "large-refund",
            "lookup-outage",
            "store-hours"
        ]
    );
    run_example()
        .args(["--shard", "1/2", "--timings"])
        .arg(&timings)
        .run()
        .expect_code(2)
        .stderr_has("--timings");
    run_example()
        .args(["--shard", "1/2", "--shard-by", "timings"])
        .run()
        .expect_code(2)
        .stderr_has("needs --timings REPORT");
}
