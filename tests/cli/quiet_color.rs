//! `-q` leaves only errors on stderr in every command, and `--color` / `NO_COLOR`
//! decide whether status words and diagnostics are coloured.

use serde_json::Value as Json;

use crate::util::{
    Invocation, Outcome, README_RUN, fixtures, hook_event, promptexec, readme_run, repo_root,
    run_all,
};

const ESC: &str = "\x1b[";

/// `promptexec GLOBAL -c runtimeconfig.example.yaml ARGS` from the repository root.
fn invocation(global: &[&str], args: &[&str]) -> Invocation {
    promptexec()
        .in_dir(repo_root())
        .args(global)
        .args(["-c", "runtimeconfig.example.yaml"])
        .args(args)
}

#[track_caller]
fn example(global: &[&str], args: &[&str]) -> Outcome {
    invocation(global, args).run()
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

/// The README's run, after its `-c runtimeconfig.example.yaml`.
const RUN: &[&str] = README_RUN.split_at(2).1;

/// One run of a matrix: global flags, command, environment.
type Run<'a> = (&'a [&'a str], &'a [&'a str], &'a [(&'a str, &'a str)]);

/// The outcomes of `runs`, overlapping; the README run itself (`RUN` with no flag,
/// colour off as in every test) is the shared one instead of one more run.
fn outcomes(runs: &[Run]) -> Vec<Outcome> {
    let is_readme_run = |(global, command, env): &Run| {
        global.is_empty() && *command == RUN && env.iter().all(|&pair| pair == ("NO_COLOR", "1"))
    };
    let fresh = runs
        .iter()
        .filter(|run| !is_readme_run(run))
        .map(|(global, command, env)| invocation(global, command).envs(env))
        .collect();
    let mut fresh = run_all(fresh).into_iter();
    runs.iter()
        .map(|run| match is_readme_run(run) {
            true => readme_run().clone(),
            false => fresh.next().expect("one outcome per fresh run"),
        })
        .collect()
}

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
    // Every command runs loud and quiet, overlapping: the runs do not depend on each other.
    let runs: Vec<Run> = commands
        .iter()
        .flat_map(|command| {
            [
                (&[][..], *command, &[][..]),
                (&["-q"][..], *command, &[][..]),
            ]
        })
        .collect();
    let mut results = outcomes(&runs).into_iter();
    for command in commands {
        let (Some(loud), Some(quiet)) = (results.next(), results.next()) else {
            unreachable!("two outcomes per command")
        };
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
    let out = promptexec()
        .args(&["-q", "-c", "config/many_problems.yaml", "validate"])
        .run();
    assert_eq!(out.code, 2);
    out.stderr_has("config/many_problems.yaml:9:18: spec.tools.weather.exec.command");
    out.stderr_lacks("warning:");
    out.stderr_lacks("validate: 5 errors");

    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("warn.yaml"),
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  hooks:\n    sink:\n      command: sh\n      args: [-c, cat]\n      hook: eval\n      phases: [before_call]\n",
    )
    .expect("write config");
    let loud = promptexec()
        .in_dir(dir.path())
        .args(&["-c", "warn.yaml", "validate"])
        .run();
    loud.stderr_has("warning:");
    let quiet = promptexec()
        .in_dir(dir.path())
        .args(&["-q", "-c", "warn.yaml", "validate"])
        .run();
    quiet.expect_code(0);
    assert_eq!(quiet.stderr, "");
}

#[test]
fn quiet_library_commands_print_only_their_answer() {
    let dir = tempfile::tempdir().expect("temp dir");
    let key = dir.path().join("key").display().to_string();
    let loud = promptexec()
        .in_dir(dir.path())
        .args(&["prompt", "keygen", "--out", &key])
        .run();
    loud.stderr_has("wrote the private key");
    let key = dir.path().join("key2").display().to_string();
    let quiet = promptexec()
        .in_dir(dir.path())
        .args(&["-q", "prompt", "keygen", "--out", &key])
        .run();
    quiet.expect_code(0);
    assert_eq!(quiet.stderr, "");
    assert!(quiet.stdout.starts_with("did:key:"), "{}", quiet.stdout);

    let library = dir.path().join("library.db").display().to_string();
    let nope = fixtures().join("library/nope.json").display().to_string();
    let failed = promptexec()
        .in_dir(dir.path())
        .args(&["-q", "prompt", "add", &nope, "--library", &library])
        .run();
    assert_ne!(failed.code, 0);
    failed.stderr_has("nope.json");
}

#[test]
fn color_always_paints_the_status_words_of_run_but_not_its_output_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let report = dir.path().join("report.txt").display().to_string();
    let mut args = RUN.to_vec();
    args.extend(["--output", &report]);
    let out = example(&["--color", "always"], &args);
    out.expect_code(0);
    out.stderr_has("tool lookup_order (call_1_lookup_order) \x1b[32mok\x1b[0m in");
    out.stderr_has("\x1b[32mpassed\x1b[0m");
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
    out.expect_code(0);
    out.stderr_has("\x1b[32mallowed\x1b[0m");
    assert!(!out.stdout.contains(ESC), "{}", out.stdout);

    let event = r#"{"messages": [{"role": "user", "content": "My SSN is 123-45-6789"}]}"#;
    let out = example(
        &["--color", "always"],
        &hook_event("pii_guard", "before_call", event),
    );
    out.expect_code(1);
    out.stderr_has("\x1b[1;31mdenied\x1b[0m");

    let shell = r#"{"tool": "shell", "arguments": {"command": "rm -rf /"}}"#;
    let out = example(
        &["--color", "always"],
        &hook_event("review_gate", "before_tool", shell),
    );
    out.stderr_has("\x1b[1;31mdeny_tool\x1b[0m");
}

#[test]
fn color_always_paints_diagnostics_and_errors() {
    let out = promptexec()
        .args(&[
            "--color",
            "always",
            "-c",
            "config/many_problems.yaml",
            "validate",
        ])
        .run();
    assert_eq!(out.code, 2);
    out.stderr_has(
        "\x1b[1;31mconfig/many_problems.yaml:9:18:\x1b[0m spec.tools.weather.exec.command",
    );
    out.stderr_has("\x1b[33mwarning:\x1b[0m spec.hooks.eval_sink");

    let out = example(
        &["--color", "always"],
        &["validate", "--pack", "examples/assistant.pack.json"],
    );
    out.expect_code(0);
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
    let settings = [
        (&["--color", "never"][..], unset),
        (&["--color", "auto"][..], no_color),
        (&[][..], no_color),
        (&[][..], unset),
    ];
    // Every command under every setting, overlapping: the runs are independent.
    let runs: Vec<Run> = commands
        .iter()
        .flat_map(|command| settings.map(|(global, env)| (global, *command, env)))
        .collect();
    let mut results = outcomes(&runs).into_iter();
    for command in commands {
        for (global, env) in settings {
            let out = results.next().expect("one outcome per run");
            assert!(
                !out.stderr.contains(ESC) && !out.stdout.contains(ESC),
                "{global:?} {env:?} {command:?}: {}",
                out.stderr
            );
        }
    }
    let out = promptexec()
        .args(&[
            "--color",
            "never",
            "-c",
            "config/many_problems.yaml",
            "validate",
        ])
        .run();
    assert!(!out.stderr.contains(ESC), "{}", out.stderr);
    out.stderr_has("config/many_problems.yaml:9:18: spec.tools");
}
