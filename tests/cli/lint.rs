//! `prompt lint`: each rule tripped by a fixture of its own (tests/fixtures/lint/rules,
//! where `clean.*` trip none), the rules config, SARIF checked against the official
//! schema, library prompts, and the exit codes.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value as Json;

use crate::util::{Invocation, fixtures, promptexec};

/// `promptexec prompt lint ARGS` in the fixtures directory (which has no
/// `.promptlint.yaml`).
fn lint(args: &[&str]) -> Invocation {
    promptexec().args(["prompt", "lint"]).args(args)
}

/// Each file's rule ids, from a `--format json` document.
fn rules_by_file(doc: &Json) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for f in doc["findings"].as_array().expect("findings") {
        let file = f["file"].as_str().expect("a file");
        let name = Path::new(file)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let rule = format!(
            "{} {}",
            f["rule"].as_str().unwrap_or("?"),
            f["name"].as_str().unwrap_or("?")
        );
        out.entry(name).or_default().push(rule);
    }
    out
}

#[test]
fn each_fixture_trips_exactly_its_rule_and_a_clean_file_none() {
    let out = lint(&["--dir", "lint/rules", "--format", "json"]).run();
    out.expect_code(1);
    let doc = out.json();
    assert_eq!(doc["templates"], 19, "{doc:#}");
    let expected = [
        ("invalid_front_matter.prompt", "PL001 invalid-front-matter"),
        ("template_syntax.prompt", "PL002 template-syntax"),
        ("missing_partial.prompt", "PL003 missing-partial"),
        ("circular_a.prompt", "PL004 circular-partial"),
        ("circular_b.prompt", "PL004 circular-partial"),
        ("unused_variable.prompt", "PL005 unused-variable"),
        ("undeclared_variable.prompt", "PL006 undeclared-variable"),
        ("dead_condition.prompt", "PL007 dead-condition"),
        (
            "undelimited_untrusted.json",
            "PL101 undelimited-untrusted-slot",
        ),
        ("instruction_override.prompt", "PL102 instruction-override"),
        ("secret_literal.prompt", "PL103 secret-literal"),
        (
            "sensitive_not_auditable.json",
            "PL104 sensitive-not-auditable",
        ),
        ("hidden_unicode.prompt", "PL105 hidden-unicode"),
        ("missing_description.prompt", "PL201 missing-description"),
        ("missing_owner.json", "PL202 missing-owner"),
        ("missing_tags.prompt", "PL203 missing-tags"),
        ("long_template.prompt", "PL204 long-template"),
    ];
    let expected: BTreeMap<String, Vec<String>> = expected
        .iter()
        .map(|(file, rule)| (file.to_string(), vec![rule.to_string()]))
        .collect();
    assert_eq!(rules_by_file(&doc), expected, "{doc:#}");
    assert_eq!(
        (&doc["errors"], &doc["warnings"], &doc["notes"]),
        (&Json::from(9), &Json::from(7), &Json::from(1))
    );
}

#[test]
fn human_lines_give_the_place_level_rule_message_and_fix() {
    let out = lint(&["--dir", "lint/rules"]).run();
    out.expect_code(1)
        .stdout_has(
            "lint/rules/hidden_unicode.prompt:7:12: error[PL105]: hidden character(s): U+200B (remove the character",
        )
        .stdout_has("lint/rules/undeclared_variable.prompt:10:29: error[PL006]: `audience` is used but not declared")
        .stdout_has("lint/rules/instruction_override.prompt:8:1: warning[PL102]: says \"ignore previous instructions\"")
        .stdout_has("lint/rules/circular_a.prompt:7:10: error[PL004]: partials include each other: circular-a -> circular-b -> circular-a")
        .stdout_has("lint/rules/undelimited_untrusted.json:8:40: error[PL101]: untrusted slot `page`")
        .stdout_has("lint/rules/secret_literal.prompt:7:29: error[PL103]: `ghp_01…` looks like a GitHub token")
        .stdout_has("19 template(s) checked: 9 error(s), 7 warning(s), 1 note(s)")
        .stdout_lacks("ghp_0123456789abcdef");
}

