//! PromptArena projects: `run`, `list` and `validate` given a `kind: Arena` file
//! read the PromptConfig, Provider, Tool and Scenario files it names.

use std::path::{Path, PathBuf};

use crate::junit::assert_valid_junit;
use crate::util::{copy_dir, fixtures, promptexec};

/// A copy of the fixture project `name`, so the reports it writes land in a
/// folder of the test's own.
fn project(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let to = dir.path().join(name);
    copy_dir(&fixtures().join("arena").join(name), &to);
    (dir, to)
}

/// The names of the `<testsuite>` elements of a JUnit report, in order.
fn suites(xml: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(xml).expect("well-formed XML");
    doc.root_element()
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .map(|n| n.attribute("name").unwrap_or_default().to_string())
        .collect()
}

#[test]
fn an_arena_project_plays_every_scenario_and_reports_each_in_junit() {
    let (_dir, shop) = project("shop");
    let out = promptexec()
        .in_dir(&shop)
        .args(["run", "arena.yaml", "--format", "junit"])
        .run();
    out.expect_code(0);
    assert_valid_junit(&out.stdout);
    assert_eq!(suites(&out.stdout), ["refund", "track-order"]);
    // The global assertion is judged in every scenario, the tool answered by its mock.
    assert_eq!(
        out.stdout.matches("content_not_includes").count(),
        2,
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("<failure"), "{}", out.stdout);
    // --format says what is written: the Arena's own reports are not.
    assert!(!shop.join("out").exists());
}

#[test]
fn the_arena_defaults_write_its_reports_in_every_format_it_names() {
    let (_dir, shop) = project("shop");
    promptexec()
        .in_dir(&shop)
        .args(["run", "arena.yaml"])
        .run()
        .expect_code(0)
        .stderr_lacks("is not written");
    let markdown = std::fs::read_to_string(shop.join("out/report.md")).expect("Markdown report");
    assert!(markdown.contains("promptexec suite"), "{markdown}");
    let html = std::fs::read_to_string(shop.join("out/report.html")).expect("HTML report");
    assert!(
        html.contains("<body data-kind=\"suite\">"),
        "{}",
        &html[..200.min(html.len())]
    );
    let xml = std::fs::read_to_string(shop.join("out/results.xml")).expect("JUnit report");
    assert_eq!(suites(&xml), ["refund", "track-order"]);
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(shop.join("out/index.json")).expect("JSON report"),
    )
    .expect("JSON");
    assert_eq!(
        json["scenarios"].as_array().map(Vec::len),
        Some(2),
        "{json}"
    );
}

#[test]
fn an_arena_output_format_promptexec_cannot_write_is_named_at_its_place() {
    let (_dir, shop) = project("shop");
    let arena = shop.join("arena.yaml");
    let text = std::fs::read_to_string(&arena).expect("the project");
    let text = text.replace(
        "formats: [json, junit, markdown, html]",
        "formats: [json, junit, markdown, html, pdf]",
    );
    std::fs::write(&arena, text).expect("the project");
    promptexec()
        .in_dir(&shop)
        .args(["run", "arena.yaml"])
        .run()
        .expect_code(0)
        .stderr_has(
            "arena.yaml:34:46: warning: spec.defaults.output.formats: `pdf` is not written",
        );
}

#[test]
fn mock_replaces_every_provider() {
    let (_dir, shop) = project("shop");
    std::fs::write(
        shop.join("other.yaml"),
        "defaultResponse: \"As an AI, I cannot say.\"\n",
    )
    .expect("mock file");
    promptexec()
        .in_dir(&shop)
        .args([
            "run",
            "arena.yaml",
            "--mock",
            "other.yaml",
            "--format",
            "json",
        ])
        .run()
        .expect_code(1)
        .stderr_has("No assistant talks about itself");
}

#[test]
fn a_misspelt_key_in_a_prompt_config_is_placed_with_a_suggestion() {
    promptexec()
        .in_dir(fixtures().join("arena/typo"))
        .args(["run", "arena.yaml"])
        .run()
        .expect_code(2)
        .stderr_has(
            "prompts/helper.yaml:10:3: unknown key `alowed_tools` in spec; did you mean `allowed_tools`?",
        );
}

#[test]
fn validate_names_the_same_problem_and_checks_a_sound_project() {
    promptexec()
        .in_dir(fixtures().join("arena/typo"))
        .args(["validate", "arena.yaml"])
        .run()
        .expect_code(2)
        .stderr_has("prompts/helper.yaml:10:3: unknown key `alowed_tools`");
    let (_dir, shop) = project("shop");
    promptexec()
        .in_dir(&shop)
        .args(["validate", "arena.yaml"])
        .run()
        .expect_code(0)
        .stderr_lacks("error");
}

