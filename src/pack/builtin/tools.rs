//! Checks on the tool calls of the judged turn (of the session, at its end).

use regex::Regex;
use serde_json::{Value as Json, json};

use super::Scored;
use super::{Judge, ParamError, Params, same, verdict};
use crate::conversation::{EvalInput, ToolCallRecord};
use crate::tools::INVALID_ARGUMENTS;

const TOOL_NAMES: &[&str] = &["tool_names", "tools"];

fn calls_to<'i>(input: &'i EvalInput, tool: Option<&str>) -> Vec<&'i ToolCallRecord> {
    input
        .tool_calls
        .iter()
        .filter(|c| tool.is_none_or(|t| c.name == t))
        .collect()
}

/// `tools_called`: each listed tool was called successfully at least `min_calls`
/// times (default 1) and, with `max_calls`, at most that often. The score is the
/// share of tools called enough; going over `max_calls` scores 0. As in PromptKit,
/// `require_args` leaves out calls made with no arguments, and `ignore_validation`
/// counts calls refused only because their arguments failed the tool's schema.
pub(super) fn called(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(
        check,
        params,
        &[
            TOOL_NAMES,
            &["min_calls"],
            &["max_calls"],
            &["require_args"],
            &["ignore_validation"],
        ],
    )?;
    // As in PromptKit, a list that is missing or empty fails the check when it runs
    // (a misspelt key is warned about when the params are read).
    let tools = p.strings(TOOL_NAMES)?.unwrap_or_default();
    let min = p.count(&["min_calls"])?.unwrap_or(1);
    let max = p.count(&["max_calls"])?;
    let require_args = p.boolean(&["require_args"])?.unwrap_or(false);
    let ignore_validation = p.boolean(&["ignore_validation"])?.unwrap_or(false);
    let counts_as_made = move |call: &ToolCallRecord| {
        let succeeded = match &call.error {
            None => true,
            Some(error) => ignore_validation && error.starts_with(INVALID_ARGUMENTS),
        };
        let has_args = call.args.as_object().is_some_and(|args| !args.is_empty());
        succeeded && (has_args || !require_args)
    };
    Ok(Box::new(move |input| {
        if tools.is_empty() {
            return Ok(Scored {
                score: 0.0,
                detail: "no tool named: give `tool_names`, a non-empty list".into(),
                data: json!({}),
            });
        }
        let counts: Vec<(String, u64)> = tools
            .iter()
            .map(|t| {
                let ok = calls_to(input, Some(t))
                    .into_iter()
                    .filter(|c| counts_as_made(c))
                    .count();
                (t.clone(), ok as u64)
            })
            .collect();
        let data = json!({ "calls": counts.iter().map(|(t, n)| json!({"tool": t, "calls": n})).collect::<Vec<_>>() });
        if let Some((tool, n)) = counts.iter().find(|(_, n)| max.is_some_and(|m| *n > m)) {
            return Ok(Scored {
                score: 0.0,
                detail: format!(
                    "`{tool}` was called {n} times, more than {}",
                    max.unwrap_or_default()
                ),
                data,
            });
        }
        let short: Vec<&str> = counts
            .iter()
            .filter(|(_, n)| *n < min)
            .map(|(t, _)| t.as_str())
            .collect();
        Ok(Scored {
            score: (tools.len() - short.len()) as f64 / tools.len() as f64,
            detail: if short.is_empty() {
                "every listed tool was called".into()
            } else {
                format!("not called (at least {min} times): {}", short.join(", "))
            },
            data,
        })
    }))
}

/// `tools_not_called`: none of the listed tools was called.
pub(super) fn not_called(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[TOOL_NAMES])?;
    let tools = p.required_strings(TOOL_NAMES)?;
    Ok(Box::new(move |input| {
        let called: Vec<&str> = tools
            .iter()
            .filter(|t| !calls_to(input, Some(t)).is_empty())
            .map(String::as_str)
            .collect();
        Ok(verdict(
            called.is_empty(),
            "none of the listed tools was called".into(),
            format!("called: {}", called.join(", ")),
            json!({ "called": called }),
        ))
    }))
}

/// `tool_args`: some call to `tool_name` had every one of `expected_args` (values
/// compared as JSON, or as text when one side is a string).
pub(super) fn args(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["tool_name", "tool"], &["expected_args"]])?;
    let tool = p.required_string(&["tool_name", "tool"])?;
    let expected = p
        .object(&["expected_args"])?
        .ok_or_else(|| p.missing(&["expected_args"], "an object"))?;
    Ok(Box::new(move |input| {
        let calls = calls_to(input, Some(&tool));
        let matches = |args: &Json| {
            expected
                .iter()
                .all(|(k, v)| args.get(k).is_some_and(|a| loosely_equal(a, v)))
        };
        let ok = calls.iter().any(|c| matches(&c.args));
        Ok(verdict(
            ok,
            format!("`{tool}` was called with the expected arguments"),
            if calls.is_empty() {
                format!("`{tool}` was not called")
            } else {
                format!("no call to `{tool}` had {}", Json::Object(expected.clone()))
            },
            json!({ "calls": calls.iter().map(|c| &c.args).collect::<Vec<_>>() }),
        ))
    }))
}

