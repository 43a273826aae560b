//! Checks on agents offered to the model as tools (A2A agents): an agent is
//! invoked when the model calls the tool of its name.

use serde_json::{Value as Json, json};

use super::{Judge, ParamError, Params, Scored, verdict};
use crate::conversation::EvalInput;

fn called(input: &EvalInput, agent: &str) -> bool {
    input.tool_calls.iter().any(|c| c.name == agent)
}

/// `agent_invoked`: each of `agents` was called; the score is the share that was.
pub(super) fn invoked(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["agents"]])?;
    let agents = p.required_strings(&["agents"])?;
    Ok(Box::new(move |input| {
        let missing: Vec<&str> = agents
            .iter()
            .filter(|a| !called(input, a))
            .map(String::as_str)
            .collect();
        Ok(Scored {
            score: (agents.len() - missing.len()) as f64 / agents.len() as f64,
            detail: if missing.is_empty() {
                "every expected agent was invoked".into()
            } else {
                format!("agents not invoked: {}", missing.join(", "))
            },
            data: json!({ "missing": missing, "expected": agents }),
        })
    }))
}

/// `agent_not_invoked`: none of `agents` was called.
pub(super) fn not_invoked(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["agents"]])?;
    let agents = p.required_strings(&["agents"])?;
    Ok(Box::new(move |input| {
        let hits: Vec<&str> = agents
            .iter()
            .filter(|a| called(input, a))
            .map(String::as_str)
            .collect();
        Ok(verdict(
            hits.is_empty(),
            "no forbidden agent was invoked".into(),
            format!("forbidden agents invoked: {}", hits.join(", ")),
            json!({ "invoked": hits }),
        ))
    }))
}

/// `agent_response_contains`: a call of `agent` answered with text containing
/// `contains` (case-sensitive, as in PromptKit).
pub(super) fn response_contains(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["agent"], &["contains"]])?;
    let agent = p.required_string(&["agent"])?;
    let contains = p.required_string(&["contains"])?;
    Ok(Box::new(move |input| {
        let answered = input
            .tool_calls
            .iter()
            .any(|c| c.name == agent && c.result.as_deref().is_some_and(|r| r.contains(&contains)));
        Ok(verdict(
            answered,
            format!("`{agent}` answered with {contains:?}"),
            format!("no answer of `{agent}` contains {contains:?}"),
            json!({ "agent": agent, "contains": contains }),
        ))
    }))
}
