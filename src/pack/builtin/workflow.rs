//! Checks on a workflow played in the conversation, as PromptKit scores them: the
//! state it is in (`state_is`), the states it went to (`transitioned_to`, in order:
//! `workflow_transition_order`), whether it ended (`workflow_complete`), which
//! states spoke (`spoke_in_state`) and which tools each state called
//! (`workflow_tool_access`). Without a workflow each scores 0 and says so.

use serde_json::{Value as Json, json};

use super::{Judge, ParamError, Params, Scored, verdict};
use crate::conversation::{EvalInput, WorkflowRecord};

const NO_WORKFLOW: &str = "no workflow state available in context";

/// The workflow of the input, or the 0 score that says there is none.
fn played(input: &EvalInput) -> Result<&WorkflowRecord, Scored> {
    input.workflow.as_ref().ok_or_else(|| Scored {
        score: 0.0,
        detail: NO_WORKFLOW.into(),
        data: json!({}),
    })
}

/// `state_is`: the workflow is in `state` now.
pub(super) fn state_is(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["state"]])?;
    let expected = p.required_string(&["state"])?;
    Ok(Box::new(move |input| {
        let w = match played(input) {
            Ok(w) => w,
            Err(none) => return Ok(none),
        };
        let actual = &w.current_state;
        Ok(verdict(
            *actual == expected,
            format!("workflow is in expected state `{expected}`"),
            format!("expected state `{expected}` but got `{actual}`"),
            json!({"current_state": actual, "expected_state": expected}),
        ))
    }))
}

/// `transitioned_to`: some transition so far led to `state`.
pub(super) fn transitioned_to(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["state"]])?;
    let target = p.required_string(&["state"])?;
    Ok(Box::new(move |input| {
        let w = match played(input) {
            Ok(w) => w,
            Err(none) => return Ok(none),
        };
        let found = w.transitions.iter().find(|t| t.to == target);
        Ok(verdict(
            found.is_some(),
            format!("workflow transitioned to `{target}`"),
            format!("no transition to state `{target}` found"),
            json!({"target": target, "found": found.is_some(), "transitions": w.transitions}),
        ))
    }))
}

/// `workflow_complete`: the workflow is in a terminal state.
pub(super) fn complete(check: &str, params: &Json) -> Result<Judge, ParamError> {
    Params::new(check, params, &[])?;
    Ok(Box::new(move |input| {
        let w = match played(input) {
            Ok(w) => w,
            Err(none) => return Ok(none),
        };
        Ok(verdict(
            w.complete,
            format!("workflow completed in terminal state `{}`", w.current_state),
            format!(
                "workflow has not reached a terminal state (it is in `{}`)",
                w.current_state
            ),
            json!({"complete": w.complete}),
        ))
    }))
}

/// `workflow_transition_order`: the states of `sequence` were entered in that order
/// (others may come between). The score is the share of the sequence matched.
pub(super) fn transition_order(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["sequence"]])?;
    let sequence = p.required_strings(&["sequence"])?;
    Ok(Box::new(move |input| {
        let w = match played(input) {
            Ok(w) => w,
            Err(none) => return Ok(none),
        };
        let actual: Vec<&str> = w.transitions.iter().map(|t| t.to.as_str()).collect();
        let mut matched = 0;
        for state in &actual {
            if sequence.get(matched).is_some_and(|s| s == state) {
                matched += 1;
            }
        }
        let detail = match sequence.get(matched) {
            Some(missing) => format!(
                "sequence incomplete: matched {matched}/{}, missing `{missing}`",
                sequence.len()
            ),
            None => format!("sequence [{}] fully matched", sequence.join(" → ")),
        };
        Ok(Scored {
            score: matched as f64 / sequence.len() as f64,
            detail,
            data: json!({
                "matched_steps": matched,
                "total_steps": sequence.len(),
                "expected_sequence": sequence,
                "actual_transitions": actual,
            }),
        })
    }))
}

/// `spoke_in_state`: an answer with text was given while the workflow was in `state`.
pub(super) fn spoke_in_state(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["state"]])?;
    let expected = p.required_string(&["state"])?;
    Ok(Box::new(move |input| {
        let w = match played(input) {
            Ok(w) => w,
            Err(none) => return Ok(none),
        };
        let mut spoke: Vec<&str> = Vec::new();
        for mark in &w.spoken {
            if !spoke.contains(&mark.state.as_str()) {
                spoke.push(&mark.state);
            }
        }
        Ok(verdict(
            spoke.contains(&expected.as_str()),
            format!("state `{expected}` produced assistant output"),
            format!("no assistant message with text was produced in state `{expected}`"),
            json!({"state": expected, "states_that_spoke": spoke}),
        ))
    }))
}

/// One rule of `workflow_tool_access`: in `state`, only `allowed` may be called.
struct Rule {
    state: String,
    allowed: Vec<String>,
}