#[test]
fn exit_codes_clean_warnings_errors_and_bad_input() {
    lint(&[
        "--file",
        "lint/rules/clean.prompt",
        "--file",
        "lint/rules/clean.json",
    ])
    .run()
    .expect_code(0)
    .stdout_is("2 template(s) checked: 0 error(s), 0 warning(s), 0 note(s)\n");
    // Warnings and notes alone pass.
    lint(&[
        "--file",
        "lint/rules/missing_owner.json",
        "--file",
        "lint/rules/missing_tags.prompt",
    ])
    .run()
    .expect_code(0);
    lint(&["--file", "lint/rules/secret_literal.prompt"])
        .run()
        .expect_code(1);
    lint(&["--file", "lint/rules/no_such.prompt"])
        .run()
        .expect_code(2)
        .stderr_has("no_such.prompt");
    let empty = tempfile::tempdir().expect("temp dir");
    lint(&["--dir", &empty.path().display().to_string()])
        .run()
        .expect_code(2)
        .stderr_has("no template files");
    // A folder that cannot be read is named; hidden entries are left out, as `prompt
    // add DIR` leaves them.
    let missing = empty.path().join("missing");
    lint(&["--dir", &missing.display().to_string()])
        .run()
        .expect_code(2)
        .stderr_has(&format!("{}: cannot read directory", missing.display()));
    std::fs::write(empty.path().join(".draft.prompt"), "{{#if x}}").expect("write");
    lint(&["--dir", &empty.path().display().to_string()])
        .run()
        .expect_code(2)
        .stderr_has("no template files");
}

#[test]
fn a_rules_file_turns_rules_off_and_changes_their_level() {
    let dir = tempfile::tempdir().expect("temp dir");
    let rules = dir.path().join("rules.yaml");
    std::fs::write(
        &rules,
        "rules:\n  PL105: off\n  instruction-override: error\n  missing-tags: warning\nmax_template_chars: 9000\n",
    )
    .expect("write");
    let files = [
        "hidden_unicode.prompt",
        "instruction_override.prompt",
        "missing_tags.prompt",
        "long_template.prompt",
    ];
    let mut args = vec!["--format".to_string(), "json".to_string()];
    for f in files {
        args.extend(["--file".to_string(), format!("lint/rules/{f}")]);
    }
    args.extend(["--rules".to_string(), rules.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = lint(&args).run();
    out.expect_code(1);
    let doc = out.json();
    let levels: Vec<(String, String)> = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or("?").into(),
                f["level"].as_str().unwrap_or("?").into(),
            )
        })
        .collect();
    assert_eq!(
        levels,
        [
            ("PL102".into(), "error".into()),
            ("PL203".into(), "warning".into())
        ],
        "{doc:#}"
    );
}

#[test]
fn a_promptlint_yaml_here_is_read_and_an_unknown_rule_in_it_is_placed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fixture = fixtures().join("lint/rules/missing_tags.prompt");
    std::fs::copy(&fixture, dir.path().join("t.prompt")).expect("copy");
    std::fs::write(
        dir.path().join(".promptlint.yaml"),
        "rules:\n  missing-tags: error\n",
    )
    .expect("write");
    promptexec()
        .in_dir(dir.path())
        .args(["prompt", "lint", "--file", "t.prompt"])
        .run()
        .expect_code(1)
        .stdout_has("t.prompt:1:1: error[PL203]: the prompt has no tags");
    std::fs::write(
        dir.path().join(".promptlint.yaml"),
        "rules:\n  missing-tags: error\n  PL999: off\n",
    )
    .expect("write");
    promptexec()
        .in_dir(dir.path())
        .args(["prompt", "lint", "--file", "t.prompt"])
        .run()
        .expect_code(2)
        .stderr_has(".promptlint.yaml:3:3")
        .stderr_has("no lint rule is called `PL999`")
        .stdout_is("");
}

fn assert_valid(validator: &jsonschema::Validator, log: &Json) {
    let errors: Vec<String> = validator.iter_errors(log).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}\n{log:#}");
}

