//! Evals made ready: a type neither bound in the config nor built in is refused,
//! naming the check meant when one is close.

use indexmap::IndexMap;
use serde_json::{Value as Json, json};
use tokio_util::sync::CancellationToken;

use crate::doc::Pos;
use crate::evals::Evaluator;
use crate::pack::{EvalDef, Trigger, When};

/// A type neither bound nor built in is refused when the evals are made ready,
/// with a suggestion when it is close to a check or an alias.
#[test]
fn unknown_types_are_refused_with_a_suggestion_when_close() {
    let cases: Vec<(&str, &str, Json, &str)> = vec![
        (
            "an unknown type close to a check",
            "containz",
            json!({}),
            "type `containz` is neither bound in the config's spec.evals nor built in; did you mean `contains`?",
        ),
        (
            "an unknown type close to an alias",
            "banned_word",
            json!({}),
            "did you mean `banned_words`?",
        ),
        (
            "an unknown type close to a tool check",
            "tool_call_counts",
            json!({}),
            "did you mean `tool_call_count`?",
        ),
    ];
    for (name, eval_type, _, says) in &cases {
        let refused = refusal(eval_type);
        assert!(refused.contains(says), "{name}: `{says}` not in: {refused}");
    }
    // Far from every name, an unknown type gets no suggestion.
    let refused = refusal("frobnicate");
    assert!(
        refused.contains("type `frobnicate` is neither bound") && !refused.contains("did you mean"),
        "{refused}"
    );
}

/// Why an eval of `eval_type` (with no params and no config) cannot be made ready.
fn refusal(eval_type: &str) -> String {
    let eval = EvalDef {
        id: eval_type.into(),
        eval_type: eval_type.into(),
        trigger: Trigger::EveryTurn,
        params: json!({}),
        metric: None,
        threshold: None,
        sample_percentage: 100.0,
        enabled: true,
        when: When::default(),
        description: None,
        pos: Pos::START,
        turn: None,
    };
    match Evaluator::new(vec![eval], &IndexMap::new(), CancellationToken::new()) {
        Ok(_) => panic!("`{eval_type}` was made ready"),
        Err(problems) => problems[0].message.clone(),
    }
}
