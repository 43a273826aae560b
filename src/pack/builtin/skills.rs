//! Checks on skill activations: the model activates a skill by calling the
//! `skill__activate` tool with the skill's `name`, as PromptKit offers it.

use serde_json::{Value as Json, json};

use super::{Judge, ParamError, Params, Scored, verdict};
use crate::conversation::EvalInput;

/// The tool through which a model activates a skill.
const ACTIVATE: &str = "skill__activate";

/// The names of the skills activated by calls that did not fail, in call order.
fn activated(input: &EvalInput) -> Vec<String> {
    input
        .tool_calls
        .iter()
        .filter(|c| c.name == ACTIVATE && c.error.is_none())
        .filter_map(|c| c.args.get("name").and_then(Json::as_str))
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}

/// `skill_activated`: each of `skill_names` was activated at least `min_calls`
/// times (default 1); the score is the share that was.
pub(super) fn activated_check(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["skill_names"], &["min_calls"]])?;
    let wanted = p.required_strings(&["skill_names"])?;
    let min = p.count(&["min_calls"])?.unwrap_or(1);
    Ok(Box::new(move |input| {
        let seen = activated(input);
        let missing: Vec<&str> = wanted
            .iter()
            .filter(|w| (seen.iter().filter(|s| s == w).count() as u64) < min)
            .map(String::as_str)
            .collect();
        Ok(Scored {
            score: (wanted.len() - missing.len()) as f64 / wanted.len() as f64,
            detail: if missing.is_empty() {
                "every required skill was activated".into()
            } else {
                format!("skills not activated: {}", missing.join(", "))
            },
            data: json!({ "activated": seen, "expected": wanted }),
        })
    }))
}

/// `skill_not_activated`: none of `skill_names` was activated.
pub(super) fn not_activated(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["skill_names"]])?;
    let forbidden = p.required_strings(&["skill_names"])?;
    Ok(Box::new(move |input| {
        let seen = activated(input);
        let hits: Vec<&str> = seen
            .iter()
            .filter(|s| forbidden.contains(s))
            .map(String::as_str)
            .collect();
        Ok(verdict(
            hits.is_empty(),
            "no forbidden skill was activated".into(),
            format!("forbidden skills activated: {}", hits.join(", ")),
            json!({ "activated": seen, "forbidden": forbidden }),
        ))
    }))
}

/// `skill_activation_order`: the skills of `sequence` were activated in that order
/// (other activations may come between them).
pub(super) fn activation_order(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["sequence"]])?;
    let sequence = p.required_strings(&["sequence"])?;
    Ok(Box::new(move |input| {
        let seen = activated(input);
        let mut matched = 0;
        for skill in &seen {
            if sequence.get(matched) == Some(skill) {
                matched += 1;
            }
        }
        Ok(verdict(
            matched == sequence.len(),
            format!("skills activated in the order {}", sequence.join(" > ")),
            format!(
                "activated {}; expected the order {} (matched {matched} of {})",
                if seen.is_empty() {
                    "none".into()
                } else {
                    seen.join(" > ")
                },
                sequence.join(" > "),
                sequence.len()
            ),
            json!({ "activated": seen, "sequence": sequence }),
        ))
    }))
}
