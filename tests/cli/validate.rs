use crate::util::{fixtures, promptexec, repo_root, validate_example};

#[track_caller]
fn validate_config(name: &str) -> String {
    let out = promptexec()
        .args(&["validate", "-c", &format!("config/{name}.yaml")])
        .run();
    assert_eq!(out.code, 2, "a broken config is bad input:\n{}", out.stderr);
    assert!(out.stdout.is_empty(), "nothing on stdout: {}", out.stdout);
    out.report()
}

#[test]
fn unknown_key_is_named_with_a_suggestion() {
    insta::assert_snapshot!(validate_config("unknown_key"));
}

#[test]
fn wrong_types_say_what_was_expected() {
    insta::assert_snapshot!(validate_config("wrong_type"));
}

#[test]
fn duplicate_key_points_at_the_second_one() {
    insta::assert_snapshot!(validate_config("duplicate_key"));
}

#[test]
fn null_hook_entry_is_an_error() {
    insta::assert_snapshot!(validate_config("null_hook"));
}

#[test]
fn empty_phases_would_never_run() {
    insta::assert_snapshot!(validate_config("empty_phases"));
}

#[test]
fn phase_of_another_hook_type_is_named() {
    insta::assert_snapshot!(validate_config("wrong_phase"));
}

#[test]
fn bad_mode_lists_the_modes() {
    insta::assert_snapshot!(validate_config("bad_mode"));
}

#[test]
fn files_the_config_names_must_exist() {
    let report = validate_config("missing_file");
    let report = report.replace(&fixtures().display().to_string(), "[FIXTURES]");
    insta::assert_snapshot!(report);
}

#[test]
fn every_problem_is_reported_not_just_the_first() {
    insta::assert_snapshot!(validate_config("many_problems"));
}

#[test]
fn unused_promptkit_sections_are_warnings_naming_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = promptexec()
        .in_dir(dir.path())
        .file(
            "runtimeconfig.yaml",
            "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  sandboxes: {}\n  state_store: {type: memory}\n",
        )
        .args(["validate"])
        .run();
    out.expect_code(0);
    out.stderr_has("runtimeconfig.yaml:4:3: warning: `sandboxes` in spec is a PromptKit key promptexec does not apply; it is ignored");
    out.stderr_has("`state_store` in spec");
    let strict = promptexec()
        .in_dir(dir.path())
        .args(&["validate", "--strict"])
        .run();
    strict.expect_code(2);
}

#[test]
fn missing_config_file_names_it() {
    let out = promptexec()
        .args(&["validate", "-c", "config/nope.yaml"])
        .run();
    assert_eq!(out.code, 2);
    insta::assert_snapshot!(out.report());
}

#[test]
fn malformed_json_pack_gives_line_and_column() {
    let out = promptexec()
        .args(&["validate", "--pack", "packs/malformed.json"])
        .run();
    assert_eq!(out.code, 2);
    insta::assert_snapshot!(out.report());
}

#[test]
fn undeclared_placeholder_points_into_the_template() {
    let out = promptexec()
        .args(&["validate", "--pack", "packs/undeclared.json"])
        .run();
    assert_eq!(
        out.code, 0,
        "a warning: a value may be given when rendering"
    );
    insta::assert_snapshot!(out.report());
}

#[test]
fn missing_pack_file_names_it() {
    let out = promptexec()
        .args(&["validate", "--pack", "packs/nope.json"])
        .run();
    assert_eq!(out.code, 2);
    insta::assert_snapshot!(out.report());
}

#[test]
fn nothing_to_validate_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = promptexec().in_dir(dir.path()).args(&["validate"]).run();
    assert_eq!(out.code, 2);
    out.stderr_has("nothing to validate");
}

