//! What stands around an eval: the `assertion` wrapper that makes any eval a gate,
//! and the `when` preconditions that skip it.

use crate::pack::{Bound, EvalDef, Threshold, When};

use crate::conversation::ToolCallRecord;
use crate::pack::builtin::{ParamError, Params};

/// Why an `assertion` cannot be unwrapped.
#[derive(Debug, Clone, thiserror::Error)]
pub(super) enum AssertionError {
    #[error(transparent)]
    Params(#[from] ParamError),
    #[error("an `assertion` cannot wrap another `assertion`")]
    Nested,
}

/// An `assertion` eval (`params: {eval_type, eval_params, min_score, max_score}`)
/// becomes the eval it wraps, a gate on those scores (at least 1.0 when neither is
/// given). Any other eval is returned as it is.
pub(super) fn unwrap_assertion(mut eval: EvalDef) -> Result<EvalDef, AssertionError> {
    if eval.eval_type != "assertion" {
        return Ok(eval);
    }
    let p = Params::new(
        "assertion",
        &eval.params,
        &[
            &["eval_type"],
            &["eval_params"],
            &["min_score"],
            &["max_score"],
        ],
    )?;
    let inner = p.required_string(&["eval_type"])?;
    if inner == "assertion" {
        return Err(AssertionError::Nested);
    }
    let inclusive = |value| Bound {
        value,
        inclusive: true,
    };
    let (min, max) = (p.number(&["min_score"])?, p.number(&["max_score"])?);
    let threshold = Threshold {
        min: Some(inclusive(min.unwrap_or(if max.is_none() {
            1.0
        } else {
            0.0
        }))),
        max: max.map(inclusive),
    };
    let params = p
        .object(&["eval_params"])?
        .map_or_else(|| serde_json::json!({}), serde_json::Value::Object);
    eval.eval_type = inner;
    eval.params = params;
    eval.threshold = Some(threshold);
    Ok(eval)
}

/// Why the eval is skipped for these tool calls, if it is: every condition of
/// `when` must hold.
pub(super) fn skip_reason(when: &When, calls: &[ToolCallRecord]) -> Option<String> {
    if let Some(tool) = &when.tool_called
        && !calls.iter().any(|c| &c.name == tool)
    {
        return Some(format!("skipped: `{tool}` was not called"));
    }
    if let Some(pattern) = &when.tool_called_pattern
        && !calls.iter().any(|c| pattern.is_match(&c.name))
    {
        return Some(format!("skipped: no tool matching /{pattern}/ was called"));
    }
    if when.any_tool_called == Some(true) && calls.is_empty() {
        return Some("skipped: no tool was called".into());
    }
    if let Some(min) = when.min_tool_calls
        && (calls.len() as u64) < min
    {
        return Some(format!(
            "skipped: {} tool call(s), fewer than {min}",
            calls.len()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Pos;
    use crate::pack::Trigger;
    use serde_json::json;

    fn eval(eval_type: &str, params: serde_json::Value) -> EvalDef {
        EvalDef {
            id: "e".into(),
            eval_type: eval_type.into(),
            trigger: Trigger::EveryTurn,
            params,
            metric: None,
            threshold: None,
            sample_percentage: 5.0,
            enabled: true,
            when: When::default(),
            description: None,
            pos: Pos::START,
            turn: None,
        }
    }

    #[test]
    fn an_assertion_becomes_a_gate_on_the_eval_it_wraps() {
        let wrapped = unwrap_assertion(eval(
            "assertion",
            json!({"eval_type": "contains", "eval_params": {"patterns": ["x"]}, "min_score": 0.5}),
        ))
        .expect("unwraps");
        assert_eq!(wrapped.eval_type, "contains");
        assert_eq!(wrapped.params, json!({"patterns": ["x"]}));
        let t = wrapped.threshold.expect("a gate");
        assert_eq!((t.min.map(|b| b.value), t.max), (Some(0.5), None));
        let plain = unwrap_assertion(eval("assertion", json!({"eval_type": "regex"}))).expect("ok");
        assert_eq!(
            plain.threshold.and_then(|t| t.min).map(|b| b.value),
            Some(1.0)
        );
        assert!(unwrap_assertion(eval("assertion", json!({"eval_params": {}}))).is_err());
        assert!(unwrap_assertion(eval("assertion", json!({"eval_type": "x", "min": 1}))).is_err());
    }

    #[test]
    fn unmet_preconditions_say_why() {
        let call = |name: &str| ToolCallRecord {
            name: name.into(),
            args: json!({}),
            result: None,
            error: None,
            parts: Vec::new(),
        };
        let when = When {
            tool_called: Some("lookup".into()),
            ..When::default()
        };
        assert_eq!(skip_reason(&when, &[call("lookup")]), None);
        assert_eq!(
            skip_reason(&when, &[call("other")]).as_deref(),
            Some("skipped: `lookup` was not called")
        );
        let when = When {
            tool_called_pattern: regex::Regex::new("^db_").ok(),
            min_tool_calls: Some(2),
            ..When::default()
        };
        assert!(
            skip_reason(&when, &[call("db_query")]).is_some_and(|r| r.contains("fewer than 2"))
        );
        assert_eq!(skip_reason(&when, &[call("db_query"), call("db_x")]), None);
        let any = When {
            any_tool_called: Some(true),
            ..When::default()
        };
        assert!(skip_reason(&any, &[]).is_some());
    }
}
