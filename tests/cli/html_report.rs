//! The HTML report: the page `--html FILE` and `--format html` write holds the same
//! record as `--format json`, and opened from disk in a real headless Chromium
//! (driven by tests/browser/report.mjs over playwright-core, installed by `.ci/run`
//! into target/browser) it shows every scenario, opens the failed one on its failing
//! assertion and tool calls, shows markup in the data as text, and makes no request.
//!
//! Without Chromium or the driver the browser tests fail, naming what to install;
//! outside CI (`CI` unset) `PROMPTEXEC_SKIP_BROWSER=1` skips them instead.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

use serde_json::Value as Json;

use crate::util::{browser_driver, driver_json, example_config, repo_root};

/// The bundled example's five scenarios, `delayed-order` made to fail.
const SUITE: &str = "tests/fixtures/html_report/scenarios";

/// One scenario whose id, description, label and message are markup.
const HOSTILE: &str = "tests/fixtures/html_report/hostile";

const HOSTILE_ID: &str = "<img src=x onerror=document.title='pwned'>";

/// The JSON document a page embeds, read back as the browser reads it.
fn embedded(page: &str) -> Json {
    let open = "<script type=\"application/json\" id=\"report-data\">";
    assert_eq!(page.matches(open).count(), 1, "the data is embedded once");
    let start = page.find(open).expect("the data element") + open.len();
    let end = start + page[start..].find("</script>").expect("its end");
    serde_json::from_str(&page[start..end]).expect("the embedded data is JSON")
}

/// Durations and the ids of tool servers differ from run to run; the rest must not.
fn steady(mut report: Json) -> String {
    fn walk(value: &mut Json) {
        match value {
            Json::Object(map) => {
                for (key, item) in map.iter_mut() {
                    if key.ends_with("_ms") {
                        *item = Json::Null;
                    } else {
                        walk(item);
                    }
                }
            }
            Json::Array(items) => items.iter_mut().for_each(walk),
            Json::String(text) if text.contains("server_pid") => *text = String::new(),
            _ => {}
        }
    }
    walk(&mut report);
    report.to_string()
}

/// Runs the suite in `dir` with `flags`, from the repository root.
fn run_suite(dir: &str, flags: &[&str]) -> crate::util::Outcome {
    example_config()
        .args(["run", "examples/assistant.pack.json", dir])
        .args(flags)
        .run()
}

#[test]
fn format_html_prints_a_page_holding_the_json_report() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("report.json");
    let html = dir.path().join("report.html");
    let json_arg = json.to_str().expect("utf-8 path");
    let html_arg = html.to_str().expect("utf-8 path");
    let out = run_suite(
        SUITE,
        &["--format", "html", "--json", json_arg, "--html", html_arg],
    );
    out.expect_code(1)
        .stdout_has("<!DOCTYPE html>")
        .stdout_has("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';");
    let from_stdout = embedded(&out.stdout);
    let written: Json = serde_json::from_str(&std::fs::read_to_string(&json).expect("--json"))
        .expect("JSON report");
    assert_eq!(
        from_stdout, written,
        "the page holds the record --json wrote"
    );
    let from_file = embedded(&std::fs::read_to_string(&html).expect("--html"));
    assert_eq!(from_file, written);
    assert_eq!(from_file["summary"]["failed"], 1);
}

#[test]
fn test_and_check_write_every_report_asked_for() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |name: &str| dir.path().join(name).to_str().expect("utf-8").to_owned();
    let (json, junit, html) = (path("t.json"), path("t.xml"), path("t.html"));
    let out = example_config()
        .args(["test", "examples/assistant.cases.yaml", "--format", "json"])
        .args(["--json", &json, "--junit", &junit, "--html", &html])
        .run();
    out.expect_code(0);
    let written: Json =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("--json")).expect("JSON");
    assert_eq!(steady(out.json()), steady(written.clone()));
    let page = std::fs::read_to_string(&html).expect("--html");
    assert!(page.contains("<body data-kind=\"test\">"));
    assert_eq!(embedded(&page), written);
    let xml = std::fs::read_to_string(&junit).expect("--junit");
    assert!(xml.contains("<testsuite"), "{xml}");

    let page = example_config()
        .args(["check", "lookup_order", "--cases", "3", "--format", "html"])
        .run();
    page.expect_code(0).stdout_has("<body data-kind=\"check\">");
    let record = embedded(&page.stdout);
    assert_eq!(record["extensions"][0]["name"], "lookup_order");
}

/// The driver of this file's pages, or `None` when the browser tests are skipped.
fn driver() -> Option<Command> {
    browser_driver("tests/browser/report.mjs")
}

