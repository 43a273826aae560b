//! `list`: what a suite would run, without running any of it: its scenarios (after
//! `--filter` and `--shard`), the test cases of the case files given, and the
//! tools, hooks and evals the config and pack bring.

use serde_json::{Value as Json, json};

use crate::cli::args::{ListArgs, ListFormat, ReplayMatch};
use crate::cli::{CliError, Console, Exit, Settings};
use crate::config::{HookKind, RuntimeConfig, RuntimeMode};
use crate::doc::Diagnostics;
use crate::evals::{is_builtin, prompt_evals};
use crate::pack::Pack;
use crate::report::table;
use crate::suite::cases;

use super::emit::pretty;
use super::scenario_files::{self, plan::PlanOptions, plan::ScenarioPlan};
use super::warnings::LoadWarnings;

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
        shard: args.shard,
        mock: None,
        provider: None,
        replay_dir: None,
        replay_match: ReplayMatch::Turn,
        stream: false,
        vars: &args.vars,
        strict: false,
    };
    let planned = scenario_files::plan::plan(settings, &options, false, console)?;
    let mut warnings = LoadWarnings::new(false);
    let case_files = read_cases(&args.cases, &mut warnings, console)?;
    let (config, pack) = (&planned.config, &planned.pack);
    let listing = json!({
        "scenarios": planned.scenarios.iter().map(scenario_json).collect::<Vec<_>>(),
        "cases": case_files.iter().flat_map(cases_json).collect::<Vec<_>>(),
        "tools": tools_json(config, pack),
        "hooks": hooks_json(config),
        "evals": evals_json(config, pack),
    });
    match args.format {
        ListFormat::Json => console.out(&pretty(&listing))?,
        ListFormat::Human => console.out(&human(&listing))?,
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

fn scenario_json(plan: &ScenarioPlan) -> Json {
    let s = &plan.scenario;
    let skipped = plan
        .checks
        .iter()
        .filter(|c| c.not_played.is_some())
        .count();
    json!({
        "id": s.id,
        "file": s.path.display().to_string(),
        "prompt": s.task_type,
        "description": s.description,
        "labels": s.labels,
        "turns": s.turns.len(),
        "unplayed_turns": s.unplayed.len(),
        "assertions": plan.checks.len(),
        "skipped": skipped,
        "trials": s.trials,
    })
}

fn cases_json(file: &cases::CaseFile) -> Vec<Json> {
    file.cases
        .iter()
        .map(|case| {
            let (kind, target) = match &case.target {
                cases::Target::Tool(tool) => ("tool", tool.tool.value.clone()),
                cases::Target::Hook(hook) => ("hook", hook.hook.value.clone()),
            };
            json!({
                "file": file.path.display().to_string(),
                "name": case.name,
                "kind": kind,
                "target": target,
            })
        })
        .collect()
}

/// The pack's tools with how the config runs each (`exec`, `server`, or `unbound`)
/// and the prompts that offer it.
fn tools_json(config: &RuntimeConfig, pack: &Pack) -> Vec<Json> {
    pack.tools
        .values()
        .map(|tool| {
            let mode = match config.tools.get(&tool.name).and_then(|b| b.exec.as_ref()) {
                Some(exec) if exec.runtime == RuntimeMode::Server => "server",
                Some(_) => "exec",
                None => "unbound",
            };
            let prompts: Vec<&str> = pack
                .prompts
                .values()
                .filter(|p| p.tools.iter().any(|(name, _)| *name == tool.name))
                .map(|p| p.id.as_str())
                .collect();
            json!({
                "name": tool.name,
                "mode": mode,
                "prompts": prompts,
                "input_schema": tool.parameters,
            })
        })
        .collect()
}

fn hooks_json(config: &RuntimeConfig) -> Vec<Json> {
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
            json!({
                "name": hook.name,
                "kind": kind,
                "at": at,
                "mode": mode,
                "priority": hook.priority,
            })
        })
        .collect()
}

/// Every prompt's evals: how each runs and whether it can fail a run.
fn evals_json(config: &RuntimeConfig, pack: &Pack) -> Vec<Json> {
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
            json!({
                "prompt": prompt,
                "id": eval.id,
                "type": eval.eval_type,
                "trigger": eval.trigger.as_str(),
                "runs": runs,
                "gate": gate,
            })
        })
        .collect()
}

/// The listing as tables, one per kind of thing.
fn human(listing: &Json) -> String {
    let section = |title: &str, key: &str, columns: &[(&str, &str)]| {
        let rows = listing[key].as_array().cloned().unwrap_or_default();
        if rows.is_empty() {
            return format!("{title}: none\n");
        }
        let header: Vec<&str> = columns.iter().map(|(h, _)| *h).collect();
        let mut grid = table(&header);
        for row in &rows {
            grid.add_row(
                columns
                    .iter()
                    .map(|(_, field)| match &row[*field] {
                        Json::String(s) => s.clone(),
                        Json::Array(items) => items
                            .iter()
                            .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                            .collect::<Vec<_>>()
                            .join(", "),
                        Json::Object(map) => map
                            .iter()
                            .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
                            .collect::<Vec<_>>()
                            .join(", "),
                        other => other.to_string(),
                    })
                    // Names and labels from shared files: safe for the terminal.
                    .map(|cell| crate::cli::style::peer(&cell, false).into_owned())
                    .collect::<Vec<_>>(),
            );
        }
        format!("{title} ({}):\n{grid}\n", rows.len())
    };
    [
        section(
            "scenarios",
            "scenarios",
            &[
                ("id", "id"),
                ("prompt", "prompt"),
                ("turns", "turns"),
                ("assertions", "assertions"),
                ("skipped", "skipped"),
                ("trials", "trials"),
                ("labels", "labels"),
                ("file", "file"),
            ],
        ),
        section(
            "cases",
            "cases",
            &[
                ("file", "file"),
                ("case", "name"),
                ("kind", "kind"),
                ("calls", "target"),
            ],
        ),
        section(
            "tools",
            "tools",
            &[("tool", "name"), ("mode", "mode"), ("prompts", "prompts")],
        ),
        section(
            "hooks",
            "hooks",
            &[
                ("hook", "name"),
                ("kind", "kind"),
                ("at", "at"),
                ("mode", "mode"),
            ],
        ),
        section(
            "evals",
            "evals",
            &[
                ("prompt", "prompt"),
                ("eval", "id"),
                ("type", "type"),
                ("trigger", "trigger"),
                ("runs", "runs"),
                ("gate", "gate"),
            ],
        ),
    ]
    .join("")
}
