//! Planning an Arena project's suite as PromptArena expands it: every scenario
//! against every provider it may play with (its `providers` narrow the list, and
//! `--provider` narrows it again), each prompt config's `vars` under the scenario's
//! variables, `globals.conversation_assertions` added to every scenario's. Flags win
//! over the Arena's settings: `--mock FILE` makes every provider the mock answering
//! from FILE, as PromptArena's `--mock-provider --mock-config FILE` does.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::arena::{self, Project, RawAssertion};
use crate::cli::{CliError, Console, Settings, UsageError};
use crate::doc::{Checker, Diagnostic, Diagnostics, one_of, pointer};
use crate::pack::Pack;
use crate::pack::resolve_when;
use crate::provider::{MockScript, load_mock};
use crate::suite::{self, Assertion, Scenario};

use super::plan::{Context, Loaded, PlanOptions, ScenarioPlan, plan_each};
use crate::commands::common::load;
use crate::commands::common::warnings::LoadWarnings;

/// An Arena project planned: the suite's files and plans, and the project (its
/// defaults, and what other players read: self-play, judges, the workflow).
pub(in crate::commands) struct ArenaLoaded {
    pub loaded: Loaded,
    pub project: Project,
}

/// Loads the Arena project at `options.pack` and plans every scenario against each
/// of its providers. `offline` (what `list` and `validate` want): every provider
/// plays as a mock, so no key is needed to look at a project. A config given with
/// `-c` adds its tools, evals, hooks and MCP servers to the project's (the
/// project's own win); its providers are not the Arena's and are not read.
pub(in crate::commands) fn plan(
    settings: &Settings,
    options: &PlanOptions<'_>,
    offline: bool,
    console: &mut Console,
) -> Result<ArenaLoaded, CliError> {
    let mut warnings = LoadWarnings::new(options.strict);
    let mut project = warnings.keep(arena::load(options.pack, false), console)?;
    if let Some(path) = &settings.config {
        let given = warnings.keep(crate::config::load(path, false), console)?;
        let config = &mut project.config;
        for (name, tool) in given.tools {
            config.tools.entry(name).or_insert(tool);
        }
        for (name, eval) in given.evals {
            config.evals.entry(name).or_insert(eval);
        }
        for (name, hook) in given.hooks {
            config.hooks.entry(name).or_insert(hook);
        }
        for (name, server) in given.mcp_servers {
            config.mcp_servers.entry(name).or_insert(server);
        }
    }
    let planned = plan_project(&mut project, options, offline)?;
    warnings.sort(&planned.found, console)?;
    let warnings = warnings.settle()?;
    Ok(ArenaLoaded {
        loaded: Loaded {
            config: project.config.clone(),
            pack: planned.pack,
            warnings,
            identity: crate::suite::identity(
                planned.plans.iter().map(|p| &p.scenario),
                options.filter,
            ),
            scenarios: planned.plans,
        },
        project,
    })
}

/// A project's scenarios planned, and every problem found on the way.
pub(in crate::commands) struct Planned {
    pub pack: Pack,
    pub plans: Vec<ScenarioPlan>,
    pub found: Diagnostics,
}

