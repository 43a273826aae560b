//! Checks on what hooks and guardrails did in the judged turn (or session).

use serde_json::{Value as Json, json};

use super::{Judge, ParamError, Params, verdict};
use crate::conversation::HookAction;
use crate::conversation::HookRecord;
use crate::doc::{one_of, suggest};

/// What `action` may expect: a hook that was consulted and let things be, or one
/// of the interventions a run records.
const LET_BE: &[&str] = &["allow", "continue"];

/// `hook_decision`: the hook `hook` (at `phase`, when given) decided `action`.
/// `allow` (or `continue`) passes when it was consulted and intervened nowhere in
/// the span; `deny` matches a denial of a tool call too (`deny_tool`); any other
/// action must be one the hook took.
pub(super) fn decision(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["hook"], &["action"], &["phase"]])?;
    let hook = p.required_string(&["hook"])?;
    let action = p.required_string(&["action"])?;
    let phase = p.string(&["phase"])?;
    let known: Vec<&str> = LET_BE
        .iter()
        .copied()
        .chain(HookAction::NAMES.iter().copied())
        .collect();
    if !known.contains(&action.as_str()) {
        return Err(ParamError::NotAChoice {
            check: check.into(),
            name: "action".into(),
            suggestion: suggest(&action, known.iter().copied()),
            choices: one_of(&known),
            found: action,
        });
    }
    Ok(Box::new(move |input| {
        let of_hook: Vec<&HookRecord> = input
            .hooks
            .iter()
            .filter(|r| r.hook == hook && phase.as_ref().is_none_or(|p| &r.phase == p))
            .collect();
        let taken: Vec<&str> = of_hook.iter().filter_map(|r| r.action.as_deref()).collect();
        let where_ = phase
            .as_ref()
            .map(|p| format!(" at {p}"))
            .unwrap_or_default();
        let data = json!({ "consulted": of_hook.iter().filter(|r| r.action.is_none()).count(), "actions": taken });
        let ok = if LET_BE.contains(&action.as_str()) {
            !of_hook.is_empty() && taken.is_empty()
        } else {
            taken
                .iter()
                .any(|t| *t == action || (action == "deny" && *t == "deny_tool"))
        };
        let found = match (of_hook.is_empty(), taken.is_empty()) {
            (true, _) => format!("hook `{hook}` was not consulted{where_}"),
            (false, true) => format!("hook `{hook}` let everything through{where_}"),
            (false, false) => format!("hook `{hook}` decided {}{where_}", taken.join(", ")),
        };
        Ok(verdict(
            ok,
            format!("hook `{hook}` decided `{action}`{where_}"),
            format!("expected `{action}`: {found}"),
            data,
        ))
    }))
}

/// `guardrail_triggered`: the guardrail of type `validator` fired (or, with
/// `should_trigger: false`, did not).
pub(super) fn guardrail_triggered(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let names = ["validator", "validator_type"];
    let p = Params::new(check, params, &[&names, &["should_trigger"]])?;
    let validator = p.required_string(&names)?;
    let expected = p.boolean(&["should_trigger"])?.unwrap_or(true);
    Ok(Box::new(move |input| {
        let fired = input.guardrails.iter().filter(|g| **g == validator).count();
        let said = if fired > 0 {
            format!("guardrail `{validator}` fired {fired} time(s)")
        } else {
            format!("guardrail `{validator}` did not fire")
        };
        Ok(verdict(
            (fired > 0) == expected,
            said.clone(),
            format!(
                "expected it {}: {said}",
                if expected { "to fire" } else { "not to fire" }
            ),
            json!({ "fired": fired }),
        ))
    }))
}
