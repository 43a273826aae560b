//! An Arena project's `kind: Eval` files: each is a test case over the saved
//! conversation it names, its assertions and judges checked on the saved answers
//! and reported like a scenario.

use serde_json::Value as Json;

use crate::util::{fixtures, promptexec, scenario_assertions};

fn run(arena: &str, format: &str) -> crate::util::Outcome {
    promptexec()
        .in_dir(fixtures().join("arena_evals"))
        .args(["run", arena, "--format", format])
        .run()
}

/// Each assertion of scenario `id` in a JSON report: (id, type, outcome).
fn assertions(report: &Json, id: &str) -> Vec<(String, String, String)> {
    scenario_assertions(report, id, ["id", "type", "outcome"])
        .into_iter()
        .map(|[id, kind, outcome]| (id, kind, outcome))
        .collect()
}

#[test]
fn eval_files_over_saved_conversations_pass_with_the_judges_answer() {
    let out = run("arena.yaml", "json");
    out.expect_code(0);
    let report = out.json();
    assert_eq!(report["summary"]["scenarios"], 2, "{report}");
    assert_eq!(report["summary"]["passed"], 2, "{report}");
    // A PromptArena run output: each saved answer checked, and the judge asked.
    let triple = |id: &str, kind: &str| (id.to_string(), kind.to_string(), "passed".to_string());
    assert_eq!(
        assertions(&report, "support-output"),
        [
            triple("turn-1.1", "content_includes"),
            triple("turn-2.1", "content_includes"),
            triple("conversation.1", "assertion"),
        ]
    );
    // A session recording, named by its file's `metadata.name`.
    assert_eq!(
        assertions(&report, "weather"),
        [triple("conversation.1", "contains_any")]
    );
}

#[test]
fn an_eval_whose_saved_answers_miss_fails_the_run_in_junit() {
    let out = run("failing.arena.yaml", "junit");
    out.expect_code(1);
    let doc = roxmltree::Document::parse(&out.stdout).expect("well-formed XML");
    let failed: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .filter(|n| n.attribute("failures").is_some_and(|f| f != "0"))
        .filter_map(|n| n.attribute("name"))
        .collect();
    assert_eq!(failed, ["rude"], "{}", out.stdout);
    assert!(out.stdout.contains("missing: refund"), "{}", out.stdout);
}

#[test]
fn a_misspelt_key_in_an_eval_file_is_placed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let from = fixtures().join("arena_evals");
    std::fs::create_dir_all(dir.path().join("providers")).expect("folder");
    for file in [
        "arena.yaml",
        "judge-answers.yaml",
        "providers/judge.provider.yaml",
    ] {
        std::fs::copy(from.join(file), dir.path().join(file)).expect("copy");
    }
    std::fs::create_dir_all(dir.path().join("evals")).expect("folder");
    std::fs::write(
        dir.path().join("evals/support.eval.yaml"),
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Eval\nspec:\n  description: d\n  recordng:\n    path: r.json\n",
    )
    .expect("writes");
    std::fs::copy(
        from.join("evals/weather.eval.yaml"),
        dir.path().join("evals/weather.eval.yaml"),
    )
    .expect("copy");
    let out = promptexec()
        .in_dir(dir.path())
        .args(["run", "arena.yaml"])
        .run();
    out.expect_code(2);
    assert!(
        out.stderr.contains("evals/support.eval.yaml:5:3:")
            && out.stderr.contains("did you mean `recording`"),
        "{}",
        out.stderr
    );
}

#[test]
fn filter_picks_among_eval_files_by_id() {
    let out = promptexec()
        .in_dir(fixtures().join("arena_evals"))
        .args([
            "run",
            "failing.arena.yaml",
            "--filter",
            "support",
            "--format",
            "json",
        ])
        .run();
    out.expect_code(0);
    let report = out.json();
    assert_eq!(report["index"][0]["id"], "support-output", "{report}");
    assert_eq!(report["summary"]["scenarios"], 1, "{report}");
}
