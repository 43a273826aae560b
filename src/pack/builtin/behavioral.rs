//! `outcome_equivalent` and `directional`: one run's outcome against the outcome
//! written in the assertion (the tools it called, the workflow state it ended in,
//! or its answer), as PromptKit's behavioral handlers compare them. Neither needs a
//! second run: the baseline is a param.

use std::collections::BTreeSet;

use serde_json::{Value as Json, json};

use crate::conversation::EvalInput;

use super::{Judge, ParamError, Params, Scored, verdict};

const METRICS: &[&str] = &["tool_calls", "final_state", "content_hash"];
const CHECKS: &[&str] = &["same_tool_calls", "same_outcome", "similar_content"];

/// `outcome_equivalent`: `metric` is `tool_calls` (the set of tools called equals
/// `expected_tools`), `final_state` (the workflow is in `expected_state`) or
/// `content_hash` (the answer is exactly `expected_content`). An empty expectation
/// passes, as there is nothing to compare.
pub(super) fn outcome_equivalent(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(
        check,
        params,
        &[
            &["metric"],
            &["expected_tools"],
            &["expected_state"],
            &["expected_content"],
        ],
    )?;
    let metric = choice(&p, check, "metric", METRICS)?;
    let tools = p.strings(&["expected_tools"])?.unwrap_or_default();
    let state = p.string(&["expected_state"])?.unwrap_or_default();
    let content = p.string(&["expected_content"])?.unwrap_or_default();
    Ok(match metric {
        "tool_calls" => same_tools(tools, "expected"),
        "final_state" => same_state(state, "expected"),
        _ => Box::new(move |input| {
            if content.is_empty() {
                return Ok(nothing_to_compare("expected_content"));
            }
            let actual = &input.content;
            Ok(verdict(
                *actual == content,
                "content matches expected output".into(),
                "content does not match expected output".into(),
                json!({"matched": *actual == content, "actual_length": actual.len(), "expected_length": content.len()}),
            ))
        }),
    })
}

/// `directional`: `check` is `same_tool_calls` (against `baseline_tools`),
/// `same_outcome` (the workflow state against `baseline_state`) or
/// `similar_content` (the Jaccard overlap of the answer's lower-cased words with
/// `baseline_content`, which is the score; `threshold`, 0.5 by default, is said in
/// the detail).
pub(super) fn directional(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(
        check,
        params,
        &[
            &["check"],
            &["baseline_tools"],
            &["baseline_state"],
            &["baseline_content"],
            &["threshold"],
        ],
    )?;
    let which = choice(&p, check, "check", CHECKS)?;
    let tools = p.strings(&["baseline_tools"])?.unwrap_or_default();
    let state = p.string(&["baseline_state"])?.unwrap_or_default();
    let content = p.string(&["baseline_content"])?.unwrap_or_default();
    let threshold = p.number(&["threshold"])?.unwrap_or(0.5);
    Ok(match which {
        "same_tool_calls" => same_tools(tools, "baseline"),
        "same_outcome" => same_state(state, "baseline"),
        _ => Box::new(move |input| {
            if content.is_empty() {
                return Ok(nothing_to_compare("baseline_content"));
            }
            let score = word_overlap(&input.content, &content);
            let relation = if score >= threshold { ">=" } else { "<" };
            Ok(Scored {
                score,
                detail: format!(
                    "content similarity {score:.2} {relation} threshold {threshold:.2}"
                ),
                data: json!({"overlap_score": score, "threshold": threshold}),
            })
        }),
    })
}

/// The word param `name`, which must be one of `choices`.
fn choice(
    p: &Params<'_>,
    check: &str,
    name: &'static str,
    choices: &[&'static str],
) -> Result<&'static str, ParamError> {
    let given = p
        .string(&[name])?
        .ok_or_else(|| p.missing(&[name], "the comparison to make"))?;
    choices
        .iter()
        .find(|c| **c == given)
        .copied()
        .ok_or_else(|| ParamError::NotAChoice {
            check: check.into(),
            name: name.into(),
            suggestion: crate::doc::suggest(&given, choices.iter().copied()),
            found: given,
            choices: choices.join(", "),
        })
}

/// Passes: the assertion gives nothing to compare with, as PromptKit says.
fn nothing_to_compare(param: &str) -> Scored {
    Scored {
        score: 1.0,
        detail: format!("no {param} specified; skipping comparison"),
        data: json!({}),
    }
}

