//! A scenario's assertions as evals: each turn assertion runs after its turn only,
//! each conversation assertion when the conversation is over, and every one is a
//! gate (a score of 1, or the bounds of an `assertion` wrapper).

use crate::doc::Diagnostic;
use crate::pack::{Bound, EvalDef, Threshold, Trigger};
use crate::report::Check;

use super::{Assertion, Scenario, UnplayedTurn};

/// PromptArena assertion types that need media, a runtime promptexec is not
/// (A2A evaluators, compositions, remote evaluators) or a model of a kind it does
/// not call (embeddings, moderation, sentiment).
const NOT_PLAYED: &[&str] = &[
    "a2a_eval",
    "a2a_eval_session",
    "audio_duration",
    "audio_emotion",
    "audio_format",
    "composition_branch_taken",
    "composition_output",
    "composition_parallel_complete",
    "composition_step_output",
    "cosine_similarity",
    "guardrail",
    "image_dimensions",
    "image_format",
    "image_moderation",
    "rest_eval",
    "rest_eval_session",
    "role_violation",
    "text_sentiment",
    "text_toxicity",
    "video_duration",
    "video_resolution",
];

/// Types PromptKit's handlers judge offline that promptexec has no check for yet.
const NOT_RUN_YET: &[&str] = &["tool_exec"];

/// Why an assertion of `kind` is not judged, when it is one PromptKit knows and
/// promptexec does not run (and the config binds no eval of that type).
fn not_run(kind: &str, bound: &dyn Fn(&str) -> bool) -> Option<String> {
    if crate::evals::is_builtin(kind) || bound(kind) {
        return None;
    }
    if NOT_PLAYED.contains(&kind) {
        return Some(format!(
            "not played: assertion type `{kind}` needs a real model or a runtime promptexec does not play"
        ));
    }
    NOT_RUN_YET.contains(&kind).then(|| {
        format!("not played: promptexec has no check for PromptKit's assertion type `{kind}` yet")
    })
}

/// The type that judges `assertion`: the one an `assertion` wrapper names in its
/// `eval_type`, else its own.
fn judged_type(assertion: &Assertion) -> &str {
    match (assertion.kind.as_str(), assertion.params.get("eval_type")) {
        ("assertion", Some(serde_json::Value::String(wrapped))) => wrapped,
        (kind, _) => kind,
    }
}

/// Types that judge the whole conversation, and the check each becomes there.
const SESSION_TYPES: &[(&str, &str)] = &[
    ("tools_called_session", "tools_called"),
    ("tools_not_called_session", "tools_not_called"),
    ("tool_args_session", "tool_args"),
    ("tool_args_excluded_session", "tool_args_excluded"),
];