/// Plans a loaded project's scenarios; what is wrong in its files is in `found`
/// (planning stops after the files when one has errors). A problem that is not
/// about the files (a `--provider` it lacks) is an error.
pub(in crate::commands) fn plan_project(
    project: &mut Project,
    options: &PlanOptions<'_>,
    offline: bool,
) -> Result<Planned, CliError> {
    if options.mock.is_some() || offline {
        // Every provider answers as the mock, under its own id.
        for p in &mut project.config.providers {
            p.kind = "mock".into();
            if let Some(mock) = options.mock {
                p.mock_config = Some(mock.to_path_buf());
            }
        }
    }
    let mut pack = project.pack.clone();
    let mut found: Diagnostics = crate::evals::drop_unread_params(&mut pack, &project.config.evals)
        .into_iter()
        .collect();
    let files: Vec<PathBuf> = project
        .arena
        .scenarios
        .iter()
        .map(|(f, _)| f.clone())
        .collect();
    let (mut scenarios, problems) = super::load_all(&files);
    found.extend(problems);
    found.extend(global_assertions(project, &mut scenarios));
    let mut plans = Vec::new();
    if found.has_errors() {
        return Ok(Planned { pack, plans, found });
    }
    for scenario in &mut scenarios {
        add_prompt_vars(project, scenario);
    }
    // Self-play turns are attached here, so list and validate see them played and a
    // broken persona file stops the run before anything plays.
    if let Some(section) = &project.arena.self_play {
        match suite::self_play::from_arena(options.pack, section, &project.config) {
            Ok((self_play, notes)) => {
                found.extend(arena::place_pack_diagnostics(project, &notes));
                for scenario in &mut scenarios {
                    let id = scenario.id.clone();
                    found.extend(self_play.attach(scenario, &id));
                }
            }
            Err(problems) => {
                found.extend(arena::place_pack_diagnostics(project, &problems));
                return Ok(Planned { pack, plans, found });
            }
        }
    }
    super::check_filters(&scenarios, options.filter)?;
    let picked = suite::select(scenarios, options.filter, options.shard.as_ref());
    let inputs = load::vars(options.vars)?;
    let now = options.vars.now.unwrap_or_else(SystemTime::now);
    let mut placed = Diagnostics::default();
    for (provider, scenarios) in expand(project, picked, options.provider)? {
        let script = script_for(project, &provider, options.mock, &mut found);
        let context = Context {
            pack: &pack,
            config: &project.config,
            script: &script,
            inputs: &inputs,
            now,
            provider: Some(&provider),
            mock_given: options.mock.is_some(),
            replay_dir: options.replay_dir,
            replay_match: options.replay_match,
            stream: options.stream,
        };
        let (mut planned, problems) = plan_each(scenarios.0, &context)?;
        placed.extend(arena::place_pack_diagnostics(project, &problems));
        if scenarios.1 {
            for plan in &mut planned {
                plan.scenario.id = format!("{}@{provider}", plan.scenario.id);
            }
        }
        plans.extend(planned);
    }
    plans.sort_by(|a, b| a.scenario.id.cmp(&b.scenario.id));
    // A prompt's problem is the same against every provider: said once.
    for d in placed.iter() {
        if !found.iter().any(|seen| seen == d) {
            found.push(d.clone());
        }
    }
    Ok(Planned { pack, plans, found })
}

/// Scenarios grouped by the provider they play against, and whether each group's
/// scenarios play against more than one provider (their ids then name it).
type Expanded = Vec<(String, (Vec<Scenario>, bool))>;

/// Each scenario against the providers it plays with: those it lists, else the
/// Arena's `default` group (every provider when none is in it); `--provider` keeps
/// only the one it names.
fn expand(
    project: &Project,
    scenarios: Vec<Scenario>,
    only: Option<&str>,
) -> Result<Expanded, CliError> {
    let ids: Vec<&str> = project.arena.providers.iter().map(|p| p.id()).collect();
    if let Some(name) = only
        && !ids.contains(&name)
    {
        return Err(UsageError::Unusable(format!(
            "--provider {name}: the Arena has no such provider (it has {}){}",
            one_of(&ids),
            crate::doc::suggest(name, ids.iter().copied())
        ))
        .into());
    }
    let mut out: Expanded = ids
        .iter()
        .map(|id| (id.to_string(), (Vec::new(), false)))
        .collect();
    // As PromptArena plays a scenario that names none: the providers of the
    // `default` group, else (no provider is in it) every provider.
    let in_default: Vec<&str> = project
        .arena
        .providers
        .iter()
        .filter(|p| p.group == "default")
        .map(|p| p.id())
        .collect();
    let pool = if in_default.is_empty() {
        ids.clone()
    } else {
        in_default
    };
    let mut problems = Diagnostics::default();
    for scenario in scenarios {
        let listed: Vec<&str> = scenario.providers.iter().map(|(p, _)| p.as_str()).collect();
        for (p, pos) in &scenario.providers {
            if !ids.contains(&p.as_str()) {
                problems.push(Diagnostic::error(
                    &scenario.path,
                    *pos,
                    format!(
                        "/spec/providers: `{p}` is not a provider of {}{}",
                        project.arena.path.display(),
                        crate::doc::suggest(p, ids.iter().copied())
                    ),
                ));
            }
        }
        let mut chosen: Vec<&str> = if listed.is_empty() {
            pool.clone()
        } else {
            ids.iter()
                .copied()
                .filter(|id| listed.contains(id))
                .collect()
        };
        if let Some(name) = only {
            chosen.retain(|id| *id == name);
        }
        let many = chosen.len() > 1;
        for id in chosen {
            if let Some((_, (group, named))) = out.iter_mut().find(|(p, _)| p == id) {
                let mut one = scenario.clone();
                one.providers.retain(|(p, _)| p == id);
                group.push(one);
                *named |= many;
            }
        }
    }
    if problems.has_errors() {
        return Err(CliError::Invalid(problems));
    }
    // A group's ids name the provider when any of its scenarios plays against more
    // than one; then every scenario of every group does, so no two plans share one.
    let any_many = out.iter().any(|(_, (_, many))| *many);
    for (_, (_, named)) in &mut out {
        *named = any_many;
    }
    out.retain(|(_, (group, _))| !group.is_empty());
    if ids.is_empty() {
        return Err(UsageError::Unusable(format!(
            "{}: `spec.providers` names no provider to play the scenarios against",
            project.arena.path.display()
        ))
        .into());
    }
    Ok(out)
}