fn loosely_equal(actual: &Json, expected: &Json) -> bool {
    let text = |v: &Json| match v {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    };
    same(actual, expected) || text(actual) == text(expected)
}

/// `tool_call_count`: the calls (to `tool`, or to any tool) number between `min`
/// and `max`.
pub(super) fn count(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["tool", "tool_name"], &["min"], &["max"]])?;
    let tool = p.string(&["tool", "tool_name"])?;
    let (min, max) = (p.count(&["min"])?, p.count(&["max"])?);
    if min.is_none() && max.is_none() {
        return Err(ParamError::NoCountRange {
            check: check.into(),
        });
    }
    Ok(Box::new(move |input| {
        let n = calls_to(input, tool.as_deref()).len() as u64;
        let what = tool
            .as_deref()
            .map_or("tools".to_string(), |t| format!("`{t}`"));
        Ok(verdict(
            min.is_none_or(|m| n >= m) && max.is_none_or(|m| n <= m),
            format!("{n} call(s) to {what}"),
            format!(
                "{n} call(s) to {what}, expected {}",
                match (min, max) {
                    (Some(a), Some(b)) => format!("{a} to {b}"),
                    (Some(a), None) => format!("at least {a}"),
                    (None, Some(b)) => format!("at most {b}"),
                    (None, None) => String::new(),
                }
            ),
            json!({ "count": n }),
        ))
    }))
}

/// `tool_call_sequence`: the listed tools were called in this order (other calls
/// may come between); the score is the share of the sequence reached.
pub(super) fn sequence(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["sequence"]])?;
    let sequence = p.required_strings(&["sequence"])?;
    Ok(Box::new(move |input| {
        let mut next = sequence.iter().peekable();
        for call in &input.tool_calls {
            if next.peek().is_some_and(|want| **want == call.name) {
                next.next();
            }
        }
        let reached = sequence.len() - next.count();
        Ok(Scored {
            score: reached as f64 / sequence.len() as f64,
            detail: format!(
                "{reached} of {} steps in order: {}",
                sequence.len(),
                sequence.join(" → ")
            ),
            data: json!({ "called": input.tool_calls.iter().map(|c| &c.name).collect::<Vec<_>>() }),
        })
    }))
}

/// `no_tool_errors`: the calls (to `tools`, when listed) did not fail; the score is
/// the share that did not.
pub(super) fn no_errors(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["tools", "tool_names"]])?;
    let scope = p.strings(&["tools", "tool_names"])?;
    Ok(Box::new(move |input| {
        let calls: Vec<&ToolCallRecord> = input
            .tool_calls
            .iter()
            .filter(|c| scope.as_ref().is_none_or(|s| s.contains(&c.name)))
            .collect();
        let failed: Vec<&str> = calls
            .iter()
            .filter(|c| c.error.is_some())
            .map(|c| c.name.as_str())
            .collect();
        Ok(Scored {
            score: if calls.is_empty() {
                1.0
            } else {
                1.0 - failed.len() as f64 / calls.len() as f64
            },
            detail: if failed.is_empty() {
                format!("{} call(s), no errors", calls.len())
            } else {
                format!(
                    "{} of {} call(s) failed: {}",
                    failed.len(),
                    calls.len(),
                    failed.join(", ")
                )
            },
            data: json!({ "failed": failed }),
        })
    }))
}

/// `tool_result_includes`: at least `occurrence` results (of `tool`, or of any
/// tool) contain every pattern, case-insensitively.
pub(super) fn result_includes(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(
        check,
        params,
        &[&["tool", "tool_name"], &["patterns"], &["occurrence"]],
    )?;
    let tool = p.string(&["tool", "tool_name"])?;
    let patterns = p.required_strings(&["patterns"])?;
    let occurrence = p.count(&["occurrence"])?.unwrap_or(1);
    Ok(Box::new(move |input| {
        let hits = calls_to(input, tool.as_deref())
            .iter()
            .filter(|c| {
                let result = c.result.as_deref().unwrap_or_default().to_lowercase();
                patterns.iter().all(|p| result.contains(&p.to_lowercase()))
            })
            .count() as u64;
        Ok(verdict(
            hits >= occurrence,
            format!("{hits} result(s) include every pattern"),
            format!("{hits} result(s) include every pattern, expected at least {occurrence}"),
            json!({ "matching_results": hits }),
        ))
    }))
}

/// `tool_result_matches`: at least `occurrence` results match `pattern`.
pub(super) fn result_matches(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(
        check,
        params,
        &[&["tool", "tool_name"], &["pattern"], &["occurrence"]],
    )?;
    let tool = p.string(&["tool", "tool_name"])?;
    let source = p.required_string(&["pattern"])?;
    let re = Regex::new(&source).map_err(|error| ParamError::Pattern {
        check: check.into(),
        error,
    })?;
    let occurrence = p.count(&["occurrence"])?.unwrap_or(1);
    Ok(Box::new(move |input| {
        let hits = calls_to(input, tool.as_deref())
            .iter()
            .filter(|c| c.result.as_deref().is_some_and(|r| re.is_match(r)))
            .count() as u64;
        Ok(verdict(
            hits >= occurrence,
            format!("{hits} result(s) match /{source}/"),
            format!("{hits} result(s) match /{source}/, expected at least {occurrence}"),
            json!({ "matching_results": hits }),
        ))
    }))
}
