//! Planning scenarios as `run` plays them: each one's prompt (with its tool policy
//! and variables), the provider that answers it, and the evals that judge its
//! assertions, all checked before anything starts. `run`, `list` and `validate`
//! plan through here, so they accept and refuse the same files.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use crate::cli::args::{ReplayMatch, VarArgs};
use crate::cli::{CliError, Console, Settings};
use crate::config::RuntimeConfig;
use crate::doc::{Diagnostic, Diagnostics, suggest};
use crate::evals::{Evaluator, prompt_evals};
use crate::pack::{self, Pack, Prompt, ToolPolicy, VarInputs};
use crate::provider::{self, MockScript, ModelPlan, load_mock};
pub(in crate::commands) use crate::suite::ScenarioPlan;
use crate::suite::{self, Check, Scenario, Slice, recording_path, variables_json};

use crate::commands::common::load::{self, mock_path};
use crate::commands::common::model::{self, NamedBy};
use crate::commands::common::warnings::LoadWarnings;

/// What a command was given that decides how its scenarios play.
pub(in crate::commands) struct PlanOptions<'a> {
    pub pack: &'a Path,
    /// Files and folders of scenarios; empty: the `scenarios/` folder beside the pack.
    pub scenarios: &'a [PathBuf],
    pub filter: &'a [String],
    pub shard: Option<Slice>,
    pub mock: Option<&'a Path>,
    pub provider: Option<&'a str>,
    pub replay_dir: Option<&'a Path>,
    pub replay_match: ReplayMatch,
    pub stream: bool,
    pub vars: &'a VarArgs,
    pub strict: bool,
}

/// A suite's files loaded and checked; nothing has started.
pub(in crate::commands) struct Loaded {
    pub config: RuntimeConfig,
    pub pack: Pack,
    /// Every warning found loading it (shown already, unless `--strict` made them
    /// fatal).
    pub warnings: Diagnostics,
    pub scenarios: Vec<ScenarioPlan>,
    /// What the suite is, as shards name it ([`suite::identity`]).
    pub identity: String,
}

/// What every scenario of a suite plays with, beside the scenario itself.
pub(in crate::commands) struct Context<'a> {
    pub pack: &'a Pack,
    pub config: &'a RuntimeConfig,
    pub script: &'a MockScript,
    pub inputs: &'a VarInputs,
    pub now: SystemTime,
    pub provider: Option<&'a str>,
    pub mock_given: bool,
    pub replay_dir: Option<&'a Path>,
    pub replay_match: ReplayMatch,
    pub stream: bool,
}

/// Loads the config (an empty one when there is none), the pack, the mock script
/// and the scenarios, selects them, and plans each. `None` scenarios (nothing given
/// and no `scenarios/` folder) is an empty plan when `required` is false.
pub(in crate::commands) fn plan(
    settings: &Settings,
    options: &PlanOptions<'_>,
    required: bool,
    console: &mut Console,
) -> Result<Loaded, CliError> {
    let mut warnings = LoadWarnings::new(options.strict);
    let config = warnings.config_or_empty(settings, console)?;
    let mut pack = warnings.keep(pack::load(options.pack), console)?;
    for warning in crate::evals::drop_unread_params(&mut pack, &config.evals) {
        warnings.add(warning, console);
    }
    let script = match mock_path(options.mock, &config) {
        Some(path) => warnings.keep(load_mock(&path), console)?,
        None => MockScript::default(),
    };
    let scenarios = match super::read(options.pack, options.scenarios, &mut warnings, console)? {
        Some(scenarios) => scenarios,
        None if required => return Err(super::none_in(&suite::default_folder(options.pack))),
        None => Vec::new(),
    };
    super::check_filters(&scenarios, options.filter)?;
    let suite_size = scenarios.len();
    let identity = suite::identity(&scenarios, options.filter);
    let picked = suite::select(scenarios, options.filter, options.shard.as_ref());
    if let Some(shard) = &options.shard
        && picked.is_empty()
    {
        // A CI matrix wider than the suite: this machine has nothing to play.
        warnings.add(
            Diagnostic::plain_warning(format!(
                "--shard {shard}: this shard holds no scenario (the suite has {suite_size})"
            )),
            console,
        );
    }
    let inputs = load::vars(options.vars)?;
    let context = Context {
        pack: &pack,
        config: &config,
        script: &script,
        inputs: &inputs,
        now: options.vars.now.unwrap_or_else(SystemTime::now),
        provider: options.provider,
        mock_given: options.mock.is_some(),
        replay_dir: options.replay_dir,
        replay_match: options.replay_match,
        stream: options.stream,
    };
    let (plans, found) = plan_each(picked, &context)?;
    warnings.sort(&found, console)?;
    let warnings = warnings.settle()?;
    Ok(Loaded {
        config,
        pack,
        warnings,
        scenarios: plans,
        identity,
    })
}

