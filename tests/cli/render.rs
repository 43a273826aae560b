use crate::util::{Outcome, promptexec, repo_root};

/// `prompt render --pack packs/greeter.json` followed by `rest`.
fn render_greeter(rest: &[&str]) -> Outcome {
    promptexec()
        .args(["prompt", "render", "--pack", "packs/greeter.json"])
        .args(rest)
        .run()
}

/// `prompt render --file TEMPLATE` followed by `rest`.
fn render_template(template: &str, rest: &[&str]) -> Outcome {
    promptexec()
        .args(["prompt", "render", "--file", template])
        .args(rest)
        .run()
}

#[test]
fn renders_the_example_pack_prompt_and_nothing_else() {
    let out = promptexec()
        .in_dir(repo_root())
        .args(&[
            "prompt",
            "render",
            "--pack",
            "examples/assistant.pack.json",
            "--prompt",
            "support",
            "--var",
            "customer_name=Dana",
            "--var",
            "tone=formal",
        ])
        .run();
    out.expect_code(0);
    assert_eq!(
        out.stdout,
        "You are the support assistant of Acme Outfitters.\n\
         Speak to Dana in a formal tone.\n\
         Refunds above 100 need a manager's approval. Never promise a refund before the tool confirms it."
    );
    assert_eq!(out.stderr, "");
}

#[test]
fn defaults_fill_what_is_not_given_and_braces_can_be_literal() {
    let out = render_greeter(&["--var", "name=Ada"]);
    out.expect_code(0);
    assert_eq!(
        out.stdout,
        "Greet Ada in English.\nUse {{braces}} literally."
    );
}

#[test]
fn values_are_inserted_as_text_and_never_expanded() {
    let out = render_greeter(&["--var", "name={{language}} <b>"]);
    out.expect_code(0);
    assert_eq!(
        out.stdout,
        "Greet {{language}} <b> in English.\nUse {{braces}} literally."
    );
}

#[test]
fn vars_file_is_read_and_var_overrides_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let vars = dir.path().join("vars.yaml");
    std::fs::write(&vars, "name: Grace\nlanguage: French\n").expect("write vars");
    let vars = vars.display().to_string();
    let out = render_greeter(&["--vars-file", &vars]);
    assert_eq!(
        out.stdout,
        "Greet Grace in French.\nUse {{braces}} literally."
    );
    let out = render_greeter(&["--vars-file", &vars, "--var", "name=Alan"]);
    assert_eq!(
        out.stdout,
        "Greet Alan in French.\nUse {{braces}} literally."
    );
}

#[test]
fn missing_required_variable_names_it_and_where_it_is_used() {
    let out = render_greeter(&[]);
    assert_eq!(out.code, 2);
    assert_eq!(out.stdout, "");
    insta::assert_snapshot!(out.report());
}

#[test]
fn a_value_outside_the_enum_is_rejected() {
    let out = render_greeter(&["--var", "name=A", "--var", "language=Klingon"]);
    assert_eq!(out.code, 2);
    insta::assert_snapshot!(out.report());
}

#[test]
fn an_undeclared_variable_on_the_command_line_is_an_error() {
    let out = render_greeter(&["--var", "name=A", "--var", "langauge=French"]);
    assert_eq!(out.code, 2);
    insta::assert_snapshot!(out.report());
}

#[test]
fn unknown_prompt_lists_the_prompts() {
    let out = render_greeter(&["--prompt", "gret"]);
    assert_eq!(out.code, 2);
    insta::assert_snapshot!(out.report());
}

#[test]
fn renders_a_promptkind_template_file() {
    let out = render_template(
        "templates/goal.json",
        &["--var", "goal_topic=running a 10k"],
    );
    out.expect_code(0);
    assert_eq!(
        out.stdout,
        "Please help the user create a SMART goal for running a 10k."
    );
}

#[test]
fn a_promptkind_placeholder_outside_slots_is_an_error() {
    let out = render_template("templates/undeclared_slot.json", &["--var", "goal_topic=x"]);
    assert_eq!(out.code, 2);
    insta::assert_snapshot!(out.report());
}

#[test]
fn a_missing_slot_is_an_error() {
    let out = render_template("templates/goal.json", &[]);
    assert_eq!(out.code, 2);
    insta::assert_snapshot!(out.report());
}

#[test]
fn malformed_var_is_a_usage_error() {
    let out = render_template("templates/goal.json", &["--var", "no-equals-sign"]);
    assert_eq!(out.code, 2);
    out.stderr_has("expected KEY=VALUE");
}
