//! The page of `promptexec ui` in a real headless Chromium (driven by
//! tests/browser/ui.mjs over playwright-core, as the HTML report's tests): a library
//! made with the command line is searched, a prompt is edited with a misspelt
//! variable (the error where `prompt render --file` places it), saved as a new
//! version, a locked prompt's save is refused with its reason, a new prompt is made,
//! the stats show the rating given on the command line, and saved reports are shown
//! with their history; the page talks to nothing but its server and logs no error.
//! Screenshots of every view go to target/ui-screenshots/.
//!
//! Without Chromium or the driver the test fails, naming what to install; outside
//! CI (`CI` unset) `PROMPTEXEC_SKIP_BROWSER=1` skips it instead.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime};

use nix::sys::signal::Signal;
use serde_json::{Value as Json, json};

use crate::ui_server::UiServer;
use crate::util::{browser_driver, driver_json, example_config, promptexec, repo_root};

const FIXTURES: &str = "tests/fixtures/ui";

/// The page's driver, or `None` when the browser tests are skipped.
fn driver() -> Option<Command> {
    browser_driver("tests/browser/ui.mjs")
}

/// What the driver found on the page at `url`.
fn drive(mut driver: Command, url: &str, shots: &Path, flags: &[&str]) -> Json {
    driver_json(driver.arg(url).arg(shots).args(flags))
}

/// Where a test's library is: `lib.db` in `dir`.
fn library_in(dir: &Path) -> String {
    dir.join("lib.db").to_str().expect("utf-8").to_owned()
}

/// `promptexec ARGS --library LIBRARY` from the repository root, exit 0; its stdout.
fn cli(library: &str, args: &[&str]) -> String {
    let out = promptexec()
        .in_dir(repo_root())
        .args(args)
        .args(["--library", library])
        .run();
    out.expect_code(0);
    out.stdout
}

/// What `prompt render --file` reports for `text` as the `.prompt` file of prompt
/// `id`, each problem as `LINE:COL message`, in its order.
fn render_problems(dir: &Path, id: &str, text: &str) -> Vec<String> {
    let file = dir.join(format!("{id}.prompt"));
    std::fs::write(&file, text).expect("write the draft");
    let path = file.to_str().expect("utf-8 path");
    let out = promptexec()
        .args(["prompt", "render", "--file", path])
        .run();
    let out = out.expect_code(2);
    let problems: Vec<String> = out
        .stderr
        .lines()
        .filter_map(|l| l.strip_prefix(&format!("{path}:")))
        .map(|line| {
            let (line_no, rest) = line.split_once(':').expect("LINE:");
            let (col, message) = rest.split_once(": ").expect("COL: message");
            format!("{line_no}:{col} {message}")
        })
        .collect();
    assert!(!problems.is_empty(), "no problem at {path}: {}", out.stderr);
    problems
}

/// Two saved suite reports under `dir`: `r1.json` with `delayed-order` failed, a
/// minute older than `r2.json` where every scenario passed.
fn saved_reports(dir: &Path) {
    let runs = [
        ("r1.json", "tests/fixtures/html_report/scenarios", 1, 60),
        ("r2.json", "examples/scenarios", 0, 0),
    ];
    for (name, scenarios, code, age) in runs {
        let path = dir.join(name);
        example_config()
            .args([
                "run",
                "examples/assistant.pack.json",
                scenarios,
                "-q",
                "--json",
            ])
            .arg(&path)
            .run()
            .expect_code(code);
        let file = std::fs::File::options()
            .write(true)
            .open(&path)
            .expect("the report");
        let at = SystemTime::now() - Duration::from_secs(age);
        file.set_modified(at).expect("set its time");
    }
}

fn assert_quiet(found: &Json) {
    for key in ["requests", "consoleErrors", "pageErrors"] {
        assert_eq!(found[key], json!([]), "{key}: {found:#}");
    }
}