#[test]
fn the_bundled_example_is_valid() {
    let out = validate_example(&[]);
    out.expect_code(0);
    assert!(
        out.stderr.starts_with("ok: runtimeconfig.example.yaml"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_example_config_is_found_through_the_environment_from_anywhere() {
    let elsewhere = tempfile::tempdir().expect("temp dir");
    let config = repo_root().join("runtimeconfig.example.yaml");
    let output = assert_cmd::Command::cargo_bin("promptexec")
        .expect("binary")
        .current_dir(elsewhere.path())
        .env("PROMPTEXEC_CONFIG", &config)
        .args(["validate"])
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_mock_responses_a_config_names_are_checked_too() {
    insta::assert_snapshot!(validate_config("mock_problems"));
}

#[test]
fn a_built_in_eval_with_a_misnamed_param_is_an_error_even_without_a_config() {
    let out = promptexec()
        .args(&["validate", "--pack", "evals/unknown_param.pack.json"])
        .run();
    out.expect_code(2);
    assert!(
        out.stderr
            .contains("evals/unknown_param.pack.json:12:9: eval `misnamed`")
            && out.stderr.contains("did you mean `patterns`?"),
        "{}",
        out.stderr
    );
}

#[test]
fn eval_types_are_checked_against_the_config_only_when_there_is_one() {
    let root = repo_root();
    let alone = promptexec()
        .in_dir(&root)
        .args(&["validate", "--pack", "examples/assistant.pack.json"])
        .run();
    assert_eq!(
        alone.code, 0,
        "exec eval types cannot be judged without a config: {}",
        alone.stderr
    );
    let config = fixtures().join("hooks/observers.yaml");
    let config = config.display().to_string();
    let out = promptexec()
        .in_dir(&root)
        .args(&[
            "validate",
            "-c",
            &config,
            "--pack",
            "examples/assistant.pack.json",
        ])
        .run();
    out.expect_code(2);
    out.stderr_has("eval `polite-tone`: type `tone` is neither bound");
}

#[test]
fn a_key_written_in_the_config_is_used_but_never_shown() {
    let dir = tempfile::tempdir().expect("temp dir");
    let invocation = || {
        promptexec().in_dir(dir.path()).file(
            "runtimeconfig.yaml",
            "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  providers:\n    - id: gpt\n      type: openai\n      credential:\n        api_key: sk-block-7f3a\n    - id: claude\n      type: claude\n      credential: {api_key: sk-flow-9c1d, credential_env: ANTHROPIC_API_KEY}\n      headers: {x-api-key: sk-header-22b0}\n",
        )
    };
    for colour in ["never", "always"] {
        let out = invocation().args(["--color", colour, "validate"]).run();
        out.expect_code(2);
        out.stderr_has("spec.providers[0].credential.api_key: a key written in the config travels wherever the file does; name an environment variable with `credential_env` instead");
        out.stderr_has("both `api_key` and `credential_env` are given");
        for key in ["sk-block-7f3a", "sk-flow-9c1d", "sk-header-22b0"] {
            out.stderr_lacks(key);
            assert!(!out.stdout.contains(key), "{}", out.stdout);
        }
    }
}

#[test]
fn mcp_server_mistakes_are_errors_at_the_offending_value_with_secrets_masked() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = promptexec()
        .in_dir(dir.path())
        .file(
            "mcp.yaml",
            "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  mcp_servers:\n    - name: files\n      command: sh\n      env: {FS_TOKEN: tok-env-31c7, PORT: 8080}\n    - name: search\n      url: https://mcp.example.com/mcp\n      transport: sse\n      headers: {X-Key: tok-hdr-8e02, \"bad name\": x}\n    - {name: files, command: sh}\n",
        )
        .args(["validate", "-c", "mcp.yaml"])
        .run();
    out.expect_code(2);
    out.stderr_has("mcp.yaml:7:43: spec.mcp_servers[0].env.PORT: expected a string, found an integer\n  |\n7 |       env: {FS_TOKEN: ************, PORT: ****}\n  |                                           ^^^^\n");
    out.stderr_has("mcp.yaml:10:18: spec.mcp_servers[1].transport: `sse` is not supported: promptexec's MCP client (the official Rust SDK) has no SSE transport; if the server also speaks streamable HTTP, write `transport: streamable_http`\n");
    out.stderr_has(
        "mcp.yaml:11:38: spec.mcp_servers[1].headers: `bad name` is not a valid header name",
    );
    out.stderr_has("11 |       headers: {X-Key: ************, \"bad name\": *}\n");
    out.stderr_has("mcp.yaml:12:14: spec.mcp_servers[2]: an MCP server named `files` is already declared at line 5; give each its own `name`\n");
    out.stderr_has("validate: 4 errors, 0 warnings");
    for secret in ["tok-env-31c7", "tok-hdr-8e02"] {
        out.stderr_lacks(secret);
    }
}

#[test]
fn mcp_servers_promptexec_can_reach_are_counted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = promptexec()
        .in_dir(dir.path())
        .file(
            "mcp.yaml",
            "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  mcp_servers:\n    - {name: files, command: sh, args: [-c, \"exit 0\"]}\n    - {name: search, url: \"https://mcp.example.com/mcp\"}\n    - {name: box, source: docker, scope: session}\n",
        )
        .args(["validate", "-c", "mcp.yaml"])
        .run();
    out.expect_code(0);
    out.stderr_has("mcp.yaml:6:22: warning: spec.mcp_servers[1].url: without `transport`, PromptKit reaches this server over SSE; promptexec speaks streamable HTTP to it (write `transport: streamable_http` to say so)");
    out.stderr_has("mcp.yaml:7:19: warning: spec.mcp_servers[2].source: the server `docker` is provisioned by the host; promptexec does not start it, so its tools are not available");
    out.stderr_has("ok: mcp.yaml (0 providers, 0 tools, 0 evals, 0 hooks, 2 MCP servers)");
}