/// Each scenario planned, and every warning and error found, each said once (a
/// provider's problem is the same for every scenario it plays). A problem that is
/// not about the files (a `--provider` the config lacks) stops it.
pub(in crate::commands) fn plan_each(
    scenarios: Vec<Scenario>,
    cx: &Context<'_>,
) -> Result<(Vec<ScenarioPlan>, Diagnostics), CliError> {
    let mut found = Diagnostics::default();
    let mut plans = Vec::new();
    let mut warned_prompts = HashSet::new();
    for scenario in scenarios {
        let Some(prompt) = cx.pack.prompts.get(&scenario.task_type) else {
            let names = cx.pack.prompts.keys().map(String::as_str);
            found.push(Diagnostic::error(
                &scenario.path,
                scenario.task_type_pos,
                format!(
                    "/spec/task_type: `{}` is not a prompt of {}{}",
                    scenario.task_type,
                    cx.pack.path.display(),
                    suggest(&scenario.task_type, names)
                ),
            ));
            continue;
        };
        if warned_prompts.insert(prompt.id.clone()) {
            for warning in pack::unbound_tools(cx.pack, prompt, cx.config).iter() {
                say(&mut found, warning.clone());
            }
        }
        let mut notes = Diagnostics::default();
        let model = match scenario_model(&scenario, cx, &mut notes) {
            Ok(model) => Some(model),
            Err(CliError::Invalid(problems)) => {
                notes.extend(problems);
                None
            }
            Err(other) => return Err(other),
        };
        for note in notes.iter() {
            say(&mut found, note.clone());
        }
        let Some(model) = model else {
            continue;
        };
        let mocked = model.is_mock();
        if mocked && cx.script.path.is_some() && !cx.script.scenarios.contains_key(&scenario.id) {
            found.push(Diagnostic::warning(
                &scenario.path,
                scenario.pos,
                format!(
                    "the mock responses have no scenario `{}`; every model call gets the default response",
                    scenario.id
                ),
            ));
        }
        match plan_scenario(scenario, prompt, cx, model) {
            Ok(plan) => plans.push(plan),
            Err(problems) => found.extend(problems),
        }
    }
    Ok((plans, found))
}

/// Adds `diagnostic` unless it was said already.
fn say(found: &mut Diagnostics, diagnostic: Diagnostic) {
    if !found.iter().any(|seen| *seen == diagnostic) {
        found.push(diagnostic);
    }
}

/// The prompt with the scenario's policy and variables, the system prompt it
/// renders to, and every eval it runs, checked to be runnable (the evals of
/// assertions that are not played are checked too, never run).
fn plan_scenario(
    scenario: Scenario,
    prompt: &Prompt,
    cx: &Context<'_>,
    model: ModelPlan,
) -> Result<ScenarioPlan, Diagnostics> {
    let mut prompt = prompt.clone();
    if let Some(policy) = &scenario.tool_policy {
        let mut blocklist = prompt.tool_policy.blocklist.clone();
        blocklist.extend(policy.blocklist.iter().cloned());
        prompt.tool_policy = ToolPolicy {
            tool_choice: policy.tool_choice,
            max_rounds: policy.max_rounds.unwrap_or(prompt.tool_policy.max_rounds),
            max_tool_calls_per_turn: policy
                .max_tool_calls_per_turn
                .unwrap_or(prompt.tool_policy.max_tool_calls_per_turn),
            max_total_tool_calls: policy.max_total_tool_calls,
            max_identical_tool_calls: policy.max_identical_tool_calls,
            blocklist,
        };
    }
    let mut inputs = cx.inputs.clone();
    for (name, value) in &scenario.variables {
        inputs.insert(name.clone(), Json::String(value.clone()));
    }
    let system_prompt = pack::render_prompt_at(cx.pack, &prompt, &inputs, cx.now)?;
    let bound = |kind: &str| cx.config.evals.contains_key(kind);
    let planned = suite::plan_assertions(&scenario, &bound)
        .map_err(|found| found.into_iter().collect::<Diagnostics>())?;
    let mut evals = prompt_evals(&cx.pack.evals, &prompt);
    let checks = planned.checks;
    if let Some(taken) = evals.iter().find(|e| checks.iter().any(|c| c.id == e.id)) {
        // An assertion's results are told apart from the pack's by their eval id.
        return Err(Diagnostic::error(
            &cx.pack.path,
            taken.pos,
            format!(
                "eval id `{}` is the id scenario {} gives one of its assertions; rename the eval",
                taken.id, scenario.id
            ),
        )
        .into());
    }
    evals.extend(planned.evals);
    let mut prepared = evals.clone();
    prepared.extend(planned.unplayed);
    if let Err(found) = Evaluator::new(prepared, &cx.config.evals, CancellationToken::new()) {
        let mut problems = Diagnostics::default();
        for problem in found {
            // An assertion's problem is shown in the scenario, an eval's in the pack.
            let (file, message) = if checks.iter().any(|c| c.id == problem.eval_id) {
                (&scenario.path, format!("assertion {}", problem.message))
            } else {
                (&cx.pack.path, problem.to_string())
            };
            problems.push(Diagnostic::error(file, problem.pos, message));
        }
        return Err(problems);
    }
    let variables = variables_json(&prompt, &inputs);
    Ok(ScenarioPlan {
        scenario,
        prompt,
        system_prompt,
        variables,
        evals,
        checks,
        model,
    })
}

