//! `run arena.yaml`: an Arena project's suite, its settings under the flags:
//! `-j` over `defaults.concurrency`, `--record-dir` over its recording folder,
//! `--format`/`--output` over the reports `defaults.output` asks for.

use std::path::PathBuf;

use tokio_util::sync::CancellationToken;

use crate::arena::Project;
use crate::cli::args::{OutputFormat, RunArgs};
use crate::cli::{CliError, Console, Settings, UsageError};
use crate::doc::{Diagnostic, Diagnostics};
use crate::suite::SuitePlan;

use crate::commands::common::runtime::default_jobs;
use crate::commands::common::scenario_files::arena::{ArenaLoaded, plan};
use crate::commands::common::scenario_files::plan::PlanOptions;
use crate::commands::run::ReportFile;

pub(super) fn resolve(
    settings: &Settings,
    args: &RunArgs,
    options: &PlanOptions<'_>,
    console: &mut Console,
) -> Result<(SuitePlan, Vec<(ReportFile, PathBuf)>), CliError> {
    if !args.scenarios.is_empty() {
        return Err(UsageError::not_here(
            "SCENARIOS",
            "an Arena project names its scenarios in `spec.scenarios`",
        )
        .into());
    }
    // `--filter` and `--shard` pick among scenarios and Eval files together.
    let together = (!args.filter.is_empty() || args.slice.given())
        && super::arena_evals::in_project(&args.pack);
    let whole = PlanOptions {
        filter: &[],
        shard: None,
        ..*options
    };
    let planning = if together { &whole } else { options };
    let ArenaLoaded { loaded, project } = plan(settings, planning, args.mock_provider, console)?;
    if project.arena.scenarios.is_empty() && project.arena.evals.is_empty() {
        return Err(UsageError::Nothing(format!(
            "no scenarios to play in {}: its `spec.scenarios` and `spec.evals` name none",
            args.pack.display()
        ))
        .into());
    }
    super::refuse_shared(args, &loaded.scenarios)?;
    let mut warnings = loaded.warnings;
    let mut scenarios = loaded.scenarios;
    let mut found = Diagnostics::default();
    scenarios.extend(super::arena_evals::plan(
        &project,
        &loaded.pack,
        planning,
        &mut found,
    )?);
    if found.has_errors() || (args.strict && found.warning_count() > 0) {
        return Err(CliError::Invalid(found));
    }
    let mut identity = loaded.identity;
    if together {
        // Scenarios and Eval files are one suite: what it is counts both, filtered.
        identity = crate::suite::identity(scenarios.iter().map(|p| &p.scenario), &args.filter);
        scenarios = super::arena_evals::select(scenarios, &args.filter, options.shard.clone())?;
    }
    if found.warning_count() > 0 {
        console.diagnostics(&found);
        warnings.extend(found);
    }
    let reports = reports(args, &project, &mut warnings, console);
    let defaults = &project.arena.defaults;
    let jobs = args
        .jobs
        .or(defaults.concurrency)
        .map_or_else(default_jobs, |n| n as usize)
        .max(1);
    let plan = SuitePlan {
        config: loaded.config,
        pack: loaded.pack,
        pack_path: args.pack.clone(),
        warnings,
        scenarios,
        identity,
        shard: options.shard.clone(),
        jobs,
        fail_fast: args.fail_fast,
        partial_fails: args.fail_on_partial || args.strict,
        record_dir: args
            .record_dir
            .clone()
            .or_else(|| defaults.output.recording.clone()),
        transcript_dir: args.transcript.clone(),
        max_rounds: args.max_rounds,
        approve: args.approve.clone(),
        reject: args.reject.clone(),
        stop: CancellationToken::new(),
    };
    Ok((plan, reports))
}

/// The report files `defaults.output` asks for, when the command line asks for no
/// other report; a format promptexec cannot write is a warning naming it.
fn reports(
    args: &RunArgs,
    project: &Project,
    warnings: &mut Diagnostics,
    console: &mut Console,
) -> Vec<(ReportFile, PathBuf)> {
    if args.format != OutputFormat::Human || args.output.is_some() {
        return Vec::new();
    }
    let output = &project.arena.defaults.output;
    let mut out = Vec::new();
    for (format, pos) in &output.formats {
        let wanted = match format.as_str() {
            "json" => Some(ReportFile::Json),
            "junit" => Some(ReportFile::Junit),
            "html" => Some(ReportFile::Html),
            "markdown" => Some(ReportFile::Markdown),
            _ => None,
        };
        let file = output.file_for(format);
        match (wanted, file) {
            (Some(wanted), Some(file)) => out.push((wanted, file)),
            _ => {
                let warning = Diagnostic::warning(
                    &project.arena.path,
                    *pos,
                    format!(
                        "spec.defaults.output.formats: `{format}` is not written: promptexec writes `json`, `junit`, `html` and `markdown` reports"
                    ),
                );
                if !args.strict {
                    console.diagnostics(&warning.clone().into());
                }
                warnings.push(warning);
            }
        }
    }
    out
}