#[test]
fn the_page_edits_the_library_and_shows_stats_and_reports_in_chromium() {
    let Some(browser) = driver() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let library = library_in(dir.path());
    let reports = dir.path().join("reports");
    std::fs::create_dir(&reports).expect("reports folder");
    for file in ["greeting.prompt", "refund-policy.prompt", "markup.prompt"] {
        cli(&library, &["prompt", "add", &format!("{FIXTURES}/{file}")]);
    }
    cli(&library, &["prompt", "lock", "refund-policy"]);
    cli(&library, &["prompt", "rate", "greeting", "4"]);
    cli(
        &library,
        &["prompt", "render", "greeting", "--var", "customer=Dana"],
    );
    saved_reports(&reports);

    let mut server = UiServer::start(&[
        "--library",
        &library,
        "--reports",
        reports.to_str().expect("utf-8"),
    ]);
    let shots = repo_root().join("target/ui-screenshots");
    let flags = [
        "--prompt",
        "greeting",
        "--search",
        "Greets",
        "--misspell",
        "customer=custmer",
        "--inputs",
        "customer=Dana",
        "--markup",
        "markup",
        "--locked",
        "refund-policy",
        "--new",
        "welcome",
        "--history",
        "delayed-order",
    ];
    let found = drive(browser, &server.url, &shots, &flags);
    assert_quiet(&found);
    // The one answer with a failure status: the locked prompt's save.
    assert_eq!(
        found["failedLoads"],
        json!(["409 /api/prompts/refund-policy"])
    );

    // The library: listed by rank, searched, filtered by a tag, sorted by id.
    let by_id = json!(["greeting", "markup", "refund-policy"]);
    assert_eq!(found["listed"], by_id, "the rated prompt first, then by id");
    assert_eq!(
        found["tags"],
        json!(["<b>bold</b>", "greeting", "policy", "support"])
    );
    assert_eq!(found["found"], json!(["greeting"]));
    assert_eq!(found["taggedLocked"], json!(["refund-policy"]));
    assert_eq!(found["sortedById"], by_id);
    // The prompt opened: its one version and the render recorded in its audit log.
    assert_eq!(found["versions"], json!([1]));
    let audit = &found["audit"][0];
    assert_eq!(audit[3], "render", "{audit}");
    // The customer's name is a sensitive slot: the audit log never held it.
    assert_eq!(audit[5], r#"{"customer":"[redacted]"}"#);

    // The editor: the preview with the inputs typed over the defaults.
    let preview = &found["preview"];
    assert_eq!(preview[0][0], "system", "{preview}");
    assert!(preview[0][1].as_str().expect("text").contains("Be warm."));
    assert_eq!(preview[1][0], "user", "{preview}");
    assert!(
        preview[1][1]
            .as_str()
            .expect("text")
            .contains("Hello, I am Dana.")
    );
    // A misspelt variable: the error where the command line places it; clicking
    // it puts the caret there.
    let edited = found["editedText"].as_str().expect("the edited text");
    let problems = render_problems(dir.path(), "greeting", edited);
    assert_eq!(found["errors"], json!(problems));
    assert_eq!(found["previewOkWithError"], "0");
    let error = problems
        .iter()
        .find(|p| !p.contains(" warning: "))
        .expect("an error among the problems");
    let (place, _) = error.split_once(' ').expect("LINE:COL");
    let (line, col) = place.split_once(':').expect("LINE:COL");
    assert_eq!(found["caret"][0].to_string(), line);
    assert_eq!(found["caret"][1].to_string(), col);
    // Columns count characters: the line's emoji is two UTF-16 units in the page.
    let (line, col): (usize, usize) = (line.parse().expect("line"), col.parse().expect("col"));
    let line_start: usize = edited
        .split_inclusive('\n')
        .take(line - 1)
        .map(|l| l.encode_utf16().count())
        .sum();
    let line_text = edited.lines().nth(line - 1).expect("the line");
    let within: usize = line_text.chars().take(col - 1).map(char::len_utf16).sum();
    assert_eq!(found["caretOffset"], line_start + within, "{edited}");
    assert!(
        found["lint"]
            .as_array()
            .expect("lint")
            .contains(&json!("PL006")),
        "the undeclared variable is a lint finding too: {}",
        found["lint"]
    );
    // A late answer to an older text does not replace the newer one's preview.
    let late = found["afterLateAnswer"].as_str().expect("preview");
    assert!(late.contains("Second draft:, I am Dana."), "{late}");
    assert!(!late.contains("First draft"), "{late}");
    // Typed key by key, the preview shows the last text; then saved once, and
    // again unchanged.
    assert!(
        found["typedPreview"]
            .as_str()
            .expect("preview")
            .ends_with("Thanks for waiting."),
        "{}",
        found["typedPreview"]
    );
    assert_eq!(found["errorsAfterFix"], json!([]));
    assert_eq!(found["saved"], "saved version 2");
    assert_eq!(found["savedAgain"], "unchanged (version 2)");
    assert_eq!(found["draftDiff"], "(no difference)\n");
    assert_eq!(found["versionsAfterSave"], json!([1, 2]));
    assert_eq!(found["versionDiff"], json!(["+ Thanks for waiting.\n"]));
    // Markup in a prompt's fields and text is shown as text, never made elements.
    assert_eq!(found["markup"], 0);
    assert_eq!(
        found["markupTitle"],
        r#"<img src=x onerror="document.title='pwned'">"#
    );
    assert_eq!(found["title"], "promptexec ui");
    // The locked prompt: refused, with the library's reason.
    let refused = found["lockedSave"].as_str().expect("the refusal");
    assert!(refused.contains("`refund-policy` is locked"), "{refused}");
    assert_eq!(found["lockedSaveClass"], "bad");
    assert_eq!(found["created"], "saved version 1");
    assert_eq!(found["createdUrl"], "#edit/welcome");

    // Stats: the rating given on the command line, the use recorded by the render.
    let stats: Json = serde_json::from_str(&cli(
        &library,
        &["prompt", "stats", "greeting", "--format", "json"],
    ))
    .expect("stats JSON");
    assert_eq!(stats[0]["rating"], 4.0);
    assert_eq!(
        found["stats"]["greeting@1"],
        json!({"rating": "4.00 of 5 (1 rating)", "uses": "1 (render 1)", "rank": "rank 1"})
    );
    assert_eq!(found["stats"]["greeting@2"]["rating"], "unrated");
    let day = &stats[0]["per_day"][0];
    assert_eq!(found["usesChart"], json!([[day["day"], day["uses"]]]));
    assert_eq!(found["statsNarrowed"], json!(["greeting@1", "greeting@2"]));

    // Reports: newest first, each shown in the frame; the diff of the two.
    assert_eq!(found["reports"], json!(["r2.json", "r1.json"]));
    let scenarios = [
        "catalogue-cleanup",
        "delayed-order",
        "large-refund",
        "lookup-outage",
        "store-hours",
    ];
    assert_eq!(
        found["reportFrame"],
        json!({"kind": "suite", "rows": scenarios})
    );
    assert_eq!(found["diffFrame"]["kind"], "diff");
    assert_eq!(found["diffShown"], "diff r1.json → r2.json");
    let history = &found["historyItems"];
    assert_eq!(history["delayed-order"], "flaky", "{history}");
    assert_eq!(history["store-hours"], "steady", "{history}");
    assert_eq!(
        found["historyChart"],
        json!([["r1.json", "failed"], ["r2.json", "passed"]])
    );

    // Every view in four screenshots, none wider than the phone.
    let taken = found["shots"].as_array().expect("shots");
    assert_eq!(taken.len(), 6 * 4, "{taken:?}");
    for shot in taken {
        let bytes = std::fs::read(shot.as_str().expect("a path")).expect("a screenshot");
        assert!(bytes.starts_with(b"\x89PNG"), "{shot}");
    }
    assert_eq!(found["overflow"], json!({}));

    // The library holds what the page saved.
    let versions = |id: &str| -> Json {
        let listed: Json = serde_json::from_str(&cli(
            &library,
            &["prompt", "history", id, "--format", "json"],
        ))
        .expect("history JSON");
        listed
            .as_array()
            .expect("versions")
            .iter()
            .map(|v| v["version"].clone())
            .collect()
    };
    assert_eq!(versions("greeting"), json!([1, 2]));
    assert_eq!(versions("refund-policy"), json!([1]));
    assert_eq!(versions("welcome"), json!([1]));
    assert_eq!(server.stop(Signal::SIGTERM).code(), Some(0));
}

#[test]
fn without_a_reports_folder_the_page_says_how_to_name_one() {
    let Some(browser) = driver() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let library = library_in(dir.path());
    cli(
        &library,
        &["prompt", "add", &format!("{FIXTURES}/greeting.prompt")],
    );
    let mut server = UiServer::start(&["--library", &library]);
    let shots = dir.path().join("shots");
    let flags = ["--view", "#reports", "#reports-none"];
    let found = drive(browser, &server.url, &shots, &flags);
    assert_quiet(&found);
    assert_eq!(found["text"], "start with --reports DIR to see reports");
    assert_eq!(server.stop(Signal::SIGTERM).code(), Some(0));
}
