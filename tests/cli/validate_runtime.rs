//! `validate` catches extensions that would fail to start: a command not in PATH or
//! not executable, and a script an interpreter is given that does not exist.

use crate::util::{promptexec, validate_example};

#[test]
fn extensions_that_cannot_start_are_errors_at_the_offending_value() {
    let out = promptexec()
        .args(&["validate", "-c", "launch/launch.yaml"])
        .run();
    out.expect_code(2);
    let all: Vec<&str> = out.stderr.lines().collect();
    // Each diagnostic is followed by its source line, between a gutter and carets.
    let lines: Vec<&str> = all.iter().step_by(4).copied().collect();
    assert_eq!(
        all[5..8],
        [
            "   |",
            "21 |         command: no-such-interpreter-here",
            "   |                  ^^^^^^^^^^^^^^^^^^^^^^^^"
        ],
        "{}",
        out.stderr
    );
    let expected_starts = [
        "launch/launch.yaml:14:22: spec.tools.absent_script.exec.args: script `./scripts/absent.py` does not exist",
        "launch/launch.yaml:21:18: spec.tools.not_on_path.exec.command: `no-such-interpreter-here` is not found in PATH",
        "launch/launch.yaml:24:16: spec.evals.not_executable.command:",
        "launch/launch.yaml:28:14: spec.hooks.gate.args: script `hooks/gate.sh` does not exist",
    ];
    for (line, start) in lines.iter().zip(expected_starts) {
        assert!(
            line.starts_with(start),
            "{line}\nexpected: {start}\nall:\n{}",
            out.stderr
        );
    }
    assert!(lines[2].contains("is not executable"), "{}", out.stderr);
    assert_eq!(
        lines.get(4),
        Some(&"validate: 4 errors, 0 warnings"),
        "{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains("present") && !out.stderr.contains("inline"),
        "a script found from working_dir and inline code are fine: {}",
        out.stderr
    );
}

#[test]
fn an_empty_path_makes_bare_commands_unfindable() {
    let out = promptexec()
        .args(["validate", "-c", "launch/launch.yaml"])
        .env("PATH", "")
        .run();
    out.expect_code(2);
    out.stderr_has("spec.tools.present.exec.command: `python3` is not found in PATH");
}

#[test]
fn the_bundled_example_passes_the_start_checks_strictly() {
    let out = validate_example(&["--strict"]);
    out.expect_code(0);
}
