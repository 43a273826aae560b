//! `validate`: every problem in the config, the pack and the scenario files given
//! (checked as `run` plays them), then a one-line verdict.

use std::path::Path;

use tokio_util::sync::CancellationToken;

use crate::cli::args::{ReplayMatch, ValidateArgs};
use crate::cli::{CliError, Console, Exit, Settings, UsageError};
use crate::config::{self, RuntimeConfig};
use crate::doc::{Diagnostic, Diagnostics};
use crate::evals::{Evaluator, is_builtin, prompt_evals};
use crate::pack::{self, EvalDef, Pack};
use crate::report::{Loaded, ValidateRecord};
use crate::suite;

use crate::commands::common::load::{self, config_path, current_dir, mock_path};
use crate::commands::common::scenario_files::{
    self,
    plan::{Context, PlanOptions, check_alone, plan_each},
};
use crate::exec::launch_problems;

/// `validate`: checks what there is, then says what it found.
pub(super) fn run(
    settings: &Settings,
    args: &ValidateArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    if args.pack.is_none()
        && let [one] = args.scenarios.as_slice()
        && crate::arena::is_arena(one)
    {
        let findings = check_arena(one, args)?;
        console.diagnostics(&findings.problems());
        console.note(&findings.verdict());
        return Ok(findings.exit());
    }
    let config_path = config_path(settings);
    if config_path.is_none() && args.pack.is_none() && args.scenarios.is_empty() {
        return Err(CliError::from(UsageError::Nothing(
            "nothing to validate: no config (-c FILE, $PROMPTEXEC_CONFIG or ./runtimeconfig.yaml), no --pack and no scenario files".into(),
        )));
    }
    let (mut findings, config, pack) = check(config_path.as_deref(), args.pack.as_deref());
    if !args.scenarios.is_empty() {
        // Without a config, scenarios are checked as `run` plays them: with an
        // empty one. A config that did not load leaves their evals unjudged.
        let config = match (&config_path, config) {
            (None, _) => Some(RuntimeConfig {
                base_dir: current_dir(),
                ..RuntimeConfig::default()
            }),
            (Some(_), config) => config,
        };
        check_scenarios(args, config.as_ref(), pack.as_ref(), &mut findings)?;
    }
    findings.strict = args.strict;
    console.diagnostics(&findings.problems());
    console.note(&findings.verdict());
    Ok(findings.exit())
}

/// The scenario files `args` names, loaded and planned as `run` plays them: with the
/// pack (and the config, or an empty one), everything `run` checks before it
/// starts; without it, each file and its assertions.
fn check_scenarios(
    args: &ValidateArgs,
    config: Option<&RuntimeConfig>,
    pack: Option<&Pack>,
    findings: &mut ValidateRecord,
) -> Result<(), CliError> {
    let files = suite::scenario_files(&args.scenarios)
        .map_err(|(path, source)| CliError::Read { path, source })?;
    if files.is_empty() {
        findings.diagnostics.push(Diagnostic::plain(format!(
            "no scenario files (`*.scenario.yaml|yml|json`) in {}",
            args.scenarios[0].display()
        )));
        return Ok(());
    }
    let (scenarios, found) = scenario_files::load_all(&files);
    findings.diagnostics.extend(found);
    let mut checks = Vec::new();
    match (pack, config) {
        (Some(pack), Some(config)) => {
            let script = mock_path(None, config)
                .and_then(|path| crate::provider::load_mock(&path).ok())
                .map(|loaded| loaded.value)
                .unwrap_or_default();
            let inputs = load::vars(&args.vars)?;
            let context = Context {
                pack,
                config,
                script: &script,
                inputs: &inputs,
                now: args.vars.now.unwrap_or_else(std::time::SystemTime::now),
                provider: None,
                mock_given: false,
                replay_dir: None,
                replay_match: ReplayMatch::Turn,
                stream: false,
            };
            let (plans, found) = plan_each(scenarios, &context)?;
            // A mock's problems are the config's, reported with it already.
            findings.diagnostics.extend(found);
            checks.extend(plans.into_iter().flat_map(|p| p.checks));
        }
        (_, config) => {
            for scenario in &scenarios {
                let (planned, found) = check_alone(scenario, config);
                findings.diagnostics.extend(found);
                checks.extend(planned);
            }
        }
    }
    let skipped = checks.iter().filter(|c| c.not_played.is_some()).count();
    findings.loaded.push(Loaded::Scenarios {
        files: files.len(),
        assertions: checks.len(),
        skipped,
        prompts_checked: pack.is_some(),
    });
    Ok(())
}