/// Every assertion of `scenario` as an eval, with what reports say of it, in file
/// order. An assertion promptexec cannot judge (its turn is not played, or its type
/// needs a real model or another runtime) is kept as a check with no eval, reported
/// skipped with the reason. A type used where it cannot judge is an error at its
/// place in the file; unknown types and wrong params are found when the evals are
/// prepared.
///
/// `bound` says which eval types the config binds: one of those runs as the
/// config says, whatever promptexec would otherwise do with its type.
pub(crate) fn plan(
    scenario: &Scenario,
    bound: &dyn Fn(&str) -> bool,
) -> Result<Planned, Vec<Diagnostic>> {
    let mut planned = Planned::default();
    let mut problems = Vec::new();
    let mut entries: Vec<Entry> = Vec::new();
    for (i, turn) in scenario.turns.iter().enumerate() {
        let played = i as u32;
        for unplayed in scenario.unplayed.iter().filter(|u| u.after == played) {
            entries.extend(unplayed_entries(unplayed));
        }
        let number = played + 1;
        entries.extend(turn.assertions.iter().enumerate().map(|(j, a)| Entry {
            id: format!("turn-{number}.{}", j + 1),
            turn: Some(number),
            place: format!("turn {number}"),
            not_played: None,
            assertion: a,
        }));
    }
    let last = scenario.turns.len() as u32;
    for unplayed in scenario.unplayed.iter().filter(|u| u.after >= last) {
        entries.extend(unplayed_entries(unplayed));
    }
    entries.extend(
        scenario
            .conversation_assertions
            .iter()
            .enumerate()
            .map(|(j, a)| Entry {
                id: format!("conversation.{}", j + 1),
                turn: None,
                place: "conversation".to_string(),
                not_played: scenario.turns.is_empty().then(|| {
                    "not played: no turn of the scenario is played, so there is no conversation to judge".to_string()
                }),
                assertion: a,
            }),
    );
    for entry in entries {
        let assertion = entry.assertion;
        let written_in_turn = entry.turn.is_some() || entry.not_played.is_some();
        let not_played = match eval_type(assertion, written_in_turn) {
            Err(error) => {
                problems.push(Diagnostic::error(
                    &scenario.path,
                    assertion.pos,
                    error.to_string(),
                ));
                continue;
            }
            Ok(_) if let Some(reason) = not_run(judged_type(assertion), bound) => {
                Some(entry.not_played.unwrap_or(reason))
            }
            Ok(eval_type) => {
                let def = eval_def(&entry.id, eval_type, assertion, entry.turn);
                match &entry.not_played {
                    Some(_) => planned.unplayed.push(def),
                    None => planned.evals.push(def),
                }
                entry.not_played
            }
        };
        planned.checks.push(Check {
            id: entry.id,
            kind: assertion.kind.clone(),
            message: assertion.message.clone(),
            turn: entry.turn,
            pass_threshold: assertion.pass_threshold,
            place: entry.place,
            not_played,
            pos: assertion.pos,
        });
    }
    if problems.is_empty() {
        Ok(planned)
    } else {
        Err(problems)
    }
}

/// A scenario's assertions, planned.
#[derive(Debug, Default)]
pub(crate) struct Planned {
    /// The evals that judge the assertions played.
    pub evals: Vec<EvalDef>,
    /// Every assertion, in file order.
    pub checks: Vec<Check>,
    /// The evals of assertions written under turns that are not played: prepared
    /// to check their type and params, never run.
    pub unplayed: Vec<EvalDef>,
}

/// An assertion with where it stands, before it is planned.
struct Entry<'a> {
    id: String,
    turn: Option<u32>,
    place: String,
    not_played: Option<String>,
    assertion: &'a Assertion,
}

/// The assertions of a turn that is not played, each skipped for the turn's reason.
fn unplayed_entries(turn: &UnplayedTurn) -> impl Iterator<Item = Entry<'_>> {
    turn.assertions.iter().enumerate().map(|(j, a)| Entry {
        id: format!("unplayed-turn-{}.{}", turn.index, j + 1),
        turn: None,
        place: turn.place(),
        not_played: Some(turn.reason.clone()),
        assertion: a,
    })
}

/// The check an assertion type runs as: a session type's turn check, else itself.
pub(super) fn check_of(kind: &str) -> &str {
    SESSION_TYPES
        .iter()
        .find(|(name, _)| *name == kind)
        .map_or(kind, |(_, check)| check)
}

/// Why an assertion cannot run where it is written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum PlacementError {
    #[error(
        "assertion type `{kind}` judges the whole conversation; put it in conversation_assertions"
    )]
    WholeConversation { kind: String },
}

/// The eval type an assertion runs as, or why it cannot run where it stands
/// (`in_turn`: written under a turn).
fn eval_type(assertion: &Assertion, in_turn: bool) -> Result<&str, PlacementError> {
    let kind = assertion.kind.as_str();
    match (
        SESSION_TYPES.iter().find(|(name, _)| *name == kind),
        in_turn,
    ) {
        (Some((_, check)), false) => Ok(check),
        (Some(_), true) => Err(PlacementError::WholeConversation {
            kind: kind.to_string(),
        }),
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
