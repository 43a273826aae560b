//! A tool's answer with `"error": null` or `"error": ""` beside its result is a success,
//! one-shot and in server mode, as PromptKit reads it.

use std::path::PathBuf;

use serde_json::{Value as Json, json};

use crate::util::{fixtures, promptexec};

fn answers_dir() -> PathBuf {
    fixtures().join("answers")
}

#[track_caller]
fn invoke(tool: &str, args: &str) -> Json {
    let out = promptexec()
        .in_dir(answers_dir())
        .args(&["-c", "answers.yaml", "invoke-tool", tool, "--args", args])
        .run();
    out.expect_code(0);
    out.json()
}

#[test]
fn a_null_or_empty_error_beside_a_result_is_success_one_shot() {
    assert_eq!(
        invoke("one_shot", r#"{"error": null}"#),
        json!({"ok": true})
    );
    assert_eq!(invoke("one_shot", r#"{"error": ""}"#), json!({"ok": true}));
}

#[test]
fn a_null_or_empty_error_beside_a_result_is_success_in_server_mode() {
    assert_eq!(invoke("server", r#"{"error": null}"#), json!({"ok": true}));
    assert_eq!(invoke("server", r#"{"error": ""}"#), json!({"ok": true}));
    // The same beside `result` in the JSON-RPC reply itself.
    let envelope = r#"{"error": null, "envelope": true}"#;
    assert_eq!(invoke("server", envelope), json!({"ok": true}));
}

#[test]
fn a_real_error_is_still_an_error() {
    let out = promptexec()
        .in_dir(answers_dir())
        .args(&[
            "-c",
            "answers.yaml",
            "invoke-tool",
            "one_shot",
            "--args",
            r#"{"error": "no such order"}"#,
        ])
        .run();
    out.expect_code(1);
    out.stderr_has("no such order");
}
