//! A suite writes several reports in one run: `--json`, `--junit` and `--markdown`
//! files beside the human stream, each whole, and the Markdown a short summary that
//! names what failed and why.

use std::fs;

use crate::suite::{scenario, suite_in};
use crate::util::promptexec;

const FAILING: &str = r#"  turns:
    - role: user
      content: "Say ping."
      assertions:
        - { type: content_includes, params: { patterns: [pong] }, message: "says | pong" }
"#;

const PASSING: &str = r#"  turns:
    - role: user
      content: "Say ping."
      assertions:
        - { type: content_includes, params: { patterns: [Done] } }
"#;

#[test]
fn json_junit_and_markdown_are_written_beside_the_human_report() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = suite_in(dir.path())
        .file("bad.scenario.yaml", scenario("bad-ping", "main", FAILING))
        .file("good.scenario.yaml", scenario("good-ping", "main", PASSING))
        .args(["bad.scenario.yaml", "good.scenario.yaml"])
        .args([
            "--json",
            "out/run.json",
            "--junit",
            "out/run.xml",
            "--markdown",
            "summary.md",
        ])
        .run();
    out.expect_code(1)
        .stderr_has("bad-ping")
        .stderr_has("suite: 2 scenario(s) in ");

    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("out/run.json")).expect("json"))
            .expect("a JSON report");
    assert_eq!(json["summary"]["exit_code"], 1, "{json:#}");
    assert_eq!(json["summary"]["failed"], 1, "{json:#}");
    let xml = fs::read_to_string(dir.path().join("out/run.xml")).expect("junit");
    let doc = roxmltree::Document::parse(&xml).expect("JUnit XML");
    assert!(
        doc.descendants().any(|n| n.has_tag_name("failure")),
        "{xml}"
    );

    let markdown = fs::read_to_string(dir.path().join("summary.md")).expect("markdown");
    assert!(
        markdown.starts_with("### ❌ promptexec suite `"),
        "{markdown}"
    );
    assert!(
        markdown.contains("1 passed, 1 failed; exit 1`"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| scenario | result | why |"),
        "{markdown}"
    );
    let row = markdown
        .lines()
        .find(|l| l.starts_with("| `bad-ping` | failed | "))
        .unwrap_or_else(|| panic!("no row for bad-ping in {markdown}"));
    assert!(row.contains("says \\| pong"), "{row}");
    assert!(!markdown.contains("good-ping"), "{markdown}");
}

#[test]
fn a_suite_that_passes_is_its_headline_alone() {
    let dir = tempfile::tempdir().expect("temp dir");
    suite_in(dir.path())
        .file("good.scenario.yaml", scenario("good-ping", "main", PASSING))
        .args(["good.scenario.yaml", "--markdown", "summary.md"])
        .run()
        .expect_code(0);
    let markdown = fs::read_to_string(dir.path().join("summary.md")).expect("markdown");
    assert!(
        markdown.starts_with("### ✅ promptexec suite `"),
        "{markdown}"
    );
    assert_eq!(markdown.lines().count(), 3, "{markdown}");
}

#[test]
fn report_files_are_for_suites() {
    promptexec()
        .args([
            "-c",
            "runtimeconfig.example.yaml",
            "run",
            "examples/assistant.pack.json",
        ])
        .args(["--message", "hi", "--markdown", "x.md"])
        .in_dir(crate::util::repo_root())
        .run()
        .expect_code(2)
        .stderr_has("--markdown applies to a suite of scenarios");
}