/// The mock responses `provider` answers from: `--mock FILE`, else its own
/// `mock_config`, else none (every call gets the default answer).
fn script_for(
    project: &Project,
    provider: &str,
    mock: Option<&Path>,
    found: &mut Diagnostics,
) -> MockScript {
    let config = project
        .config
        .providers
        .iter()
        .find(|p| p.name() == provider);
    let path = mock
        .map(Path::to_path_buf)
        .or_else(|| config.and_then(|p| p.mock_config.clone()));
    let Some(path) = path else {
        return MockScript::default();
    };
    match load_mock(&path) {
        Ok(loaded) => {
            for warning in loaded.warnings.iter() {
                if !found.iter().any(|seen| seen == warning) {
                    found.push(warning.clone());
                }
            }
            loaded.value
        }
        Err(rejected) => {
            for problem in rejected.0.iter() {
                if !found.iter().any(|seen| seen == problem) {
                    found.push(problem.clone());
                }
            }
            MockScript::default()
        }
    }
}

/// `globals.conversation_assertions`, read as a scenario's are, added to every
/// scenario's; what is wrong with them.
fn global_assertions(project: &Project, scenarios: &mut [Scenario]) -> Diagnostics {
    let path = &project.arena.path;
    let mut cx = Checker::new(path, std::fs::read_to_string(path).unwrap_or_default());
    let globals: Vec<Assertion> = project
        .arena
        .conversation_assertions
        .iter()
        .enumerate()
        .map(|(i, raw)| assertion(&mut cx, raw, i))
        .collect();
    for scenario in scenarios {
        scenario
            .conversation_assertions
            .extend(globals.iter().cloned());
    }
    cx.diagnostics
}

fn assertion(cx: &mut Checker, raw: &RawAssertion, i: usize) -> Assertion {
    let at = pointer("/spec/globals/conversation_assertions", i);
    let mut params = raw.params.clone();
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
            .map(|n| resolve_when(cx, n, &pointer(&at, "when")))
            .unwrap_or_default(),
        pass_threshold: raw.pass_threshold.unwrap_or(1.0),
        pos: raw.pos,
    }
}

/// The `vars` of the prompt config the scenario plays, under its own variables;
/// only those its prompt declares or uses.
fn add_prompt_vars(project: &Project, scenario: &mut Scenario) {
    let Some(config) = project
        .arena
        .prompt_configs
        .iter()
        .find(|p| p.task_type == scenario.task_type)
    else {
        return;
    };
    let Some(prompt) = project.pack.prompts.get(&config.task_type) else {
        return;
    };
    let used: Vec<&str> = prompt
        .system_template
        .template
        .placeholders()
        .map(|p| p.name.as_str())
        .collect();
    for (name, value) in &config.vars {
        let known = prompt.variable(name).is_some() || used.contains(&name.as_str());
        if known && !scenario.variables.contains_key(name) {
            scenario.variables.insert(name.clone(), value.clone());
        }
    }
}
