//! `-q` leaves only errors on stderr in every command, and `--color` / `NO_COLOR`
//! decide whether status words and diagnostics are coloured.

use serde_json::Value as Json;

use crate::util::{Outcome, fixtures, repo_root, run_env, run_in};

const ESC: &str = "\x1b[";

#[track_caller]
fn example(global: &[&str], args: &[&str]) -> Outcome {
    example_env(global, args, &[])
}

#[track_caller]
fn example_env(global: &[&str], args: &[&str], env: &[(&str, &str)]) -> Outcome {
    let mut all = global.to_vec();
    all.extend(["-c", "runtimeconfig.example.yaml"]);
    all.extend_from_slice(args);
    run_env(&repo_root(), &all, env)
}

/// What a script reads on stdout, without the timings that differ between runs.
fn machine(stdout: &str) -> Vec<Json> {
    let documents: Vec<Json> = match serde_json::from_str(stdout) {
        Ok(one) => vec![one],
        Err(_) => stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or(Json::Null))
            .collect(),
    };
    documents
        .into_iter()
        .map(|mut doc| {
            if let Some(object) = doc.as_object_mut() {
                object.remove("duration_ms");
            }
            doc
        })
        .collect()
}

const RUN: &[&str] = &[
    "run",
    "examples/assistant.pack.json",
    "--var",
    "customer_name=Dana",
    "--message",
    "Hi, where is my order A-1002?",
];

#[test]
fn quiet_commands_that_answer_leave_stderr_empty_and_stdout_as_it_was() {
    let commands: &[&[&str]] = &[
        &["validate", "--pack", "examples/assistant.pack.json"],
        &[
            "invoke-tool",
            "lookup_order",
            "--args",
            r#"{"order_id": "Z-9"}"#,
        ],
        &["hook", "test", "pii_guard", "--all-phases"],
        &["hook", "test", "review_gate", "--phase", "before_tool"],
        RUN,
        &[
            "eval",
            "contains",
            "--content",
            "hello there",
            "--params",
            r#"{"patterns": ["hello"]}"#,
        ],
    ];
    for command in commands {
        let loud = example(&[], command);
        let quiet = example(&["-q"], command);
        assert!(
            !loud.stderr.is_empty(),
            "{command:?} says something without -q"
        );
        assert_eq!(quiet.code, loud.code, "{command:?}: {}", quiet.stderr);
        assert_eq!(quiet.stderr, "", "{command:?}");
        assert_eq!(
            machine(&quiet.stdout),
            machine(&loud.stdout),
            "{command:?}: -q leaves stdout alone"
        );
    }
}

#[test]
fn quiet_still_prints_the_error_that_stopped_a_command() {
    let commands: &[(&[&str], &str)] = &[
        (
            &["invoke-tool", "no_such_tool", "--args", "{}"],
            "no_such_tool",
        ),
        (
            &["hook", "test", "pii_guard", "--event", "not json"],
            "--event is not valid JSON",
        ),
        (
            &["run", "examples/nope.pack.json", "--message", "hi"],
            "nope.pack.json",
        ),
        (
            &["eval", "no_such_check", "--content", "x"],
            "no_such_check",
        ),
        (
            &["prompt", "render", "--pack", "examples/nope.pack.json"],
            "nope.pack.json",
        ),
    ];
    for (command, expected) in commands {
        let out = example(&["-q"], command);
        assert_eq!(out.code, 2, "{command:?}: {}", out.stderr);
        assert!(out.stderr.contains(expected), "{command:?}: {}", out.stderr);
    }
}

#[test]
fn quiet_validate_keeps_error_diagnostics_and_drops_warnings() {
    let out = run_in(
        &fixtures(),
        &["-q", "-c", "config/many_problems.yaml", "validate"],
    );
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("config/many_problems.yaml:9:18: spec.tools.weather.exec.command"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("warning:"), "{}", out.stderr);
    assert!(!out.stderr.contains("validate: 5 errors"), "{}", out.stderr);

    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("warn.yaml"),
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  hooks:\n    sink:\n      command: sh\n      args: [-c, cat]\n      hook: eval\n      phases: [before_call]\n",
    )
    .expect("write config");
    let loud = run_in(dir.path(), &["-c", "warn.yaml", "validate"]);
    assert!(loud.stderr.contains("warning:"), "{}", loud.stderr);
    let quiet = run_in(dir.path(), &["-q", "-c", "warn.yaml", "validate"]);
    assert_eq!(quiet.code, 0, "{}", quiet.stderr);
    assert_eq!(quiet.stderr, "");
}

