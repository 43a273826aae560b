//! An Arena project's `kind: Eval` files, each played as a scenario over the
//! conversation it names: its user messages are the turns, the provider answers
//! each with the assistant message saved after it (nothing is asked of a model), so
//! the turn assertions (`all_turns`), the conversation assertions and the judges
//! check the saved answers and report like any scenario.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::SystemTime;

use indexmap::IndexMap;

use crate::arena::{EVAL_PROMPT, EvalFile, Project, RawAssertion};
use crate::cli::CliError;
use crate::config::{Provider, RuntimeConfig};
use crate::doc::{Checker, Diagnostic, Diagnostics, pointer};
use crate::evals::{drop_unread, is_builtin};
use crate::pack::{Pack, resolve_when};
use crate::provider::recording::{SavedMessage, saved_conversation};
use crate::provider::{MockScript, MockTurn};
use crate::suite::{self, Assertion, Scenario, Slice, Turn};

use crate::commands::common::load;
use crate::commands::common::scenario_files::check_filters;
use crate::commands::common::scenario_files::plan::{
    Context, PlanOptions, ScenarioPlan, plan_each,
};

/// The provider that answers from the saved conversations.
const RECORDED: &str = "recorded-conversation";

/// Plans each Eval file of `project` (those `--filter` and `--shard` keep) as a
/// scenario; problems with its files go to `found`.
pub(super) fn plan(
    project: &Project,
    pack: &Pack,
    options: &PlanOptions<'_>,
    found: &mut Diagnostics,
) -> Result<Vec<ScenarioPlan>, CliError> {
    let mut scenarios = Vec::new();
    let mut script = MockScript::default();
    for eval in &project.arena.evals {
        let messages = match saved_conversation(&eval.recording) {
            Ok(messages) => messages,
            Err(problems) => {
                found.extend(problems);
                continue;
            }
        };
        let (scenario, answers) = scenario(eval, &project.config, &messages, found);
        script.scenarios.insert(
            scenario.id.clone(),
            crate::provider::Scenario {
                default_response: None,
                turns: answers,
            },
        );
        scenarios.push(scenario);
    }
    if found.has_errors() || scenarios.is_empty() {
        return Ok(Vec::new());
    }
    let picked = suite::select(scenarios, options.filter, options.shard.as_ref());
    let mut config = project.config.clone();
    config.providers.push(Provider {
        id: Some(RECORDED.into()),
        kind: "mock".into(),
        ..Provider::default()
    });
    let inputs = load::vars(options.vars)?;
    let context = Context {
        pack,
        config: &config,
        script: &script,
        inputs: &inputs,
        now: options.vars.now.unwrap_or_else(SystemTime::now),
        provider: Some(RECORDED),
        mock_given: false,
        replay_dir: None,
        replay_match: options.replay_match,
        stream: false,
    };
    let (plans, problems) = plan_each(picked, &context)?;
    found.extend(problems);
    Ok(plans)
}

/// Whether the Arena project at `path` names Eval files (false when it cannot be
/// read: planning it reports why).
pub(super) fn in_project(path: &Path) -> bool {
    crate::arena::load(path, false).is_ok_and(|loaded| !loaded.value.arena.evals.is_empty())
}

/// The plans `--filter` and `--shard` keep, scenarios and Eval files alike, as
/// [`suite::select`] keeps scenarios; a filter that picks none is refused.
pub(super) fn select(
    mut plans: Vec<ScenarioPlan>,
    filters: &[String],
    slice: Option<Slice>,
) -> Result<Vec<ScenarioPlan>, CliError> {
    let all: Vec<Scenario> = plans.iter().map(|p| p.scenario.clone()).collect();
    check_filters(&all, filters)?;
    plans.retain(|p| filters.is_empty() || filters.iter().any(|f| suite::matches(&p.scenario, f)));
    plans.sort_by(|a, b| a.scenario.id.cmp(&b.scenario.id));
    Ok(match slice {
        None => plans,
        Some(slice) => suite::dealt(plans, |p| &p.scenario.id, &slice),
    })
}

