//! Every built-in check judged in-process: passing and failing, under its aliases,
//! and refusing params it cannot take. `tests/cli/builtin_checks.rs` proves the
//! binary wires each family; the cases live here, where they start no process.

/// One `#[test]` per row of a table: `name: row;`, each row handed to `check`,
/// after the `let`s of the block (the table's shared values) are made again.
macro_rules! table {
    ($check:path, { $($setup:tt)* }) => {};
    ($check:path, { $($setup:tt)* } $test:ident: $row:expr; $($rest:tt)*) => {
        #[test]
        #[allow(unused_variables)]
        fn $test() {
            $($setup)*
            $check($row);
        }
        table!($check, { $($setup)* } $($rest)*);
    };
}

mod aliases;
mod content;
mod efficiency;
mod hooks;
mod invariant;
mod json;
mod latency;
mod refused;
mod tool_media;
mod tool_patterns;
mod tools;

use serde_json::{Value as Json, json};

use super::Scored;
use super::{JudgeError, prepare};
use crate::conversation::EvalInput;

/// One input to one check.
struct Case {
    check: &'static str,
    content: &'static str,
    params: Json,
    context: Option<Json>,
}

fn case(check: &'static str, content: &'static str, params: Json) -> Case {
    Case {
        check,
        content,
        params,
        context: None,
    }
}

impl Case {
    fn with(mut self, context: Json) -> Self {
        self.context = Some(context);
        self
    }

    /// The input as `promptexec eval` builds it: the context read as an
    /// [`EvalInput`], then the content.
    fn input(&self) -> EvalInput {
        let mut input: EvalInput = self
            .context
            .clone()
            .map(|c| serde_json::from_value(c).expect("a valid context"))
            .unwrap_or_default();
        input.content = self.content.to_string();
        input
    }

    /// Prepares the check (its params must be valid) and judges the input.
    #[track_caller]
    fn judged(&self) -> Result<Scored, JudgeError> {
        let check = prepare(self.check, &self.params)
            .unwrap_or_else(|e| panic!("`{}` {}: {e}", self.check, self.params));
        check(&self.input())
    }
}

/// Whether a score passes the gate `promptexec eval` puts on a check by default:
/// at least 1 (a min of 1, inclusive; `evals::judge` applies it).
fn passes(score: f64) -> bool {
    score >= 1.0
}

/// What a case must come to: whether it passes, the score and a piece of the
/// explanation.
struct Want {
    passes: bool,
    score: f64,
    why: &'static str,
}

fn pass(why: &'static str) -> Want {
    Want {
        passes: true,
        score: 1.0,
        why,
    }
}

fn fail(score: f64, why: &'static str) -> Want {
    Want {
        passes: false,
        score,
        why,
    }
}

#[track_caller]
fn expect(name: &str, case: &Case, want: &Want) {
    let scored = case
        .judged()
        .unwrap_or_else(|e| panic!("{name}: no score: {e}"));
    let shown = format!("{name}: {scored:?}");
    assert_eq!(passes(scored.score), want.passes, "{shown}");
    assert!((scored.score - want.score).abs() < 1e-9, "{shown}");
    assert!(
        scored.detail.contains(want.why),
        "`{}` not in the explanation: {shown}",
        want.why
    );
}

/// A row of a table of cases: its name, the case, what it must come to.
#[track_caller]
fn judge_row((name, case, want): (&str, Case, Want)) {
    expect(name, &case, &want);
}

/// A row of a table of refusals: its name, the check, its params, and what the
/// refusal must say.
#[track_caller]
fn refused_row((name, eval_type, params, says): (&str, &str, Json, &str)) {
    let refused = prepare(eval_type, &params)
        .err()
        .unwrap_or_else(|| panic!("{name}: `{eval_type}` {params} was accepted"))
        .to_string();
    assert!(refused.contains(says), "{name}: `{says}` not in: {refused}");
}

/// The canonical check and its params, the alias and its params, and the inputs:
/// each a content and maybe a context.
type AliasRow<'a> = (
    &'static str,
    Json,
    &'static str,
    Json,
    &'a [(&'static str, Option<Json>)],
);

/// A row of the table of aliases: the canonical check and its params, the alias
/// and its params, and inputs on which the two must judge alike, passing on some
/// and failing on others.
#[track_caller]
fn alias_row((canonical, canonical_params, alias, alias_params, inputs): AliasRow<'_>) {
    let name = format!("{alias} {alias_params} as {canonical} {canonical_params}");
    let mut verdicts = Vec::new();
    for (content, context) in inputs.iter() {
        let on = format!("{name}, on {content:?} {context:?}");
        let judged = |check: &'static str, params: &Json| {
            let one = case(check, content, params.clone());
            match context {
                Some(context) => one.with(context.clone()),
                None => one,
            }
            .judged()
        };
        let expected = judged(canonical, &canonical_params)
            .unwrap_or_else(|e| panic!("{on}: the canonical check gave no score: {e}"));
        let got = judged(alias, &alias_params).unwrap_or_else(|e| panic!("{on}: {e}"));
        assert_eq!(passes(got.score), passes(expected.score), "{on}");
        assert_eq!(got, expected, "{on}");
        verdicts.push(passes(expected.score));
    }
    assert!(
        verdicts.contains(&true) && verdicts.contains(&false),
        "{name}: the inputs should both pass and fail, got {verdicts:?}"
    );
}

#[track_caller]
fn judge_all(cases: Vec<(&str, Case, Want)>) {
    for (name, case, want) in &cases {
        expect(name, case, want);
    }
}

/// A context with these messages: (role, content).
fn said(messages: &[(&str, &str)]) -> Json {
    let messages: Vec<Json> = messages
        .iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    json!({ "messages": messages })
}

/// A context whose turn made these calls.
fn calls(list: Vec<Json>) -> Json {
    json!({ "tool_calls": list })
}

/// A call to `name` with `args` that returned `result`.
fn ok(name: &str, args: Json, result: &str) -> Json {
    json!({"name": name, "args": args, "result": result, "error": null})
}

/// A call to `name` that failed.
fn broke(name: &str) -> Json {
    json!({"name": name, "args": {}, "result": null, "error": "boom"})
}

/// A call to `name` with empty args and result.
fn call(name: &str) -> Json {
    ok(name, json!({}), "")
}
