//! `validate`: every problem in the config and the pack, then a one-line verdict.

use std::path::Path;

use tokio_util::sync::CancellationToken;

use crate::cli::args::ValidateArgs;
use crate::cli::{CliError, Console, Exit, Settings};
use crate::config::{self, RuntimeConfig};
use crate::doc::{Diagnostic, Diagnostics};
use crate::evals::{Evaluator, is_builtin, prompt_evals};
use crate::pack::{self, EvalDef, Pack};

use super::launch_check::launch_problems;
use super::load::{config_path, current_dir};
use super::warnings::strict_verdict;

/// What validating found: every problem, and a description of each file that loaded.
struct Findings {
    diagnostics: Diagnostics,
    summary: Vec<String>,
}

/// `validate`: checks what there is, then says what it found.
pub fn run(
    settings: &Settings,
    args: &ValidateArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let config_path = config_path(settings);
    if config_path.is_none() && args.pack.is_none() {
        return Err(CliError::Usage(
            "nothing to validate: no config (-c FILE, $PROMPTEXEC_CONFIG or ./runtimeconfig.yaml) and no --pack".into(),
        ));
    }
    let findings = check(config_path.as_deref(), args.pack.as_deref());
    Ok(report(findings, args.strict, console))
}

/// Loads the config and the pack and checks them, alone and against each other;
/// nothing is started.
fn check(config_path: Option<&Path>, pack_path: Option<&Path>) -> Findings {
    let cwd = current_dir();
    let mut diagnostics = Diagnostics::default();
    let mut summary = Vec::new();
    let config = config_path.and_then(|path| match config::load(path, true) {
        Ok(loaded) => {
            diagnostics.extend(loaded.warnings);
            summary.push(describe_config(&loaded.value));
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
            summary.push(describe_pack(&loaded.value));
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
    Findings {
        diagnostics,
        summary,
    }
}

/// Every problem, then the verdict: exit 2 on any error, or any warning under
/// `--strict`.
fn report(findings: Findings, strict: bool, console: &mut Console) -> Exit {
    let Findings {
        mut diagnostics,
        summary,
    } = findings;
    let (errors, warnings) = (diagnostics.error_count(), diagnostics.warning_count());
    if strict && errors == 0 && warnings > 0 {
        diagnostics.push(strict_verdict(warnings));
    }
    console.diagnostics(&diagnostics);
    if errors > 0 || (strict && warnings > 0) {
        console.note(&format!(
            "validate: {} error{}, {} warning{}",
            errors,
            plural(errors),
            warnings,
            plural(warnings)
        ));
        Exit::BadInput
    } else {
        console.note(&format!("ok: {}", summary.join("; ")));
        Exit::Success
    }
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

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn describe_config(config: &RuntimeConfig) -> String {
    let path = config
        .path
        .as_ref()
        .map_or_else(String::new, |p| p.display().to_string());
    format!(
        "{path} ({} provider{}, {} tool{}, {} eval{}, {} hook{}, {} MCP server{})",
        config.providers.len(),
        plural(config.providers.len()),
        config.tools.len(),
        plural(config.tools.len()),
        config.evals.len(),
        plural(config.evals.len()),
        config.hooks.len(),
        plural(config.hooks.len()),
        config.mcp_servers.len(),
        plural(config.mcp_servers.len()),
    )
}

fn describe_pack(pack: &Pack) -> String {
    format!(
        "{} ({} prompt{}, {} tool{}, {} eval{})",
        pack.path.display(),
        pack.prompts.len(),
        plural(pack.prompts.len()),
        pack.tools.len(),
        plural(pack.tools.len()),
        pack.evals.len(),
        plural(pack.evals.len()),
    )
}