/// Who answers the scenario's model calls: its recording under `--replay-dir`, else
/// the provider `--provider` names (over any the scenario lists), else the first the
/// scenario lists, else the config's default. What is worth knowing about the
/// choice goes to `notes`.
fn scenario_model(
    scenario: &Scenario,
    cx: &Context<'_>,
    notes: &mut Diagnostics,
) -> Result<ModelPlan, CliError> {
    let named = match (cx.provider, scenario.providers.as_slice()) {
        (Some(name), _) => Some((name, NamedBy::Flag)),
        (None, []) => None,
        (None, [(_, pos), ..]) if cx.config.providers.is_empty() => {
            notes.push(Diagnostic::warning(
                &scenario.path,
                *pos,
                "/spec/providers: the config declares no providers, so the bare mock plays this scenario",
            ));
            None
        }
        (None, [(first, pos), rest @ ..]) => {
            if let Some((_, second)) = rest.first() {
                notes.push(Diagnostic::warning(
                    &scenario.path,
                    *second,
                    format!(
                        "/spec/providers: PromptArena plays the scenario against each provider listed; promptexec plays one, the first (`{first}`): choose another with --provider"
                    ),
                ));
            }
            Some((
                first.as_str(),
                NamedBy::Scenario {
                    file: &scenario.path,
                    pos: *pos,
                },
            ))
        }
    };
    let chosen = model::choose(cx.config, named)?;
    let answers = match (cx.replay_dir, provider::live(chosen)) {
        (Some(dir), _) => {
            let path = recording_path(dir, &scenario.id);
            if !path.is_file() {
                return Err(CliError::Invalid(
                    Diagnostic::error(
                        &scenario.path,
                        scenario.pos,
                        format!(
                            "--replay-dir: no recording of scenario `{}` ({} does not exist); record it with --record-dir",
                            scenario.id,
                            path.display()
                        ),
                    )
                    .into(),
                ));
            }
            model::replay_answers(&path, cx.replay_match)?
        }
        (None, Some(live)) => model::live_answers(live, cx.config, cx.mock_given)?,
        (None, None) => provider::mock_answers(cx.script.clone(), &scenario.id),
    };
    let stream = scenario.streaming.unwrap_or(cx.stream);
    Ok(ModelPlan::new(answers, chosen, stream))
}

/// A scenario checked without a pack: its assertions planned, and their evals
/// prepared with `config`'s bindings when there is a config to judge them by (the
/// prompt it plays cannot be checked). Its checks, and every problem found.
pub(in crate::commands) fn check_alone(
    scenario: &Scenario,
    config: Option<&RuntimeConfig>,
) -> (Vec<Check>, Diagnostics) {
    let bound = |kind: &str| config.is_some_and(|c| c.evals.contains_key(kind));
    let planned = match suite::plan_assertions(scenario, &bound) {
        Ok(planned) => planned,
        Err(found) => return (Vec::new(), found.into_iter().collect()),
    };
    let mut problems = Diagnostics::default();
    if let Some(config) = config {
        let mut prepared = planned.evals;
        prepared.extend(planned.unplayed);
        if let Err(found) = Evaluator::new(prepared, &config.evals, CancellationToken::new()) {
            for problem in found {
                problems.push(Diagnostic::error(
                    &scenario.path,
                    problem.pos,
                    format!("assertion {}", problem.message),
                ));
            }
        }
    }
    (planned.checks, problems)
}