#[test]
fn sarif_output_is_valid_sarif_2_1_0_with_a_region_per_finding() {
    let validator = crate::util::sarif_validator();
    let out = lint(&["--dir", "lint/rules", "--format", "sarif"]).run();
    out.expect_code(1);
    let log = out.json();
    assert_valid(&validator, &log);
    let run = &log["runs"][0];
    assert_eq!(
        run["tool"]["driver"]["rules"].as_array().map(Vec::len),
        Some(16)
    );
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 17, "{log:#}");
    let hidden = results
        .iter()
        .find(|r| r["ruleId"] == "PL105")
        .expect("the hidden character");
    let physical = &hidden["locations"][0]["physicalLocation"];
    assert_eq!(
        physical["artifactLocation"]["uri"],
        "lint/rules/hidden_unicode.prompt"
    );
    assert_eq!(physical["region"]["startLine"], 7);
    assert_eq!(physical["region"]["startColumn"], 12);
    assert_eq!(hidden["level"], "error");
    let rule =
        &run["tool"]["driver"]["rules"][hidden["ruleIndex"].as_u64().expect("index") as usize];
    assert_eq!(rule["id"], "PL105");
    // No finding is a valid log too.
    let clean = lint(&["--file", "lint/rules/clean.prompt", "--format", "sarif"]).run();
    clean.expect_code(0);
    assert_valid(&validator, &clean.json());
}

#[test]
fn library_prompts_are_linted_by_id_or_all_and_named_by_version() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("library.db").display().to_string();
    for fixture in ["clean.json", "sensitive_not_auditable.json"] {
        promptexec()
            .args([
                "prompt",
                "add",
                &format!("lint/rules/{fixture}"),
                "--library",
                &db,
            ])
            .run()
            .expect_code(0);
    }
    lint(&["sensitive-not-auditable", "--library", &db])
        .run()
        .expect_code(0)
        .stdout_has("sensitive-not-auditable@v1:")
        .stdout_has("warning[PL104]: slot `account` is sensitive but the prompt is not auditable")
        .stdout_has("1 template(s) checked: 0 error(s), 1 warning(s)");
    lint(&["--library", &db])
        .run()
        .expect_code(0)
        .stdout_has("2 template(s) checked: 0 error(s), 1 warning(s)");
    let sarif = lint(&["--library", &db, "--format", "sarif"]).run();
    let log = sarif.json();
    assert_valid(&crate::util::sarif_validator(), &log);
    let location = &log["runs"][0]["results"][0]["locations"][0];
    assert_eq!(
        location["logicalLocations"][0]["name"],
        "sensitive-not-auditable@v1"
    );
    assert!(location.get("physicalLocation").is_none(), "{log:#}");
    lint(&["no-such-prompt", "--library", &db])
        .run()
        .expect_code(2)
        .stderr_has("no-such-prompt");
}

#[test]
fn a_partial_is_found_among_the_library_prompts_when_a_library_is_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    let head = "description: A fixture.\npromptkind.owner: docs-team\npromptkind.tags: [fixture]";
    let header = dir.path().join("header.prompt");
    std::fs::write(
        &header,
        format!("---\nname: header\n{head}\n---\nBe careful.\n"),
    )
    .expect("write");
    let uses = dir.path().join("uses.prompt");
    std::fs::write(
        &uses,
        format!("---\nname: uses-header\n{head}\n---\n{{{{> header}}}}\nAnswer briefly.\n"),
    )
    .expect("write");
    let db = dir.path().join("library.db").display().to_string();
    let (header, uses) = (header.display().to_string(), uses.display().to_string());
    for file in [&header, &uses] {
        promptexec()
            .args(["prompt", "add", file, "--library", &db])
            .run()
            .expect_code(0);
    }
    lint(&["--library", &db])
        .run()
        .expect_code(0)
        .stdout_is("2 template(s) checked: 0 error(s), 0 warning(s), 0 note(s)\n");
    lint(&["--file", &uses])
        .run()
        .expect_code(1)
        .stdout_has("uses.prompt:7:1: error[PL003]: partial `header` is not a prompt");
    lint(&["--file", &uses, "--library", &db])
        .run()
        .expect_code(0);
}
