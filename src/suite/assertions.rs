//! A scenario's assertions as evals: each turn assertion runs after its turn only,
//! each conversation assertion when the conversation is over, and every one is a
//! gate (a score of 1, or the bounds of an `assertion` wrapper).

use crate::doc::{Diagnostic, Pos};
use crate::pack::{Bound, EvalDef, Threshold, Trigger};

use super::{Assertion, Scenario};

/// One assertion as planned: the eval that checks it, and what a report says of it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Check {
    /// The eval id its results carry.
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub message: Option<String>,
    /// The turn it judges (from 1); `None`: the whole conversation.
    pub turn: Option<u32>,
    pub pass_threshold: f64,
    #[serde(skip)]
    pub pos: Pos,
}

/// PromptArena assertion types that need a real model, media, or a runtime
/// promptexec is not (agents, workflows, memories, remote evaluators).
const NOT_PLAYED: &[&str] = &[
    "a2a_eval",
    "a2a_eval_session",
    "agent_invoked",
    "agent_not_invoked",
    "agent_response_contains",
    "answer_relevancy",
    "audio_duration",
    "audio_emotion",
    "audio_format",
    "bias",
    "composition_branch_taken",
    "composition_output",
    "composition_parallel_complete",
    "composition_step_output",
    "contextual_precision",
    "contextual_recall",
    "contextual_relevancy",
    "cosine_similarity",
    "cost_budget",
    "directional",
    "faithfulness",
    "guardrail",
    "hallucination",
    "image_dimensions",
    "image_format",
    "image_moderation",
    "llm_judge",
    "llm_judge_conversation",
    "llm_judge_session",
    "llm_judge_tool_calls",
    "outcome_equivalent",
    "pii_leakage",
    "rest_eval",
    "rest_eval_session",
    "role_violation",
    "skill_activated",
    "skill_activation_order",
    "skill_not_activated",
    "state_is",
    "text_sentiment",
    "text_toxicity",
    "tool_result_has_media",
    "tool_result_media_type",
    "toxicity",
    "transitioned_to",
    "video_duration",
    "video_resolution",
    "workflow_complete",
    "workflow_tool_access",
    "workflow_transition_order",
];

/// Types that judge the whole conversation, and the check each becomes there.
const SESSION_TYPES: &[(&str, &str)] = &[
    ("tools_called_session", "tools_called"),
    ("tools_not_called_session", "tools_not_called"),
    ("tool_args_session", "tool_args"),
    ("tool_args_excluded_session", "tool_args_excluded"),
];

/// Every assertion of `scenario` as an eval, with what reports say of it. A type
/// promptexec cannot play, or one used where it cannot judge, is an error at its
/// place in the file; unknown types and wrong params are found when the evals are
/// prepared.
pub fn plan(scenario: &Scenario) -> Result<(Vec<EvalDef>, Vec<Check>), Vec<Diagnostic>> {
    let mut evals = Vec::new();
    let mut checks = Vec::new();
    let mut problems = Vec::new();
    let turn_assertions = scenario.turns.iter().enumerate().flat_map(|(i, turn)| {
        let at = Some(i as u32 + 1);
        turn.assertions
            .iter()
            .enumerate()
            .map(move |(j, a)| (at, j, a))
    });
    let conversation = scenario
        .conversation_assertions
        .iter()
        .enumerate()
        .map(|(j, a)| (None, j, a));
    for (turn, j, assertion) in turn_assertions.chain(conversation) {
        let id = match turn {
            Some(turn) => format!("turn-{turn}.{}", j + 1),
            None => format!("conversation.{}", j + 1),
        };
        match eval_type(assertion, turn) {
            Ok(eval_type) => {
                evals.push(eval_def(&id, eval_type, assertion, turn));
                checks.push(Check {
                    id,
                    kind: assertion.kind.clone(),
                    message: assertion.message.clone(),
                    turn,
                    pass_threshold: assertion.pass_threshold,
                    pos: assertion.pos,
                });
            }
            Err(message) => {
                problems.push(Diagnostic::error(&scenario.path, assertion.pos, message))
            }
        }
    }
    if problems.is_empty() {
        Ok((evals, checks))
    } else {
        Err(problems)
    }
}

/// The eval type an assertion runs as, or why it cannot run where it stands.
fn eval_type(assertion: &Assertion, turn: Option<u32>) -> Result<&str, String> {
    let kind = assertion.kind.as_str();
    if NOT_PLAYED.contains(&kind) {
        return Err(format!(
            "assertion type `{kind}` needs a real model or a runtime promptexec does not play; scenarios run against the scripted model"
        ));
    }
    match (SESSION_TYPES.iter().find(|(name, _)| *name == kind), turn) {
        (Some((_, check)), None) => Ok(check),
        (Some(_), Some(_)) => Err(format!(
            "assertion type `{kind}` judges the whole conversation; put it in conversation_assertions"
        )),
        (None, _) => Ok(kind),
    }
}

fn eval_def(id: &str, eval_type: &str, assertion: &Assertion, turn: Option<u32>) -> EvalDef {
    // An `assertion` wrapper brings its own bounds; every other check must score 1.
    let threshold = (eval_type != "assertion").then_some(Threshold {
        min: Some(Bound {
            value: 1.0,
            inclusive: true,
        }),
        max: None,
    });
    EvalDef {
        id: id.to_string(),
        eval_type: eval_type.to_string(),
        trigger: match turn {
            Some(_) => Trigger::EveryTurn,
            None => Trigger::OnConversationComplete,
        },
        params: assertion.params.clone(),
        metric: None,
        threshold,
        sample_percentage: 100.0,
        enabled: true,
        when: assertion.when.clone(),
        description: assertion.message.clone(),
        pos: assertion.pos,
        turn,
    }
}