/// The set of tools called equals `tools` (an empty `tools` passes).
fn same_tools(tools: Vec<String>, label: &'static str) -> Judge {
    let expected: BTreeSet<String> = tools.into_iter().collect();
    Box::new(move |input: &EvalInput| {
        if expected.is_empty() {
            return Ok(nothing_to_compare(&format!("{label}_tools")));
        }
        let actual: BTreeSet<&str> = input.tool_calls.iter().map(|c| c.name.as_str()).collect();
        let want: BTreeSet<&str> = expected.iter().map(String::as_str).collect();
        let list = |set: &BTreeSet<&str>| set.iter().copied().collect::<Vec<_>>().join(", ");
        Ok(verdict(
            actual == want,
            format!("tool calls match {label}: [{}]", list(&want)),
            format!(
                "tool calls differ from {label}: got [{}], {label} [{}]",
                list(&actual),
                list(&want)
            ),
            json!({"actual_tools": actual, "expected_tools": want}),
        ))
    })
}

/// The workflow is in `state` (an empty `state` passes; no workflow fails).
fn same_state(state: String, label: &'static str) -> Judge {
    Box::new(move |input: &EvalInput| {
        if state.is_empty() {
            return Ok(nothing_to_compare(&format!("{label}_state")));
        }
        let Some(workflow) = &input.workflow else {
            return Ok(Scored {
                score: 0.0,
                detail: "no workflow state to compare: the conversation plays no workflow".into(),
                data: json!({}),
            });
        };
        let actual = &workflow.current_state;
        Ok(verdict(
            *actual == state,
            format!("state matches {label}: `{state}`"),
            format!("state `{actual}` does not match {label} `{state}`"),
            json!({"actual_state": actual, "expected_state": state}),
        ))
    })
}

/// The Jaccard similarity of the two texts' sets of lower-cased words.
fn word_overlap(a: &str, b: &str) -> f64 {
    let words =
        |s: &str| -> BTreeSet<String> { s.split_whitespace().map(str::to_lowercase).collect() };
    let (a, b) = (words(a), words(b));
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let union = a.union(&b).count();
    if a.is_empty() || b.is_empty() || union == 0 {
        return 0.0;
    }
    a.intersection(&b).count() as f64 / union as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{ToolCallRecord, WorkflowRecord};

    fn input(content: &str, tools: &[&str], state: Option<&str>) -> EvalInput {
        EvalInput {
            content: content.into(),
            tool_calls: tools
                .iter()
                .map(|n| ToolCallRecord {
                    name: n.to_string(),
                    args: json!({}),
                    result: None,
                    error: None,
                    parts: Vec::new(),
                })
                .collect(),
            workflow: state.map(|s| WorkflowRecord {
                current_state: s.into(),
                ..WorkflowRecord::default()
            }),
            ..EvalInput::default()
        }
    }

    fn score(judge: &Judge, input: &EvalInput) -> f64 {
        judge(input).expect("judged").score
    }

    #[test]
    fn outcome_equivalent_compares_tools_state_and_exact_content() {
        let tools = outcome_equivalent(
            "outcome_equivalent",
            &json!({"metric": "tool_calls", "expected_tools": ["a", "b"]}),
        )
        .expect("params");
        assert_eq!(score(&tools, &input("", &["b", "a", "a"], None)), 1.0);
        assert_eq!(score(&tools, &input("", &["a"], None)), 0.0);
        let state = outcome_equivalent(
            "outcome_equivalent",
            &json!({"metric": "final_state", "expected_state": "done"}),
        )
        .expect("params");
        assert_eq!(score(&state, &input("", &[], Some("done"))), 1.0);
        assert_eq!(score(&state, &input("", &[], None)), 0.0);
        let exact = outcome_equivalent(
            "outcome_equivalent",
            &json!({"metric": "content_hash", "expected_content": "Hi"}),
        )
        .expect("params");
        assert_eq!(score(&exact, &input("Hi", &[], None)), 1.0);
        assert_eq!(score(&exact, &input("Hi!", &[], None)), 0.0);
        let empty = outcome_equivalent("outcome_equivalent", &json!({"metric": "tool_calls"}))
            .expect("params");
        assert_eq!(score(&empty, &input("", &["x"], None)), 1.0);
    }

    #[test]
    fn directional_scores_word_overlap() {
        let similar = directional(
            "directional",
            &json!({"check": "similar_content", "baseline_content": "the order has shipped"}),
        )
        .expect("params");
        let judged = similar(&input("The order HAS shipped", &[], None)).expect("judged");
        assert_eq!(judged.score, 1.0);
        // {the, order, shipped} shared of {the, order, has, shipped, today, was}.
        let half = similar(&input("the order was shipped today", &[], None)).expect("judged");
        assert_eq!(half.score, 0.5);
        assert_eq!(half.detail, "content similarity 0.50 >= threshold 0.50");
    }

    #[test]
    fn a_missing_or_unknown_comparison_is_a_param_error() {
        let missing = directional("directional", &json!({}))
            .err()
            .expect("refused");
        assert!(missing.to_string().contains("needs `check`"), "{missing}");
        let unknown = outcome_equivalent("outcome_equivalent", &json!({"metric": "tool_call"}))
            .err()
            .expect("refused");
        assert!(
            unknown.to_string().contains("did you mean `tool_calls`"),
            "{unknown}"
        );
    }
}