#[test]
fn list_shows_the_scenarios_an_arena_plays() {
    let (_dir, shop) = project("shop");
    let out = promptexec()
        .in_dir(&shop)
        .args(["list", "arena.yaml", "--format", "json"])
        .run();
    out.expect_code(0);
    let listing = out.json();
    let ids: Vec<&str> = listing["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter_map(|s| s["id"].as_str())
        .collect();
    assert_eq!(ids, ["refund", "track-order"]);
    let prompts: Vec<&str> = listing["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter_map(|s| s["prompt"].as_str())
        .collect();
    assert_eq!(prompts, ["billing", "orders"]);
}

#[test]
fn a_prompt_config_error_in_a_template_points_at_its_yaml_file() {
    let (_dir, shop) = project("shop");
    let orders = shop.join("prompts/orders.yaml");
    let text = std::fs::read_to_string(&orders).expect("prompt config");
    std::fs::write(&orders, text.replace("{{shop_name}}", "{{shop_name")).expect("write");
    promptexec()
        .in_dir(&shop)
        .args(["validate", "arena.yaml"])
        .run()
        .expect_code(2)
        .stderr_has("prompts/orders.yaml:10:31: /spec/system_template: unclosed placeholder");
}

#[test]
fn a_problem_the_pack_finds_is_placed_in_the_prompt_config_in_its_words() {
    let (_dir, shop) = project("shop");
    let orders = shop.join("prompts/orders.yaml");
    let text = std::fs::read_to_string(&orders).expect("prompt config");
    std::fs::write(&orders, text.replace("type: string", "type: strng")).expect("write");
    promptexec()
        .in_dir(&shop)
        .args(["run", "arena.yaml"])
        .run()
        .expect_code(2)
        .stderr_has("prompts/orders.yaml:14:13: /spec/variables/0/type: `strng` is not one of")
        .stderr_has("did you mean `string`?");
}

#[test]
fn a_provider_the_arena_lacks_is_named_with_those_it_has() {
    let (_dir, shop) = project("shop");
    promptexec()
        .in_dir(&shop)
        .args(["run", "arena.yaml", "--provider", "shop-mok"])
        .run()
        .expect_code(2)
        .stderr_has("--provider shop-mok: the Arena has no such provider (it has `shop-mock`)");
}

#[test]
fn one_conversation_is_refused_with_an_arena_project() {
    promptexec()
        .in_dir(fixtures().join("arena/shop"))
        .args(["run", "arena.yaml", "--message", "hi"])
        .run()
        .expect_code(2)
        .stderr_has("--message plays one conversation with a pack's prompt; an Arena project plays its scenarios");
}

#[test]
fn a_config_given_with_c_is_read_beside_the_project() {
    let (_dir, shop) = project("shop");
    std::fs::write(
        shop.join("extra.yaml"),
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  hoks: {}\n",
    )
    .expect("config");
    promptexec()
        .in_dir(&shop)
        .args(["-c", "extra.yaml", "list", "arena.yaml"])
        .run()
        .expect_code(2)
        .stderr_has("extra.yaml:4:3: unknown key `hoks`");
}

#[test]
fn every_scenario_plays_against_every_provider_each_run_named_by_both() {
    let (_dir, shop) = project("shop");
    std::fs::write(
        shop.join("providers/second.provider.yaml"),
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Provider\nmetadata:\n  name: second\nspec:\n  id: second\n  type: mock\n  additional_config:\n    mock_config: mock-responses.yaml\n",
    )
    .expect("provider");
    let arena = shop.join("arena.yaml");
    let text = std::fs::read_to_string(&arena).expect("arena");
    let text = text.replace(
        "    - file: providers/mock.provider.yaml\n",
        "    - file: providers/mock.provider.yaml\n    - file: providers/second.provider.yaml\n",
    );
    std::fs::write(&arena, text).expect("write");
    let out = promptexec()
        .in_dir(&shop)
        .args(["run", "arena.yaml", "--format", "junit"])
        .run();
    out.expect_code(0);
    assert_eq!(
        suites(&out.stdout),
        [
            "refund@second",
            "refund@shop-mock",
            "track-order@second",
            "track-order@shop-mock"
        ]
    );
    // --provider keeps one: the runs are named by their scenario alone.
    let one = promptexec()
        .in_dir(&shop)
        .args([
            "run",
            "arena.yaml",
            "--format",
            "junit",
            "--provider",
            "second",
        ])
        .run();
    one.expect_code(0);
    assert_eq!(suites(&one.stdout), ["refund", "track-order"]);
}

/// Every file under `dir`, relative to it, sorted.
fn listing(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).expect("folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                pending.push(path);
            } else {
                found.push(path.strip_prefix(dir).expect("inside").to_path_buf());
            }
        }
    }
    found.sort();
    found
}

