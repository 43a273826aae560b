//! Checks built into promptexec, run in-process.

use serde_json::{Value as Json, json};

use super::EvalInput;
use super::exec_eval::Scored;

/// The types of the checks built in.
pub const BUILTINS: &[&str] = &["contains"];

pub fn is_builtin(eval_type: &str) -> bool {
    BUILTINS.contains(&eval_type)
}

/// Checks a built-in's params before anything runs.
pub fn check_params(eval_type: &str, params: &Json) -> Result<(), String> {
    run_builtin(eval_type, params, &EvalInput::default()).map(|_| ())
}

/// Runs the built-in check `eval_type`; `Err` when its parameters are unusable.
pub fn run_builtin(eval_type: &str, params: &Json, input: &EvalInput) -> Result<Scored, String> {
    match eval_type {
        "contains" => contains(params, &input.content),
        other => Err(format!("`{other}` is not a built-in check")),
    }
}

/// `contains`: every one of `patterns` appears in the content.
fn contains(params: &Json, content: &str) -> Result<Scored, String> {
    let patterns: Vec<&str> = match params.get("patterns") {
        Some(Json::Array(items)) => items
            .iter()
            .map(|p| p.as_str().ok_or("`patterns` must list strings"))
            .collect::<Result<_, _>>()?,
        Some(Json::String(one)) => vec![one.as_str()],
        _ => return Err("`contains` needs `patterns`, a list of strings".into()),
    };
    let missing: Vec<&str> = patterns
        .iter()
        .copied()
        .filter(|p| !content.contains(p))
        .collect();
    let (score, detail) = if missing.is_empty() {
        (1.0, "every pattern appears".to_string())
    } else {
        (0.0, format!("missing: {}", missing.join(", ")))
    };
    Ok(Scored {
        score,
        detail,
        data: json!({ "missing": missing }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contains_needs_every_pattern() {
        let params = json!({"patterns": ["A-", "delayed"]});
        let scored = contains(&params, "Order A-1002 is delayed").expect("runs");
        assert_eq!(scored.score, 1.0);
        let scored = contains(&params, "Order A-1002 shipped").expect("runs");
        assert_eq!(
            (scored.score, scored.detail.as_str()),
            (0.0, "missing: delayed")
        );
        assert!(contains(&json!({}), "x").is_err());
    }
}