/// An Arena project checked as `run` plays it: its files, the pack and config they
/// compile to, and every scenario against each provider (each as the mock: no key
/// is needed to check a project).
fn check_arena(path: &Path, args: &ValidateArgs) -> Result<ValidateRecord, CliError> {
    let mut findings = ValidateRecord {
        diagnostics: Diagnostics::default(),
        loaded: Vec::new(),
        strict: args.strict,
    };
    let mut project = match crate::arena::load(path, true) {
        Ok(loaded) => {
            findings.diagnostics.extend(loaded.warnings);
            loaded.value
        }
        Err(rejected) => {
            findings.diagnostics.extend(rejected.0);
            return Ok(findings);
        }
    };
    findings.loaded.push(describe_config(&project.config));
    findings.loaded.push(describe_pack(&project.pack));
    findings
        .diagnostics
        .extend(launch_problems(&project.config));
    let mut pack_found = pack::check_against_config(&project.pack, &project.config);
    pack_found.extend(eval_diagnostics(&project.pack, Some(&project.config)));
    findings
        .diagnostics
        .extend(crate::arena::place_pack_diagnostics(&project, &pack_found));
    let options = PlanOptions {
        pack: path,
        scenarios: &[],
        filter: &[],
        shard: None,
        mock: None,
        provider: None,
        replay_dir: None,
        replay_match: ReplayMatch::Turn,
        stream: false,
        vars: &args.vars,
        strict: false,
    };
    match scenario_files::arena::plan_project(&mut project, &options, true) {
        Ok(planned) => {
            findings.diagnostics.extend(planned.found);
            let checks: Vec<_> = planned.plans.iter().flat_map(|p| &p.checks).collect();
            findings.loaded.push(Loaded::Scenarios {
                files: project.arena.scenarios.len(),
                assertions: checks.len(),
                skipped: checks.iter().filter(|c| c.not_played.is_some()).count(),
                prompts_checked: true,
            });
        }
        Err(CliError::Invalid(problems)) => findings.diagnostics.extend(problems),
        Err(other) => return Err(other),
    }
    // A problem found both checking the pack and planning it is said once.
    let mut said = Diagnostics::default();
    for d in findings.diagnostics.iter() {
        if !said.iter().any(|seen| seen == d) {
            said.push(d.clone());
        }
    }
    findings.diagnostics = said;
    Ok(findings)
}

/// Loads the config and the pack and checks them, alone and against each other;
/// nothing is started. What loaded is returned beside what was found.
fn check(
    config_path: Option<&Path>,
    pack_path: Option<&Path>,
) -> (ValidateRecord, Option<RuntimeConfig>, Option<Pack>) {
    let cwd = current_dir();
    let mut diagnostics = Diagnostics::default();
    let mut loaded_files = Vec::new();
    let config = config_path.and_then(|path| match config::load(path, true) {
        Ok(loaded) => {
            diagnostics.extend(loaded.warnings);
            loaded_files.push(describe_config(&loaded.value));
            Some(loaded.value)
        }
        Err(rejected) => {
            diagnostics.extend(rejected.0);
            None
        }
    });
    if let Some(config) = &config {
        // Scripted model answers are part of the setup too.
        for mock in config
            .providers
            .iter()
            .filter_map(|p| p.mock_config.as_ref())
        {
            if mock.is_file() {
                // Shown relative to where the user is, like the files they named.
                let shown = mock.strip_prefix(&cwd).unwrap_or(mock);
                match crate::provider::load_mock(shown) {
                    Ok(loaded) => diagnostics.extend(loaded.warnings),
                    Err(rejected) => diagnostics.extend(rejected.0),
                }
            }
        }
        diagnostics.extend(launch_problems(config));
    }
    let pack = pack_path.and_then(|path| match pack::load(path) {
        Ok(loaded) => {
            diagnostics.extend(loaded.warnings);
            loaded_files.push(describe_pack(&loaded.value));
            Some(loaded.value)
        }
        Err(rejected) => {
            diagnostics.extend(rejected.0);
            None
        }
    });
    if let (Some(config), Some(pack)) = (&config, &pack) {
        diagnostics.extend(pack::check_against_config(pack, config));
    }
    if let Some(pack) = &pack {
        diagnostics.extend(eval_diagnostics(pack, config.as_ref()));
    }
    let findings = ValidateRecord {
        diagnostics,
        loaded: loaded_files,
        strict: false,
    };
    (findings, config, pack)
}

/// Evals that could not run with this config, each reported once even when
/// several prompts share it. Without a config only built-in checks can be judged.
fn eval_diagnostics(pack: &Pack, config: Option<&RuntimeConfig>) -> Diagnostics {
    let bindings = config.map(|c| c.evals.clone()).unwrap_or_default();
    let judged = |eval: &EvalDef| {
        let inner = match eval.eval_type.as_str() {
            "assertion" => eval.params["eval_type"].as_str().unwrap_or_default(),
            other => other,
        };
        config.is_some() || is_builtin(inner)
    };
    let mut seen = Vec::new();
    let mut diagnostics = Diagnostics::default();
    for prompt in pack.prompts.values() {
        let mut evals = prompt_evals(&pack.evals, prompt);
        evals.retain(judged);
        let bindings = &bindings;
        let Err(problems) = Evaluator::new(evals, bindings, CancellationToken::new()) else {
            continue;
        };
        for problem in problems {
            let text = problem.to_string();
            if !seen.contains(&(problem.pos, text.clone())) {
                diagnostics.push(Diagnostic::error(&pack.path, problem.pos, text.clone()));
                seen.push((problem.pos, text));
            }
        }
    }
    diagnostics
}

fn describe_config(config: &RuntimeConfig) -> Loaded {
    Loaded::Config {
        path: config
            .path
            .as_ref()
            .map_or_else(String::new, |p| p.display().to_string()),
        providers: config.providers.len(),
        tools: config.tools.len(),
        evals: config.evals.len(),
        hooks: config.hooks.len(),
        mcp_servers: config.mcp_servers.len(),
    }
}

fn describe_pack(pack: &Pack) -> Loaded {
    Loaded::Pack {
        path: pack.path.display().to_string(),
        prompts: pack.prompts.len(),
        tools: pack.tools.len(),
        evals: pack.evals.len(),
    }
}