#[test]
fn an_exec_tool_is_found_beside_the_arena_and_nothing_is_written_there() {
    let (_dir, shop) = project("shop");
    std::fs::write(
        shop.join("lookup.py"),
        "import json, sys\njson.load(sys.stdin)\njson.dump({\"result\": {\"status\": \"at the depot\"}}, sys.stdout)\n",
    )
    .expect("tool");
    let tool = shop.join("tools/lookup_order.tool.yaml");
    let text = std::fs::read_to_string(&tool).expect("tool file");
    let text = text.replace(
        "  mode: mock\n  timeout_ms: 1000\n  mock_result:\n    status: shipped\n",
        "  mode: exec\n  exec:\n    command: python3\n    args: [lookup.py]\n",
    );
    std::fs::write(&tool, text).expect("write");
    let before = listing(&shop);
    let out = promptexec()
        .in_dir(&shop)
        .args(["run", "arena.yaml", "--format", "json"])
        .run();
    out.expect_code(0);
    assert!(out.stdout.contains("at the depot"), "{}", out.stdout);
    let validate = promptexec()
        .in_dir(&shop)
        .args(["validate", "arena.yaml"])
        .run();
    validate.expect_code(0);
    // The compiled config is read from memory: the project folder is as it was.
    assert_eq!(listing(&shop), before);
}

#[test]
fn mock_provider_plays_a_network_provider_as_the_mock() {
    let (_dir, shop) = project("shop");
    std::fs::write(
        shop.join("providers/mock.provider.yaml"),
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Provider\nmetadata:\n  name: cloud\nspec:\n  id: cloud\n  type: openai\n  model: gpt-4o-mini\n",
    )
    .expect("provider");
    let run = |extra: &[&str]| {
        promptexec()
            .in_dir(&shop)
            .env_remove("OPENAI_API_KEY")
            .args(["run", "arena.yaml", "--format", "junit"])
            .args(extra)
            .run()
    };
    run(&[])
        .expect_code(2)
        .stderr_has("providers/mock.provider.yaml:6:3: provider `cloud`: no API key");
    // The mock answers with its fixed text: the scenarios play, their assertions
    // judged against it.
    let out = run(&["--mock-provider"]);
    out.expect_code_not(2);
    assert_eq!(suites(&out.stdout), ["refund", "track-order"]);
    promptexec()
        .args(["run", "examples/assistant.pack.json", "--mock-provider"])
        .run()
        .expect_code(2)
        .stderr_has("--mock-provider");
}

#[test]
fn an_arena_workflow_moves_between_prompt_configs_and_is_judged_in_junit() {
    let (_dir, shop) = project("shop");
    let arena = shop.join("arena.yaml");
    let text = std::fs::read_to_string(&arena).expect("arena");
    let workflow = "  workflow:\n    version: 1\n    entry: orders\n    states:\n      orders:\n        prompt_task: orders\n        on_event:\n          Refund: billing\n      billing:\n        prompt_task: billing\n        terminal: true\n  globals:\n";
    std::fs::write(&arena, text.replacen("  globals:\n", workflow, 1)).expect("write");
    // The order desk looks the order up, then hands over to billing, which answers in
    // the same turn.
    let mock = shop.join("mock-responses.yaml");
    let text = std::fs::read_to_string(&mock).expect("mock");
    let handover = "      2:\n        content: \"Billing will take it from here.\"\n        tool_calls:\n          - name: workflow__transition\n            arguments: { event: Refund, context: \"A-17 shipped; the customer wants a refund\" }\n      3: \"Order A-17 has shipped; your refund is under way.\"\n";
    std::fs::write(
        &mock,
        text.replacen(
            "      2: \"Order A-17 has shipped and arrives Friday.\"\n",
            handover,
            1,
        ),
    )
    .expect("write");
    let scenario = shop.join("scenarios/track-order.scenario.yaml");
    let text = std::fs::read_to_string(&scenario).expect("scenario");
    std::fs::write(
        &scenario,
        format!(
            "{text}  conversation_assertions:\n    - type: transitioned_to\n      params: {{ state: billing }}\n    - type: workflow_complete\n    - type: spoke_in_state\n      params: {{ state: billing }}\n"
        ),
    )
    .expect("write");
    let out = promptexec()
        .in_dir(&shop)
        .args(["run", "arena.yaml", "--format", "junit"])
        .run();
    out.expect_code(0);
    assert_valid_junit(&out.stdout);
    assert_eq!(suites(&out.stdout), ["refund", "track-order"]);
    for check in ["transitioned_to", "workflow_complete", "spoke_in_state"] {
        assert!(out.stdout.contains(check), "{check}: {}", out.stdout);
    }
    assert!(!out.stdout.contains("<failure"), "{}", out.stdout);
    assert!(!out.stdout.contains("<skipped"), "{}", out.stdout);
    // A wrong state fails the run.
    let text = std::fs::read_to_string(&scenario).expect("scenario");
    std::fs::write(
        &scenario,
        text.replace(
            "params: { state: billing }\n    - type: workflow_complete",
            "params: { state: orders }\n    - type: workflow_complete",
        ),
    )
    .expect("write");
    promptexec()
        .in_dir(&shop)
        .args(["run", "arena.yaml", "--format", "junit"])
        .run()
        .expect_code(1)
        .stdout_has("<failure");
}
