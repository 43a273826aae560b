//! Resolution of a prompt's validators and tool policy, from pack text.

use std::path::Path;

use crate::doc::{Checker, parse_json};
use crate::pack::{Direction, Pack};

/// The pack with one prompt `chat` whose `validators` and `tool_policy` are given,
/// and every diagnostic as text.
fn resolved(validators: &str, tool_policy: &str) -> (Option<Pack>, Vec<String>) {
    let text = format!(
        r#"{{"id": "p", "name": "P", "version": "1", "prompts": {{"chat": {{
  "id": "chat", "name": "Chat", "version": "1", "system_template": "Hi.",
  "validators": {validators}, "tool_policy": {tool_policy}}}}}}}"#
    );
    let path = Path::new("p.pack.json");
    let root = parse_json(path, &text).expect("JSON");
    let mut cx = Checker::new(path, text);
    let pack = super::resolve(&root, path, &mut cx);
    let said = cx.diagnostics.iter().map(|d| d.to_string()).collect();
    (pack, said)
}

#[test]
fn each_validator_judges_the_side_its_direction_names_output_by_default() {
    let (pack, said) = resolved(
        r#"[{"type": "banned_words", "params": {"words": ["x"], "direction": "input"}},
            {"type": "banned_words", "params": {"words": ["x"], "direction": "both"}},
            {"type": "banned_words", "params": {"words": ["x"]}},
            {"type": "pii_leakage", "params": {"direction": 3}}]"#,
        "{}",
    );
    let pack = pack.expect("resolved");
    let directions: Vec<Direction> = pack.prompts["chat"]
        .validators
        .iter()
        .map(|v| v.direction)
        .collect();
    assert_eq!(
        directions,
        [
            Direction::Input,
            Direction::Both,
            Direction::Output,
            Direction::Output
        ]
    );
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("warning: /prompts/chat/validators/3/params/direction: 3 is not `input`, `output` or `both`"), "{said:?}");
}

#[test]
fn unusable_params_skip_the_validator_with_a_warning_and_an_unknown_type_is_an_error() {
    let (pack, said) = resolved(
        r#"[{"type": "length", "params": {}}, {"type": "regex", "params": {"pattern": "("}},
            {"type": "content_matches", "params": {"pattern": "a", "flags": "i"}}]"#,
        "{}",
    );
    let kinds: Vec<String> = pack.expect("resolved").prompts["chat"]
        .validators
        .iter()
        .map(|v| v.kind.clone())
        .collect();
    assert_eq!(kinds, ["content_matches"], "{said:?}");
    assert_eq!(said.len(), 3, "{said:?}");
    assert!(said.iter().all(|d| d.contains("warning:")), "{said:?}");
    assert!(said[0].contains("the guardrail is skipped"), "{said:?}");
    assert!(
        said[2].contains("`flags`") && said[2].contains("it is not applied"),
        "{said:?}"
    );

    let (_, said) = resolved(r#"[{"type": "pii_leakge"}]"#, "{}");
    assert!(
        said.iter().any(|d| !d.contains("warning:")
            && d.contains("`pii_leakge` is not a check promptexec can run as a guardrail; did you mean `pii_leakage`?")),
        "{said:?}"
    );
}

#[test]
fn a_tool_policy_limit_of_zero_is_no_limit_given() {
    let (pack, said) = resolved("[]", r#"{"max_rounds": 0, "max_tool_calls_per_turn": 0}"#);
    assert!(said.is_empty(), "{said:?}");
    let policy = &pack.expect("resolved").prompts["chat"].tool_policy;
    let default = crate::pack::ToolPolicy::default();
    assert_eq!(
        (policy.max_rounds, policy.max_tool_calls_per_turn),
        (default.max_rounds, default.max_tool_calls_per_turn)
    );
    let (pack, _) = resolved("[]", r#"{"max_rounds": 2}"#);
    assert_eq!(
        pack.expect("resolved").prompts["chat"]
            .tool_policy
            .max_rounds,
        2
    );
}

#[test]
fn a_disabled_validator_is_not_built_and_only_an_unknown_type_is_a_warning() {
    let (pack, said) = resolved(
        r#"[{"type": "length", "enabled": false, "params": {}},
            {"type": "lenght", "enabled": false}]"#,
        "{}",
    );
    assert!(
        pack.expect("resolved").prompts["chat"]
            .validators
            .is_empty()
    );
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].contains("warning: /prompts/chat/validators/1: `lenght` is not a check promptexec can run as a guardrail; did you mean `length`? (it is disabled)"),
        "{said:?}"
    );
}
