//! Params written for PromptKit's checks: a key a built-in check does not read is a
//! warning with the name meant (an error under `--strict`), never a refusal;
//! `message` is the check's human message; PromptKit's names for params are read.

use crate::util::{Invocation, fixtures, promptexec};

/// One conversation with the lenient pack, against the bare mock (no config).
fn play(dir: &std::path::Path, extra: &[&str]) -> Invocation {
    promptexec()
        .in_dir(dir)
        .arg("run")
        .arg(fixtures().join("lenient/lenient.pack.json"))
        .args(["--message", "hi", "--format", "json"])
        .args(extra)
}

#[test]
fn a_pack_eval_with_params_promptkit_ignores_plays_with_a_warning_each() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let out = play(dir.path(), &[]).run();
    out.expect_code(1);
    out.stderr_has("warning: eval `says_hello`: `content_includes` takes no param `case_sensitive` (it takes patterns); it is ignored");
    out.stderr_has("eval `short`: `max_sentences` takes no param `max_sentnces`; did you mean `max_sentences`?");
    // `message` is the check's human message: never called unread.
    out.stderr_lacks("param `message`");
    let report = out.json_report();
    let evals = report["evals"].as_array().expect("evals in the report");
    let status = |id: &str| {
        evals
            .iter()
            .find(|e| e["eval_id"] == id)
            .map(|e| e["status"].as_str().unwrap_or_default().to_string())
            .unwrap_or_else(|| panic!("no eval `{id}` in {report:#}"))
    };
    // The bare mock answers "Mock response": one sentence, no greeting.
    assert_eq!(status("short"), "passed", "{report:#}");
    assert_eq!(status("says_hello"), "failed", "{report:#}");
}

#[test]
fn under_strict_an_unread_param_stops_the_run() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let out = play(dir.path(), &["--strict"]).run();
    out.expect_code(2);
    out.stderr_has("takes no param `case_sensitive`");
}

#[test]
fn eval_warns_of_an_unread_param_and_judges() {
    let out = promptexec()
        .args(["eval", "content_includes", "--content", "Hello World"])
        .args([
            "--params",
            r#"{"patterns": ["world"], "case_sensitive": true, "message": "m"}"#,
        ])
        .run();
    out.expect_code(0);
    out.stderr_has("warning: --params: `content_includes` takes no param `case_sensitive` (it takes patterns); it is ignored");
    out.stderr_lacks("param `message`");
}

/// `pii_leakage` runs as PromptKit's offline pre-pass: as an eval and an assertion,
/// as well as a guardrail.
#[test]
fn pii_leakage_is_a_check_of_its_own() {
    let judge = |content: &str| {
        promptexec()
            .args(["eval", "pii_leakage", "--content", content])
            .args(["--params", r#"{"rubric": "no personal data"}"#])
            .run()
    };
    let leaked = judge("Write to dana@example.com");
    leaked.expect_code(1);
    leaked.stderr_has("the text holds an email address (offline pre-pass)");
    leaked.stderr_has("`pii_leakage` takes no param `rubric`");
    judge("Your order ships on Friday.").expect_code(0);
}

/// PromptKit's `require_args` on `tools_called`: a call made with no arguments does
/// not count.
#[test]
fn tools_called_reads_require_args() {
    let judge = |args: &str| {
        let context =
            format!(r#"{{"tool_calls": [{{"name": "search", "args": {args}, "result": ""}}]}}"#);
        promptexec()
            .args(["eval", "tools_called", "--content", "done"])
            .args([
                "--params",
                r#"{"tool_names": ["search"], "require_args": true}"#,
            ])
            .args(["--context", &context])
            .run()
    };
    let bare = judge("{}");
    bare.expect_code(1);
    bare.stderr_lacks("takes no param");
    judge(r#"{"q": "rust"}"#).expect_code(0);
}

/// `max_sentences` is PromptKit's alias of `max`, as a check name and as a param.
#[test]
fn max_sentences_reads_as_max() {
    let judge = |text: &str| {
        promptexec()
            .args(["eval", "sentence_count", "--content", text])
            .args(["--params", r#"{"max_sentences": 1}"#])
            .run()
    };
    let ok = judge("One sentence.");
    ok.expect_code(0);
    ok.stderr_lacks("takes no param");
    judge("One. Two. Three.").expect_code(1);
}

/// `case_sensitive: false` (PromptKit's content checks always ignore case) is
/// warned about and the check judges as PromptKit does.
#[test]
fn content_includes_with_case_sensitive_false_judges() {
    let out = promptexec()
        .args(["eval", "content_includes", "--content", "HELLO there"])
        .args([
            "--params",
            r#"{"patterns": ["hello"], "case_sensitive": false}"#,
        ])
        .run();
    out.expect_code(0);
    out.stderr_has("takes no param `case_sensitive`");
}