#[test]
fn quiet_library_commands_print_only_their_answer() {
    let dir = tempfile::tempdir().expect("temp dir");
    let key = dir.path().join("key").display().to_string();
    let loud = run_in(dir.path(), &["prompt", "keygen", "--out", &key]);
    assert!(
        loud.stderr.contains("wrote the private key"),
        "{}",
        loud.stderr
    );
    let key = dir.path().join("key2").display().to_string();
    let quiet = run_in(dir.path(), &["-q", "prompt", "keygen", "--out", &key]);
    assert_eq!(quiet.code, 0, "{}", quiet.stderr);
    assert_eq!(quiet.stderr, "");
    assert!(quiet.stdout.starts_with("did:key:"), "{}", quiet.stdout);

    let library = dir.path().join("library.db").display().to_string();
    let nope = fixtures().join("library/nope.json").display().to_string();
    let failed = run_in(
        dir.path(),
        &["-q", "prompt", "add", &nope, "--library", &library],
    );
    assert_ne!(failed.code, 0);
    assert!(failed.stderr.contains("nope.json"), "{}", failed.stderr);
}

#[test]
fn color_always_paints_the_status_words_of_run_but_not_its_output_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let report = dir.path().join("report.txt").display().to_string();
    let mut args = RUN.to_vec();
    args.extend(["--output", &report]);
    let out = example(&["--color", "always"], &args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("tool lookup_order (call_1_lookup_order) \x1b[32mok\x1b[0m in"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("\x1b[32mpassed\x1b[0m"),
        "{}",
        out.stderr
    );
    let written = std::fs::read_to_string(&report).expect("the report was written");
    assert!(written.contains(") ok in"), "{written}");
    assert!(!written.contains(ESC), "{written}");
}

#[test]
fn color_always_paints_hook_test_verdicts_and_leaves_stdout_plain() {
    let out = example(
        &["--color", "always"],
        &["hook", "test", "pii_guard", "--phase", "before_call"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("\x1b[32mallowed\x1b[0m"),
        "{}",
        out.stderr
    );
    assert!(!out.stdout.contains(ESC), "{}", out.stdout);

    let event = r#"{"messages": [{"role": "user", "content": "My SSN is 123-45-6789"}]}"#;
    let out = example(
        &["--color", "always"],
        &[
            "hook",
            "test",
            "pii_guard",
            "--phase",
            "before_call",
            "--event",
            event,
        ],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("\x1b[1;31mdenied\x1b[0m"),
        "{}",
        out.stderr
    );

    let shell = r#"{"tool": "shell", "arguments": {"command": "rm -rf /"}}"#;
    let out = example(
        &["--color", "always"],
        &[
            "hook",
            "test",
            "review_gate",
            "--phase",
            "before_tool",
            "--event",
            shell,
        ],
    );
    assert!(
        out.stderr.contains("\x1b[1;31mdeny_tool\x1b[0m"),
        "{}",
        out.stderr
    );
}

#[test]
fn color_always_paints_diagnostics_and_errors() {
    let out = run_in(
        &fixtures(),
        &[
            "--color",
            "always",
            "-c",
            "config/many_problems.yaml",
            "validate",
        ],
    );
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains(
            "\x1b[1;31mconfig/many_problems.yaml:9:18:\x1b[0m spec.tools.weather.exec.command"
        ),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("\x1b[33mwarning:\x1b[0m spec.hooks.eval_sink"),
        "{}",
        out.stderr
    );

    let out = example(
        &["--color", "always"],
        &["validate", "--pack", "examples/assistant.pack.json"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.starts_with("\x1b[32mok:\x1b[0m "),
        "{}",
        out.stderr
    );

    let out = example(&["--color", "always"], &["hook", "test", "nope"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.starts_with("\x1b[1;31merror:\x1b[0m "),
        "{}",
        out.stderr
    );
}

#[test]
fn never_and_no_color_leave_every_stream_plain() {
    let commands: &[&[&str]] = &[
        RUN,
        &["hook", "test", "pii_guard", "--phase", "before_call"],
        &["hook", "test", "nope"],
    ];
    let no_color: &[(&str, &str)] = &[("NO_COLOR", "1")];
    let unset: &[(&str, &str)] = &[("NO_COLOR", "")];
    for command in commands {
        for (global, env) in [
            (&["--color", "never"][..], unset),
            (&["--color", "auto"][..], no_color),
            (&[][..], no_color),
            (&[][..], unset),
        ] {
            let out = example_env(global, command, env);
            assert!(
                !out.stderr.contains(ESC) && !out.stdout.contains(ESC),
                "{global:?} {env:?} {command:?}: {}",
                out.stderr
            );
        }
    }
    let out = run_in(
        &fixtures(),
        &[
            "--color",
            "never",
            "-c",
            "config/many_problems.yaml",
            "validate",
        ],
    );
    assert!(!out.stderr.contains(ESC), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("config/many_problems.yaml:9:18: spec.tools"),
        "{}",
        out.stderr
    );
}
