//! Checks on the shape of the judged calls: what every call of a tool must look
//! like, arguments it must never get, repeats, chains and sequences to avoid.

use regex::Regex;
use serde_json::{Map, Value as Json, json};

use super::Scored;
use super::{Judge, ParamError, Params, same, verdict};
use crate::conversation::ToolCallRecord;

/// The conditions a call can be held to (`args_match`, `result_includes`,
/// `result_matches`, `no_error`, and `expected_args` where a check takes it).
struct CallRule {
    expected_args: Map<String, Json>,
    args_match: Vec<(String, Regex)>,
    result_includes: Vec<String>,
    result_matches: Option<Regex>,
    no_error: bool,
}

/// The param names of a [`CallRule`].
const RULE: [&[&str]; 5] = [
    &["expected_args"],
    &["args_match"],
    &["result_includes"],
    &["result_matches"],
    &["no_error"],
];

impl CallRule {
    fn read(p: &Params<'_>, check: &str) -> Result<Self, ParamError> {
        let pattern = |source: &str| {
            Regex::new(source).map_err(|error| ParamError::Pattern {
                check: check.into(),
                error,
            })
        };
        let args_match =
            p.object(&["args_match"])?
                .unwrap_or_default()
                .into_iter()
                .map(|(arg, source)| {
                    let source = source.as_str().map(str::to_string).ok_or_else(|| {
                        ParamError::WrongType {
                            check: check.into(),
                            name: format!("args_match.{arg}"),
                            expected: "a regex",
                            found: Box::new(source.clone()),
                        }
                    })?;
                    Ok((arg, pattern(&source)?))
                })
                .collect::<Result<_, ParamError>>()?;
        Ok(Self {
            expected_args: p.object(&["expected_args"])?.unwrap_or_default(),
            args_match,
            result_includes: p.strings(&["result_includes"])?.unwrap_or_default(),
            result_matches: p
                .string(&["result_matches"])?
                .map(|s| pattern(&s))
                .transpose()?,
            no_error: p.boolean(&["no_error"])?.unwrap_or(false),
        })
    }

    /// Why `call` breaks the rule, if it does.
    fn broken_by(&self, call: &ToolCallRecord) -> Option<String> {
        for (arg, want) in &self.expected_args {
            if !call.args.get(arg).is_some_and(|have| same(have, want)) {
                return Some(format!("`{arg}` is not {want}"));
            }
        }
        for (arg, re) in &self.args_match {
            let text = match call.args.get(arg) {
                Some(Json::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => return Some(format!("no `{arg}`")),
            };
            if !re.is_match(&text) {
                return Some(format!("`{arg}` does not match /{re}/"));
            }
        }
        if self.no_error && call.error.is_some() {
            return Some("it failed".into());
        }
        let result = call.result.as_deref().unwrap_or_default();
        let lower = result.to_lowercase();
        if let Some(missing) = self
            .result_includes
            .iter()
            .find(|p| !lower.contains(&p.to_lowercase()))
        {
            return Some(format!("its result lacks `{missing}`"));
        }
        match &self.result_matches {
            Some(re) if !re.is_match(result) => Some(format!("its result does not match /{re}/")),
            _ => None,
        }
    }
}

fn names(calls: &[ToolCallRecord]) -> Vec<&str> {
    calls.iter().map(|c| c.name.as_str()).collect()
}

/// `tool_calls_with_args`: every call (of `tool_name`, when given) keeps the rule
/// (`expected_args`, `args_match`, `result_includes`, `result_matches`,
/// `no_error`); a named tool never called fails. The score is the share that keeps it.
pub(super) fn calls_with_args(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let mut accepted = vec![&["tool_name", "tool"][..]];
    accepted.extend(RULE);
    let p = Params::new(check, params, &accepted)?;
    let tool = p.string(&["tool_name", "tool"])?;
    let rule = CallRule::read(&p, check)?;
    Ok(Box::new(move |input| {
        let calls: Vec<&ToolCallRecord> = input
            .tool_calls
            .iter()
            .filter(|c| tool.as_ref().is_none_or(|t| &c.name == t))
            .collect();
        if calls.is_empty() {
            let what = tool.as_ref().map_or("no tool", |t| t.as_str());
            return Ok(verdict(
                tool.is_none(),
                "no call to judge".into(),
                format!("`{what}` was not called"),
                json!({ "calls": 0 }),
            ));
        }
        let broken: Vec<String> = calls
            .iter()
            .filter_map(|c| rule.broken_by(c).map(|why| format!("{}: {why}", c.name)))
            .collect();
        Ok(Scored {
            score: (calls.len() - broken.len()) as f64 / calls.len() as f64,
            detail: if broken.is_empty() {
                format!("all {} call(s) keep the rule", calls.len())
            } else {
                broken.join("; ")
            },
            data: json!({ "calls": calls.len(), "broken": broken }),
        })
    }))
}

/// `tool_args_excluded` (`tools_not_called_with_args`): no call of `tool_name` had
/// any of `excluded_args` (an argument's value, or a list of values).
pub(super) fn args_excluded(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let names = ["excluded_args", "forbidden_args"];
    let p = Params::new(check, params, &[&["tool_name", "tool"], &names])?;
    let tool = p.required_string(&["tool_name", "tool"])?;
    let excluded = p
        .object(&names)?
        .ok_or_else(|| p.missing(&names, "an object"))?;
    Ok(Box::new(move |input| {
        let hits: Vec<String> = input
            .tool_calls
            .iter()
            .filter(|c| c.name == tool)
            .flat_map(|c| {
                excluded.iter().filter_map(move |(arg, values)| {
                    let have = c.args.get(arg)?;
                    let listed = match values {
                        Json::Array(list) => list.iter().any(|v| same(have, v)),
                        one => same(have, one),
                    };
                    listed.then(|| format!("{arg} = {have}"))
                })
            })
            .collect();
        Ok(verdict(
            hits.is_empty(),
            format!("`{tool}` got none of the excluded arguments"),
            format!("`{tool}` was called with {}", hits.join(", ")),
            json!({ "excluded_seen": hits }),
        ))
    }))
}

/// `tool_no_repeat`: no tool (of `tools`, when given) is called more than
/// `max_repeats` times in a row (default 1).
pub(super) fn no_repeat(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["tools", "tool_names"], &["max_repeats"]])?;
    let scope = p.strings(&["tools", "tool_names"])?;
    let max = p.count(&["max_repeats"])?.unwrap_or(1);
    Ok(Box::new(move |input| {
        let called = names(&input.tool_calls);
        let mut worst: Option<(&str, u64)> = None;
        let mut run = 0;
        for (i, name) in called.iter().enumerate() {
            run = if i > 0 && called[i - 1] == *name {
                run + 1
            } else {
                1
            };
            let in_scope = scope.as_ref().is_none_or(|s| s.iter().any(|t| t == name));
            if in_scope && run > max && worst.is_none_or(|(_, n)| run > n) {
                worst = Some((name, run));
            }
        }
        Ok(match worst {
            None => verdict(
                true,
                format!("no tool called more than {max} time(s) in a row"),
                String::new(),
                json!({ "called": called }),
            ),
            Some((name, n)) => verdict(
                false,
                String::new(),
                format!("`{name}` was called {n} times in a row (at most {max})"),
                json!({ "called": called }),
            ),
        })
    }))
}