/// `workflow_tool_access`: every tool called in a state that has a rule is one the
/// rule allows. Each call is judged in the state it was made in.
pub(super) fn tool_access(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["rules"]])?;
    let rules = match p.value(&["rules"]) {
        None => Vec::new(),
        Some(Json::Array(items)) => items
            .iter()
            .map(|item| rule(check, item))
            .collect::<Result<Vec<_>, _>>()?,
        Some(other) => {
            return Err(ParamError::WrongType {
                check: check.into(),
                name: "rules".into(),
                expected: "a list of {state, allowed} objects",
                found: Box::new(other),
            });
        }
    };
    Ok(Box::new(move |input| {
        if rules.is_empty() {
            return Ok(verdict(
                true,
                "no access rules specified".into(),
                String::new(),
                json!({}),
            ));
        }
        let w = match played(input) {
            Ok(w) => w,
            Err(none) => return Ok(none),
        };
        let violations: Vec<Json> = w
            .tool_calls
            .iter()
            .filter_map(|call| {
                let name = call.name.as_deref().unwrap_or_default();
                let rule = rules.iter().find(|r| r.state == call.state)?;
                (!rule.allowed.iter().any(|a| a == name))
                    .then(|| json!({"tool": name, "state": call.state, "turn_index": call.turn}))
            })
            .collect();
        let lines: Vec<String> = violations
            .iter()
            .map(|v| {
                format!(
                    "{} called in state `{}` (turn {})",
                    v["tool"].as_str().unwrap_or_default(),
                    v["state"].as_str().unwrap_or_default(),
                    v["turn_index"]
                )
            })
            .collect();
        Ok(verdict(
            violations.is_empty(),
            format!("all tool calls comply with {} access rule(s)", rules.len()),
            format!("{} violation(s): {}", violations.len(), lines.join("; ")),
            json!({"violations": violations, "violation_count": violations.len()}),
        ))
    }))
}

fn rule(check: &str, item: &Json) -> Result<Rule, ParamError> {
    let wrong = || ParamError::WrongType {
        check: check.into(),
        name: "rules".into(),
        expected: "a list of {state, allowed} objects with a state name and a list of tool names",
        found: Box::new(item.clone()),
    };
    let state = item["state"]
        .as_str()
        .filter(|s| !s.is_empty())
        .ok_or_else(wrong)?;
    let allowed = match &item["allowed"] {
        Json::Null => Vec::new(),
        Json::Array(names) => names
            .iter()
            .map(|n| n.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(wrong)?,
        _ => return Err(wrong()),
    };
    Ok(Rule {
        state: state.to_string(),
        allowed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{StateMark, TransitionRecord};
    use crate::pack::builtin::prepare;

    fn mark(turn: u32, state: &str, name: Option<&str>) -> StateMark {
        StateMark {
            turn,
            state: state.into(),
            name: name.map(str::to_string),
        }
    }

    fn support() -> EvalInput {
        let moved = |from: &str, to: &str, event: &str, turn| TransitionRecord {
            from: from.into(),
            to: to.into(),
            event: event.into(),
            turn,
            redirected_from: None,
        };
        EvalInput {
            workflow: Some(WorkflowRecord {
                current_state: "closed".into(),
                complete: true,
                transitions: vec![
                    moved("intake", "specialist", "Escalate", 2),
                    moved("specialist", "closed", "Resolve", 3),
                ],
                spoken: vec![mark(1, "intake", None), mark(3, "closed", None)],
                tool_calls: vec![
                    mark(2, "intake", Some("workflow__transition")),
                    mark(3, "specialist", Some("refund")),
                ],
            }),
            ..EvalInput::default()
        }
    }

    fn score(check: &str, params: Json, input: &EvalInput) -> (f64, String) {
        let judge = prepare(check, &params).unwrap_or_else(|e| panic!("{check}: {e}"));
        let scored = judge(input).expect("judged");
        (scored.score, scored.detail)
    }

    #[test]
    fn each_check_scores_the_workflow_as_promptkit_does() {
        let input = support();
        let cases = [
            ("state_is", json!({"state": "closed"}), 1.0),
            ("state_is", json!({"state": "intake"}), 0.0),
            ("transitioned_to", json!({"state": "specialist"}), 1.0),
            ("transitioned_to", json!({"state": "intake"}), 0.0),
            ("workflow_complete", json!({}), 1.0),
            (
                "workflow_transition_order",
                json!({"sequence": ["specialist", "closed"]}),
                1.0,
            ),
            (
                "workflow_transition_order",
                json!({"sequence": ["closed", "specialist"]}),
                0.5,
            ),
            ("spoke_in_state", json!({"state": "closed"}), 1.0),
            ("spoke_in_state", json!({"state": "specialist"}), 0.0),
            (
                "workflow_tool_access",
                json!({"rules": [{"state": "specialist", "allowed": ["refund"]}]}),
                1.0,
            ),
            ("workflow_tool_access", json!({}), 1.0),
        ];
        for (check, params, want) in cases {
            let (got, detail) = score(check, params.clone(), &input);
            assert_eq!(got, want, "{check} {params}: {detail}");
        }
        let (got, detail) = score(
            "workflow_tool_access",
            json!({"rules": [{"state": "intake", "allowed": ["lookup"]}]}),
            &input,
        );
        assert_eq!(
            (got, detail.as_str()),
            (
                0.0,
                "1 violation(s): workflow__transition called in state `intake` (turn 2)"
            )
        );
    }

    #[test]
    fn without_a_workflow_each_scores_0_and_says_why() {
        let (got, detail) = score("state_is", json!({"state": "x"}), &EvalInput::default());
        assert_eq!((got, detail.as_str()), (0.0, NO_WORKFLOW));
    }

    #[test]
    fn params_are_checked_when_prepared() {
        for (check, params) in [
            ("state_is", json!({})),
            ("spoke_in_state", json!({"state": ""})),
            ("workflow_transition_order", json!({"sequence": []})),
            (
                "workflow_tool_access",
                json!({"rules": [{"allowed": ["x"]}]}),
            ),
            ("workflow_complete", json!({"state": "x"})),
        ] {
            assert!(prepare(check, &params).is_err(), "{check} {params}");
        }
    }
}
