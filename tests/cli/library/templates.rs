//! Templates refused at `add` and values refused at `render`, each naming where.

use serde_json::json;

use super::{Lib, library_fixture};

#[test]
fn an_undeclared_placeholder_is_refused_with_its_file_line_and_column() {
    let lib = Lib::new();
    let out = lib.run(&["prompt", "add", &library_fixture("undeclared.json")]);
    out.expect_code(2);
    out.stderr_has(
        "library/undeclared.json:4:42: placeholder `{{audience}}` is not listed in `slots`",
    );
    assert_eq!(out.stdout, "");
    assert!(lib.listed(&[]).is_empty());
}

#[test]
fn rendering_without_a_slot_value_names_the_missing_slot() {
    let lib = Lib::new();
    lib.add("greeting.json", "alice");
    let out = lib.run(&[
        "prompt",
        "render",
        "greeting",
        "--var",
        "name=Ada",
        "--var",
        "account=1",
    ]);
    out.expect_code(2);
    out.stderr_has("slot `tone` of template `greeting` has no value");
    assert_eq!(out.stdout, "");
    assert_eq!(lib.json(&["prompt", "audit"]), json!([]));
}

#[test]
fn values_breaking_a_slot_rule_are_refused_naming_the_slot_and_rule() {
    let lib = Lib::new();
    lib.add("greeting.json", "alice");
    let cases = [
        (
            "name",
            "Bartholomew Montgomery Smith",
            "slot `name`: the value is 28 characters, more than max_length 20",
        ),
        (
            "name",
            "R2-D2",
            "slot `name`: the value does not match pattern `[A-Za-z ]+`",
        ),
        (
            "tone",
            "rude",
            "slot `tone`: the value is not one of `formal`, `casual`",
        ),
        (
            "account",
            "12\u{1b}[2J34",
            "slot `account`: the value holds a control character (U+001B)",
        ),
    ];
    for (slot, value, reason) in cases {
        let mut values = vec![
            ("name", "Ada".to_string()),
            ("tone", "casual".to_string()),
            ("account", "42".to_string()),
        ];
        for v in &mut values {
            if v.0 == slot {
                v.1 = value.to_string();
            }
        }
        let pairs: Vec<String> = values.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let mut args = vec!["prompt", "render", "greeting"];
        for pair in &pairs {
            args.extend(["--var", pair.as_str()]);
        }
        let out = lib.run(&args);
        assert_eq!(out.code, 2, "{slot}={value:?}: {}", out.stderr);
        assert!(
            out.stderr.contains(reason),
            "{slot}={value:?}: {}",
            out.stderr
        );
        assert_eq!(out.stdout, "", "{slot}={value:?}");
    }
    // Refused renders leave no audit record.
    assert_eq!(lib.json(&["prompt", "audit"]), json!([]));
}