/// `tool_anti_pattern`: none of `patterns` (each `{sequence, message}`) occurs as
/// consecutive calls.
pub(super) fn anti_pattern(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["patterns"]])?;
    let Some(Json::Array(items)) = p.value(&["patterns"]) else {
        return Err(p.missing(&["patterns"], "a list of {sequence, message}"));
    };
    let patterns = items
        .iter()
        .map(|item| {
            let q = Params::new(check, item, &[&["sequence"], &["message"]])?;
            let sequence = q.required_strings(&["sequence"])?;
            let message = q
                .string(&["message"])?
                .unwrap_or_else(|| sequence.join(" → "));
            Ok((sequence, message))
        })
        .collect::<Result<Vec<_>, ParamError>>()?;
    Ok(Box::new(move |input| {
        let called = names(&input.tool_calls);
        let found: Vec<&str> = patterns
            .iter()
            .filter(|(sequence, _)| {
                called
                    .windows(sequence.len())
                    .any(|w| w.iter().zip(sequence).all(|(a, b)| a == b))
            })
            .map(|(_, message)| message.as_str())
            .collect();
        Ok(verdict(
            found.is_empty(),
            "no anti-pattern in the calls".into(),
            format!("found: {}", found.join("; ")),
            json!({ "called": called, "found": found }),
        ))
    }))
}

/// `tool_call_chain`: the `steps` (each `{tool, ...rule}`) were called in order,
/// others may come between, each call keeping its step's rule; the score is the
/// share of steps reached.
pub(super) fn call_chain(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["steps"]])?;
    let Some(Json::Array(items)) = p.value(&["steps"]) else {
        return Err(p.missing(&["steps"], "a list of {tool, ...}"));
    };
    let mut accepted = vec![&["tool", "tool_name"][..]];
    accepted.extend(RULE);
    let steps = items
        .iter()
        .map(|item| {
            let q = Params::new(check, item, &accepted)?;
            Ok((
                q.required_string(&["tool", "tool_name"])?,
                CallRule::read(&q, check)?,
            ))
        })
        .collect::<Result<Vec<_>, ParamError>>()?;
    if steps.is_empty() {
        return Err(p.missing(&["steps"], "a non-empty list of {tool, ...}"));
    }
    Ok(Box::new(move |input| {
        let mut reached = 0;
        let mut last_miss = None;
        for call in &input.tool_calls {
            let Some((tool, rule)) = steps.get(reached) else {
                break;
            };
            if &call.name != tool {
                continue;
            }
            match rule.broken_by(call) {
                None => reached += 1,
                Some(why) => last_miss = Some(format!("{tool}: {why}")),
            }
        }
        let chain: Vec<&str> = steps.iter().map(|(t, _)| t.as_str()).collect();
        let detail = format!(
            "{reached} of {} steps of {}",
            steps.len(),
            chain.join(" → ")
        );
        Ok(Scored {
            score: reached as f64 / steps.len() as f64,
            detail: match last_miss {
                Some(why) if reached < steps.len() => format!("{detail}; {why}"),
                _ => detail,
            },
            data: json!({ "reached": reached }),
        })
    }))
}
