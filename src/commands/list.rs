//! `list`: what a suite would run, without running any of it: its scenarios (after
//! `--filter` and `--shard`), the test cases of the case files given, and the
//! tools, hooks and evals the config and pack bring.

use crate::cli::args::{ListArgs, ListFormat, ReplayMatch};
use crate::cli::{CliError, Console, Exit, Settings, UsageError};
use crate::config::{HookKind, RuntimeConfig, RuntimeMode, ToolRun};
use crate::doc::Diagnostics;
use crate::evals::{is_builtin, prompt_evals};
use crate::pack::Pack;
use crate::report::{ListedCase, ListedEval, ListedHook, ListedScenario, ListedTool, Listing};
use crate::suite::cases;

use crate::commands::common::scenario_files::{self, plan::PlanOptions, plan::ScenarioPlan};
use crate::commands::common::warnings::LoadWarnings;

/// Lists what `run` would play: the scenarios are loaded and planned exactly as
/// `run` plans them (the same files refused, with the same exit code).
pub(super) fn run(
    settings: &Settings,
    args: &ListArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let options = PlanOptions {
        pack: &args.pack,
        scenarios: &args.scenarios,
        filter: &args.filter,
        shard: args.slice.get()?,
        mock: None,
        provider: None,
        replay_dir: None,
        replay_match: ReplayMatch::Turn,
        stream: false,
        vars: &args.vars,
        strict: false,
    };
    let planned = if crate::arena::is_arena(&args.pack) {
        if !args.scenarios.is_empty() {
            return Err(UsageError::not_here(
                "SCENARIOS",
                "an Arena project names its scenarios in `spec.scenarios`",
            )
            .into());
        }
        scenario_files::arena::plan(settings, &options, true, console)?.loaded
    } else {
        scenario_files::plan::plan(settings, &options, false, console)?
    };
    let mut warnings = LoadWarnings::new(false);
    let case_files = read_cases(&args.cases, &mut warnings, console)?;
    let (config, pack) = (&planned.config, &planned.pack);
    let listing = Listing {
        scenarios: planned.scenarios.iter().map(listed_scenario).collect(),
        cases: case_files.iter().flat_map(listed_cases).collect(),
        tools: listed_tools(config, pack),
        hooks: listed_hooks(config),
        evals: listed_evals(config, pack),
    };
    match args.format {
        ListFormat::Json => console.out(&listing.json())?,
        ListFormat::Human => console.out(&listing.human())?,
    }
    Ok(Exit::Success)
}

/// Every case file under `paths`, read strictly (all problems at once).
fn read_cases(
    paths: &[std::path::PathBuf],
    warnings: &mut LoadWarnings,
    console: &mut Console,
) -> Result<Vec<cases::CaseFile>, CliError> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let mut problems = Diagnostics::default();
    let files = cases::case_files(paths, &mut problems);
    let mut read = Vec::new();
    for file in files {
        match cases::load(&file) {
            Ok(loaded) => {
                for warning in loaded.warnings.iter() {
                    warnings.add(warning.clone(), console);
                }
                read.push(loaded.value);
            }
            Err(rejected) => problems.extend(rejected.0),
        }
    }
    if problems.has_errors() {
        return Err(CliError::Invalid(problems));
    }
    Ok(read)
}

fn listed_scenario(plan: &ScenarioPlan) -> ListedScenario {
    let s = &plan.scenario;
    let skipped = plan
        .checks
        .iter()
        .filter(|c| c.not_played.is_some())
        .count();
    ListedScenario {
        id: s.id.clone(),
        file: s.path.display().to_string(),
        prompt: s.task_type.clone(),
        description: s.description.clone(),
        labels: s.labels.clone(),
        turns: s.turns.len(),
        unplayed_turns: s.unplayed.len(),
        assertions: plan.checks.len(),
        skipped,
        trials: s.trials,
    }
}

fn listed_cases(file: &cases::CaseFile) -> Vec<ListedCase> {
    file.cases
        .iter()
        .map(|case| {
            let (kind, target) = match &case.target {
                cases::Target::Tool(tool) => ("tool", tool.tool.value.clone()),
                cases::Target::Hook(hook) => ("hook", hook.hook.value.clone()),
            };
            ListedCase {
                file: file.path.display().to_string(),
                name: case.name.clone(),
                kind,
                target,
            }
        })
        .collect()
}

/// The pack's tools with how the config runs each (`exec`, `server`, `mock`,
/// `live`, ... or `unbound`) and the prompts that offer it.
fn listed_tools(config: &RuntimeConfig, pack: &Pack) -> Vec<ListedTool> {
    pack.tools
        .values()
        .map(|tool| {
            let mode = match config.tools.get(&tool.name).map(|b| &b.run) {
                Some(ToolRun::Exec(exec)) if exec.runtime == RuntimeMode::Server => "server",
                Some(ToolRun::Exec(_)) => "exec",
                Some(ToolRun::Mock(_)) => "mock",
                Some(ToolRun::Http(_)) => "live",
                Some(ToolRun::Elsewhere { .. }) => "elsewhere",
                Some(ToolRun::Unbound) | None => "unbound",
            };
            let prompts = pack
                .prompts
                .values()
                .filter(|p| p.tools.iter().any(|(name, _)| *name == tool.name))
                .map(|p| p.id.clone())
                .collect();
            ListedTool {
                name: tool.name.clone(),
                mode,
                prompts,
                input_schema: tool.parameters.clone(),
            }
        })
        .collect()
}

fn listed_hooks(config: &RuntimeConfig) -> Vec<ListedHook> {
    let names = |list: &[_]| -> Vec<String> {
        list.iter()
            .map(|p: &crate::config::HookPhase| p.to_string())
            .collect()
    };
    config
        .hooks
        .values()
        .map(|hook| {
            let (kind, at, mode) = match &hook.kind {
                HookKind::Provider { phases, mode } => {
                    ("provider", names(phases), mode.to_string())
                }
                HookKind::Tool { phases, mode } => ("tool", names(phases), mode.to_string()),
                HookKind::Session { phases } => ("session", names(phases), "observe".to_string()),
                HookKind::Eval => ("eval", Vec::new(), "observe".to_string()),
                HookKind::Server(server) => (
                    "json-rpc",
                    server.intercept.iter().map(|i| i.to_string()).collect(),
                    "intercept".to_string(),
                ),
            };
            ListedHook {
                name: hook.name.clone(),
                kind,
                at,
                mode,
                priority: hook.priority,
            }
        })
        .collect()
}

/// Every prompt's evals: how each runs and whether it can fail a run.
fn listed_evals(config: &RuntimeConfig, pack: &Pack) -> Vec<ListedEval> {
    pack.prompts
        .values()
        .flat_map(|prompt| {
            prompt_evals(&pack.evals, prompt)
                .into_iter()
                .map(move |eval| (prompt.id.clone(), eval))
        })
        .map(|(prompt, eval)| {
            let runs = match config.evals.get(&eval.eval_type) {
                Some(b) if b.exec.runtime == RuntimeMode::Server => "server",
                Some(_) => "exec",
                None if is_builtin(&eval.eval_type) => "built-in",
                None if eval.eval_type == "assertion" => "built-in",
                None => "unbound",
            };
            let gate = eval.threshold.is_some() || eval.eval_type == "assertion";
            ListedEval {
                prompt,
                id: eval.id.clone(),
                eval_type: eval.eval_type.clone(),
                trigger: eval.trigger.as_str(),
                runs,
                gate,
            }
        })
        .collect()
}
