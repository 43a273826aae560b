use crate::util::promptexec;

#[track_caller]
fn help(args: &[&str]) -> String {
    let out = promptexec().args(args).run();
    out.expect_code(0);
    out.stdout
}

#[test]
fn top_level_help() {
    insta::assert_snapshot!(help(&["--help"]));
}

#[test]
fn help_subcommand_matches_help_flag() {
    assert_eq!(help(&["help"]), help(&["--help"]));
}

#[test]
fn validate_help() {
    insta::assert_snapshot!(help(&["validate", "--help"]));
}

#[test]
fn prompt_help() {
    insta::assert_snapshot!(help(&["prompt", "--help"]));
}

#[test]
fn prompt_render_help() {
    insta::assert_snapshot!(help(&["prompt", "render", "--help"]));
}

#[test]
fn test_help() {
    insta::assert_snapshot!("test_help", help(&["test", "--help"]));
}

#[test]
fn completions_help() {
    insta::assert_snapshot!(help(&["completions", "--help"]));
}

#[test]
fn version_names_the_crate_version() {
    assert_eq!(
        help(&["--version"]),
        format!("promptexec {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn completions_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let script = help(&["completions", shell]);
        assert!(
            script.contains("validate"),
            "{shell} completions mention validate"
        );
        assert!(script.contains("pack"), "{shell} completions offer --pack");
        // Subcommands build their arguments only when used; completions build all.
        for nested in ["messages-from", "vars-file", "since"] {
            assert!(
                script.contains(nested),
                "{shell} completions offer --{nested}"
            );
        }
    }
}

#[test]
fn unknown_subcommand_is_a_usage_error() {
    let out = promptexec().args(&["frobnicate"]).run();
    assert_eq!(out.code, 2);
    out.stderr_has("unrecognized subcommand");
}

#[test]
fn invoke_tool_help() {
    insta::assert_snapshot!(help(&["invoke-tool", "--help"]));
}

#[test]
fn hook_help() {
    insta::assert_snapshot!(help(&["hook", "--help"]));
}

#[test]
fn hook_test_help() {
    insta::assert_snapshot!(help(&["hook", "test", "--help"]));
}

#[test]
fn run_help() {
    insta::assert_snapshot!(help(&["run", "--help"]));
}

#[test]
fn eval_help() {
    insta::assert_snapshot!(help(&["eval", "--help"]));
}
