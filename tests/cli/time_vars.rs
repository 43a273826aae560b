//! PromptKit's time variables, `--now`, and placeholders no variable declares.

use crate::util::{Outcome, promptexec};

const PACK: &str = "packs/time_vars.json";
const WORKFLOW_WARNING: &str = "packs/time_vars.json:28:80: warning: placeholder `{{workflow_context}}` is not a declared variable of prompt `handoff`, so it needs a value when rendered (--var workflow_context=…)";

/// `prompt render --pack PACK --prompt PROMPT` followed by `rest`.
fn render(prompt: &str, rest: &[&str]) -> Outcome {
    promptexec()
        .args(["prompt", "render", "--pack", PACK, "--prompt", prompt])
        .args(rest)
        .run()
}

#[test]
fn time_variables_are_filled_from_now_in_utc() {
    let out = render(
        "plan",
        &[
            "--var",
            "customer=Dana",
            "--now",
            "2025-06-01T11:05:07+02:00",
        ],
    );
    out.expect_code(0);
    out.stdout_is("Plan the day for Dana.\nToday is Sunday, 2025-06-01 (June 2025); the hour is 09 UTC, exactly 2025-06-01T09:05:07Z.");
}

#[test]
fn the_clock_wins_over_a_declared_default_as_in_promptkit() {
    let out = render("defaulted", &["--now", "2025-06-01T11:05:07Z"]);
    out.expect_code(0);
    out.stdout_is("Today is 2025-06-01.");
}

#[test]
fn a_given_value_wins_over_the_clock() {
    let out = render(
        "handoff",
        &[
            "--var",
            "current_date=someday",
            "--var",
            "workflow_context=step 3",
        ],
    );
    out.expect_code(0);
    out.stdout_is("Continue the workflow on someday.\nContext: step 3");
}

#[test]
fn without_now_the_date_is_today() {
    let out = render("handoff", &["--var", "workflow_context=x"]);
    out.expect_code(0);
    let date = out
        .stdout
        .strip_prefix("Continue the workflow on ")
        .and_then(|rest| rest.split_once('.'))
        .map(|(date, _)| date)
        .unwrap_or_default();
    let bytes = date.as_bytes();
    assert!(
        bytes.len() == 10
            && bytes[4] == b'-'
            && bytes[7] == b'-'
            && date.replace('-', "").chars().all(|c| c.is_ascii_digit()),
        "a YYYY-MM-DD date: {}",
        out.stdout
    );
}

#[test]
fn an_undeclared_placeholder_is_a_warning_at_load_pointing_into_the_template() {
    let out = promptexec().args(&["validate", "--pack", PACK]).run();
    out.expect_code(0);
    out.stderr_has(WORKFLOW_WARNING);
    // The warning shows the template's line, which uses time variables too.
    out.stderr_has(&format!(
        "{WORKFLOW_WARNING}\n   |\n28 |       \"system_template\": \"Continue the workflow on {{{{current_date}}}}.\\nContext: {{{{workflow_context}}}}\",\n"
    ));
    let diagnostics = out.stderr.lines().filter(|line| line.starts_with("packs/"));
    assert!(
        !diagnostics.clone().any(|line| line.contains("current_")),
        "time variables need no declaration: {}",
        out.stderr
    );
}

#[test]
fn an_undeclared_placeholder_without_a_value_fails_the_render() {
    let out = render("handoff", &["--now", "2025-06-01T09:05:07Z"]);
    out.expect_code(2);
    out.stdout_empty();
    out.stderr_has("packs/time_vars.json:28:80: placeholder `{{workflow_context}}` has no value: prompt `handoff` does not declare it; give one with --var workflow_context=VALUE");

    let filled = render(
        "handoff",
        &[
            "--now",
            "2025-06-01T09:05:07Z",
            "--var",
            "workflow_context=x",
        ],
    );
    filled.expect_code(0);
    filled.stdout_is("Continue the workflow on 2025-06-01.\nContext: x");
    filled.stderr_has(WORKFLOW_WARNING);
}

#[test]
fn a_bad_now_is_a_usage_error() {
    let out = render("handoff", &["--now", "tomorrow"]);
    out.expect_code(2);
    out.stderr_has("`tomorrow` is not an RFC 3339 time");
}

#[test]
fn run_renders_the_system_prompt_at_now() {
    let out = promptexec()
        .args(&[
            "-c",
            "run/flow.yaml",
            "run",
            PACK,
            "--prompt",
            "plan",
            "--var",
            "customer=Dana",
            "--now",
            "2025-06-01T09:05:07Z",
            "--message",
            "hi",
            "--mock",
            "run/bare.mock.yaml",
            "--scenario",
            "s",
            "--format",
            "json",
        ])
        .run();
    out.expect_code(0);
    let report = out.json_report();
    assert_eq!(
        report["system_prompt"],
        "Plan the day for Dana.\nToday is Sunday, 2025-06-01 (June 2025); the hour is 09 UTC, exactly 2025-06-01T09:05:07Z."
    );
}