/// What the browser found on the page at `file` (`flags`: the driver's `--open ID`,
/// `--shots PREFIX`, `--hash FRAGMENT`).
fn inspect(mut driver: Command, file: &Path, flags: &[&OsStr]) -> Json {
    driver_json(
        driver
            .args(["inspect", file.to_str().expect("utf-8 path")])
            .args(flags),
    )
}

fn assert_quiet(found: &Json) {
    for key in ["requests", "consoleErrors", "pageErrors"] {
        assert_eq!(found[key], Json::Array(vec![]), "{key}: {found:#}");
    }
}

#[test]
fn the_suite_report_opens_in_chromium_on_its_failure() {
    let Some(browser) = driver() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let html = dir.path().join("suite.html");
    run_suite(SUITE, &["-q", "--html", html.to_str().expect("utf-8 path")]).expect_code(1);
    let shots = repo_root().join("target/html-report");
    std::fs::create_dir_all(&shots).expect("target/html-report");
    let prefix = shots.join("suite");
    let flags = [
        "--open".as_ref(),
        "delayed-order".as_ref(),
        "--shots".as_ref(),
        prefix.as_os_str(),
    ];
    let found = inspect(browser, &html, &flags);
    assert_quiet(&found);
    let ids = [
        "catalogue-cleanup",
        "delayed-order",
        "large-refund",
        "lookup-outage",
        "store-hours",
    ];
    assert_eq!(found["rows"], serde_json::json!(ids));
    let detail = found["detail"]
        .as_str()
        .expect("the failed scenario's detail");
    for shown in [
        // The failing assertion, its message and why it failed.
        "failed\tcontent_includes\tturn 1\tThe answer names the order and promises a delivery date",
        "missing: delivery date",
        // Its tool calls, with their arguments and results.
        "lookup_order ok",
        "\"order_id\": \"A-1002\"",
        "db_query ok",
        "SELECT name, stock FROM products WHERE sku = 'RJ-02'",
        "\"status\":\"delayed\"",
        // The command that plays it again.
        "promptexec run examples/assistant.pack.json \
         tests/fixtures/html_report/scenarios/delayed-order.scenario.yaml --filter delayed-order",
    ] {
        assert!(detail.contains(shown), "{shown:?} not in:\n{detail}");
    }
    for shot in ["wide-light", "wide-dark", "phone-light", "phone-dark"] {
        let png = shots.join(format!("suite-{shot}.png"));
        let bytes = std::fs::read(&png).expect("a screenshot");
        assert!(bytes.starts_with(b"\x89PNG"), "{}", png.display());
    }
    // A filter in the fragment: the page opens on the failed scenario alone.
    let driver = driver().expect("the driver, found above");
    let failed = inspect(driver, &html, &["--hash".as_ref(), "f=failed".as_ref()]);
    assert_quiet(&failed);
    assert_eq!(failed["rows"], serde_json::json!(["delayed-order"]));
    assert_eq!(failed["checked"], serde_json::json!(["only-failed"]));
}

#[test]
fn markup_in_the_data_is_shown_as_text() {
    let Some(driver) = driver() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let html = dir.path().join("hostile.html");
    run_suite(
        HOSTILE,
        &["-q", "--html", html.to_str().expect("utf-8 path")],
    )
    .expect_code(0);
    let found = inspect(driver, &html, &["--open".as_ref(), HOSTILE_ID.as_ref()]);
    assert_quiet(&found);
    assert_eq!(found["rows"], serde_json::json!([HOSTILE_ID]));
    assert_eq!(found["markup"], 0, "no element was made from the data");
    assert_ne!(found["title"], "pwned");
    let detail = found["detail"].as_str().expect("detail");
    assert!(
        detail.contains("</script><script>document.title='pwned'</script>"),
        "{detail}"
    );
    assert!(detail.contains(HOSTILE_ID), "{detail}");
}

#[test]
fn one_conversation_writes_its_page_beside_the_json_report() {
    let dir = tempfile::tempdir().expect("temp dir");
    let html = dir.path().join("conversation.html");
    let html_arg = html.to_str().expect("utf-8 path");
    let out = example_config()
        .args([
            "run",
            "examples/assistant.pack.json",
            "--scenario=delayed-order",
        ])
        .args([
            "--var=customer_name=Dana",
            "--message=Where is my order A-1002?",
        ])
        .args(["--format=json", "--html", html_arg])
        .run();
    out.expect_code(0);
    let page = std::fs::read_to_string(&html).expect("--html");
    assert!(page.contains("<body data-kind=\"conversation\">"));
    assert_eq!(embedded(&page), out.json());
}