/// The scenario an Eval file plays, and the answers its turns get: each user
/// message is a turn, answered by the last assistant text saved before the next.
fn scenario(
    eval: &EvalFile,
    config: &RuntimeConfig,
    messages: &[SavedMessage],
    found: &mut Diagnostics,
) -> (Scenario, BTreeMap<u64, MockTurn>) {
    let text = std::fs::read_to_string(&eval.path).unwrap_or_default();
    let mut cx = Checker::new(&eval.path, text);
    let turn_assertions: Vec<Assertion> = eval
        .turn_assertions
        .iter()
        .enumerate()
        .map(|(i, raw)| {
            let at = pointer("/spec/turns/all_turns/assertions", i);
            assertion(&mut cx, config, raw, &at)
        })
        .collect();
    let conversation_assertions = eval
        .conversation_assertions
        .iter()
        .enumerate()
        .map(|(i, raw)| {
            let at = pointer("/spec/conversation_assertions", i);
            assertion(&mut cx, config, raw, &at)
        })
        .collect();
    found.extend(cx.diagnostics);
    let mut turns: Vec<Turn> = Vec::new();
    let mut answers = BTreeMap::new();
    for message in messages {
        match message.role.as_str() {
            "user" => turns.push(Turn {
                content: message.content.clone(),
                dropped: Vec::new(),
                assertions: turn_assertions.clone(),
                consent: Vec::new(),
                chaos: Vec::new(),
                streaming: None,
                speaker: None,
            }),
            "assistant" if !turns.is_empty() && !message.content.is_empty() => {
                let answer = MockTurn {
                    content: message.content.clone(),
                    tool_calls: Vec::new(),
                };
                answers.insert(turns.len() as u64, answer);
            }
            _ => {}
        }
    }
    if turns.is_empty() {
        found.push(Diagnostic::error(
            &eval.path,
            eval.recording_pos,
            format!(
                "spec.recording.path: `{}` holds no user message to judge the answers to",
                eval.recording.display()
            ),
        ));
    }
    let scenario = Scenario {
        path: eval.path.clone(),
        id: eval.id.clone(),
        task_type: EVAL_PROMPT.into(),
        task_type_pos: eval.pos,
        description: eval.description.clone(),
        labels: eval
            .tags
            .iter()
            .map(|t| (t.clone(), String::new()))
            .collect::<IndexMap<_, _>>(),
        variables: IndexMap::new(),
        tool_policy: None,
        turns,
        unplayed: Vec::new(),
        conversation_assertions,
        trials: 1,
        providers: Vec::new(),
        streaming: None,
        pos: eval.pos,
    };
    (scenario, answers)
}

/// An assertion as a scenario's; params its built-in check does not read are left
/// out with a warning, as PromptArena ignores them.
fn assertion(cx: &mut Checker, config: &RuntimeConfig, raw: &RawAssertion, at: &str) -> Assertion {
    let mut params = raw.params.clone();
    if is_builtin(&raw.kind) && !config.evals.contains_key(&raw.kind) {
        for unread in drop_unread(&raw.kind, &mut params) {
            let text = format!("{at}: {}; it is ignored", unread.message);
            cx.warning(raw.pos, text);
        }
    }
    // As in a scenario, a message written inside the params is the assertion's.
    let lifted = params
        .as_object_mut()
        .and_then(|p| p.remove("message"))
        .and_then(|m| m.as_str().map(str::to_string));
    Assertion {
        kind: raw.kind.clone(),
        params,
        message: raw.message.clone().or(lifted),
        when: raw
            .when
            .as_ref()
            .map(|n| resolve_when(cx, n, &pointer(at, "when")))
            .unwrap_or_default(),
        pass_threshold: raw.pass_threshold.unwrap_or(1.0),
        pos: raw.pos,
    }
}
