//! Checks built into promptexec, run in-process. Each is prepared once from its
//! params (which are checked then, before anything runs) into a judge of inputs.
//! They sit in `pack` because reading a pack checks the params of every check it
//! names; `evals`, above, runs them.

mod agents;
mod behavioral;
mod content;
mod cost;
mod efficiency;
mod error;
mod hooks;
mod invariant;
mod json;
mod latency;
mod params;
mod pii;
mod skills;
#[cfg(test)]
mod tests;
mod tool_media;
mod tool_patterns;
mod tools;
mod unread;
mod workflow;

use serde_json::Value as Json;

use crate::conversation::EvalInput;

pub(crate) use error::{JudgeError, ParamError};
pub(crate) use params::Params;
pub(crate) use unread::drop_unread;

/// A score from 0 to 1, the explanation and the extra data: what a built-in check
/// and an exec eval answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scored {
    pub score: f64,
    pub detail: String,
    pub data: Json,
}

/// A prepared check: scores one input.
pub(crate) type Judge = Box<dyn Fn(&EvalInput) -> Result<Scored, JudgeError>>;

/// Prepares a check from its params; `Err` says what is wrong with them.
type Prepare = fn(&str, &Json) -> Result<Judge, ParamError>;

/// Every built-in check: its name, the aliases PromptKit packs use, and how to
/// prepare it.
const CHECKS: &[(&str, &[&str], Prepare)] = &[
    ("contains", &["content_includes"], content::contains),
    (
        "contains_any",
        &["content_includes_any"],
        content::contains_any,
    ),
    (
        "content_excludes",
        &["banned_words", "content_not_includes"],
        content::excludes,
    ),
    ("regex", &["content_matches"], content::regex),
    ("min_length", &[], content::min_length),
    ("max_length", &["length"], content::max_length),
    ("json_valid", &["is_valid_json", "valid_json"], json::valid),
    ("json_schema", &[], json::schema),
    ("json_path", &[], json::path),
    ("tools_called", &["tool_called"], tools::called),
    ("tools_not_called", &[], tools::not_called),
    ("tool_args", &[], tools::args),
    ("tool_call_count", &[], tools::count),
    ("tool_call_sequence", &[], tools::sequence),
    ("no_tool_errors", &[], tools::no_errors),
    ("tool_result_includes", &[], tools::result_includes),
    ("tool_result_matches", &[], tools::result_matches),
    ("tool_result_has_media", &[], tool_media::has_media),
    ("tool_result_media_type", &[], tool_media::media_type),
    ("tool_calls_with_args", &[], tool_patterns::calls_with_args),
    (
        "tool_args_excluded",
        &["tools_not_called_with_args"],
        tool_patterns::args_excluded,
    ),
    ("tool_no_repeat", &[], tool_patterns::no_repeat),
    ("tool_anti_pattern", &[], tool_patterns::anti_pattern),
    ("tool_call_chain", &[], tool_patterns::call_chain),
    ("latency_budget", &[], latency::budget),
    ("cost_budget", &[], cost::budget),
    ("outcome_equivalent", &[], behavioral::outcome_equivalent),
    ("directional", &[], behavioral::directional),
    ("invariant_fields_preserved", &[], invariant::preserved),
    ("tool_efficiency", &[], efficiency::efficient),
    ("hook_decision", &[], hooks::decision),
    ("guardrail_triggered", &[], hooks::guardrail_triggered),
    (
        "sentence_count",
        &["max_sentences"],
        content::sentence_count,
    ),
    ("field_presence", &["required_fields"], json::field_presence),
    ("pii_leakage", &[], pii::leakage),
    ("state_is", &[], workflow::state_is),
    ("transitioned_to", &[], workflow::transitioned_to),
    ("workflow_complete", &[], workflow::complete),
    ("workflow_transition_order", &[], workflow::transition_order),
    ("spoke_in_state", &[], workflow::spoke_in_state),
    ("workflow_tool_access", &[], workflow::tool_access),
    ("skill_activated", &[], skills::activated_check),
    ("skill_not_activated", &[], skills::not_activated),
    ("skill_activation_order", &[], skills::activation_order),
    ("agent_invoked", &[], agents::invoked),
    ("agent_not_invoked", &[], agents::not_invoked),
    ("agent_response_contains", &[], agents::response_contains),
];

/// The name a check goes by, given any of its names.
pub(crate) fn canonical(eval_type: &str) -> Option<&'static str> {
    CHECKS
        .iter()
        .find(|(name, aliases, _)| *name == eval_type || aliases.contains(&eval_type))
        .map(|(name, _, _)| *name)
}

fn find(eval_type: &str) -> Option<Prepare> {
    CHECKS
        .iter()
        .find(|(name, aliases, _)| *name == eval_type || aliases.contains(&eval_type))
        .map(|(_, _, prepare)| *prepare)
}

/// Every name a built-in answers to, aliases included.
pub(crate) fn builtin_names() -> impl Iterator<Item = &'static str> {
    CHECKS
        .iter()
        .flat_map(|(name, aliases, _)| std::iter::once(*name).chain(aliases.iter().copied()))
}

pub(crate) fn is_builtin(eval_type: &str) -> bool {
    find(eval_type).is_some()
}

/// The built-in check `eval_type` prepared with `params`.
pub(crate) fn prepare(eval_type: &str, params: &Json) -> Result<Judge, ParamError> {
    let prepare = find(eval_type).ok_or_else(|| ParamError::NotBuiltin(eval_type.into()))?;
    prepare(eval_type, params)
}

/// 1 when `ok`, else 0, with the detail for each case.
fn verdict(ok: bool, pass: String, fail: String, data: Json) -> Scored {
    Scored {
        score: if ok { 1.0 } else { 0.0 },
        detail: if ok { pass } else { fail },
        data,
    }
}

/// JSON equality where numbers compare by value (1 equals 1.0).
pub(crate) use crate::diff::same;
