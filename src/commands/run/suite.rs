//! `run` with no message: the suite planned from the command line and the scenario
//! files, played by [`crate::suite::run`] with each scenario shown as it finishes,
//! then reported.

use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tokio_util::sync::CancellationToken;

use crate::atomic_file::write_atomic_with;
use crate::cli::args::{OutputFormat, RunArgs};
use crate::cli::{CliError, Console, Exit, Settings, UsageError};
use crate::report::{
    HtmlKind, ScenarioRecord, SuiteJson, SuiteRecord, Terminal, html_page, style, suite_junit,
    suite_markdown, suite_summary, totals_line,
};
use crate::suite::{
    self, Scenario, ScenarioPlan, SuiteEvent, SuitePlan, recording_path, transcript_path,
};

use super::library::{LibraryPrompt, suite_checks};
use super::{ReportFile, ReportTo};

mod arena;
mod arena_evals;
use crate::commands::common::emit::{pretty, write_output};
use crate::commands::common::runtime::default_jobs;
use crate::commands::common::scenario_files::plan::{PlanOptions, plan as load};

/// Loads and plans the scenarios, and checks that no two of them would write one
/// transcript or recording file. With an Arena project, the reports its
/// `defaults.output` asks for come back too (unless `--format` or `--output` say
/// otherwise).
pub(super) fn resolve(
    settings: &Settings,
    args: &RunArgs,
    console: &mut Console,
) -> Result<(SuitePlan, Vec<(ReportFile, PathBuf)>), CliError> {
    let options = options(args)?;
    if crate::arena::is_arena(&args.pack) {
        return arena::resolve(settings, args, &options, console);
    }
    if args.mock_provider {
        return Err(UsageError::not_here(
            "--mock-provider",
            "it is for an Arena project; with a pack, give the mock's answers with --mock FILE",
        )
        .into());
    }
    let loaded = load(settings, &options, true, console)?;
    refuse_shared(args, &loaded.scenarios)?;
    let plan = SuitePlan {
        config: loaded.config,
        pack: loaded.pack,
        pack_path: args.pack.clone(),
        warnings: loaded.warnings,
        scenarios: loaded.scenarios,
        identity: loaded.identity,
        shard: options.shard.clone(),
        jobs: args.jobs.map_or_else(default_jobs, |n| n as usize).max(1),
        fail_fast: args.fail_fast,
        partial_fails: args.fail_on_partial || args.strict,
        record_dir: args.record_dir.clone(),
        transcript_dir: args.transcript.clone(),
        max_rounds: args.max_rounds,
        approve: args.approve.clone(),
        reject: args.reject.clone(),
        stop: CancellationToken::new(),
    };
    Ok((plan, Vec::new()))
}

/// What the command line asks of the suite's planning.
fn options(args: &RunArgs) -> Result<PlanOptions<'_>, CliError> {
    Ok(PlanOptions {
        pack: &args.pack,
        scenarios: &args.scenarios,
        filter: &args.filter,
        shard: args.slice.get()?,
        mock: args.mock.as_deref(),
        provider: args.provider.as_deref(),
        replay_dir: args.replay_dir.as_deref(),
        replay_match: args.replay_match,
        stream: args.stream,
        vars: &args.vars,
        strict: args.strict,
    })
}

/// No two scenarios may write one transcript or recording file.
fn refuse_shared(args: &RunArgs, plans: &[ScenarioPlan]) -> Result<(), CliError> {
    let scenarios: Vec<&Scenario> = plans.iter().map(|p| &p.scenario).collect();
    if let Some(dir) = &args.transcript {
        refuse_shared_files("--transcript", &scenarios, |id, trial, trials| {
            transcript_path(dir, id, trial, trials)
        })?;
    }
    if let Some(dir) = &args.record_dir {
        refuse_shared_files("--record-dir", &scenarios, |id, _, _| {
            recording_path(dir, id)
        })?;
    }
    Ok(())
}

/// Two scenarios whose ids map to one file (`path` of id, trial and trials) would
/// write it at once.
fn refuse_shared_files(
    flag: &str,
    scenarios: &[&Scenario],
    path: impl Fn(&str, u32, u32) -> PathBuf,
) -> Result<(), CliError> {
    let mut taken: std::collections::HashMap<PathBuf, &str> = std::collections::HashMap::new();
    for scenario in scenarios {
        for trial in 1..=scenario.trials {
            let path = path(&scenario.id, trial, scenario.trials);
            if let Some(other) = taken.insert(path.clone(), &scenario.id)
                && other != scenario.id
            {
                return Err(UsageError::conflict(
                    flag,
                    format!(
                        "scenarios `{other}` and `{}` would both write {}",
                        scenario.id,
                        path.display()
                    ),
                )
                .into());
            }
        }
    }
    Ok(())
}

/// Makes the folders the suite writes into, plays it, showing each scenario as it
/// finishes, and reports it.
pub(super) fn execute(
    plan: &SuitePlan,
    report: &ReportTo,
    library: Option<&LibraryPrompt>,
    console: &mut Console,
) -> Result<Exit, CliError> {
    for dir in [&plan.transcript_dir, &plan.record_dir]
        .into_iter()
        .flatten()
    {
        std::fs::create_dir_all(dir).map_err(|source| CliError::Write {
            path: dir.clone(),
            source,
        })?;
    }
    let progress = progress_bar(console.quiet(), report.format, plan.scenarios.len());
    let pack = serde_json::from_str::<serde_json::Value>(&plan.pack.text).ok();
    let fingerprint = crate::lock::fingerprint(&plan.config, pack.as_ref());
    let mut record = suite::run(plan, |event| match event {
        SuiteEvent::Finished(scenario) => show(console, progress.as_ref(), scenario, report.format),
    });
    record.fingerprint = fingerprint;
    record.library_prompt = library.map(LibraryPrompt::reference);
    if let Some(progress) = progress {
        progress.finish_and_clear();
    }
    write_report(console, &record, report)?;
    write_files(console, &record, &report.files)?;
    let head = || serde_json::to_value(SuiteJson(&record)).unwrap_or_default();
    let gate = crate::commands::common::baseline::apply(&report.baseline, head, console)?;
    let exit = gate.map_or(record.exit(), |gate| {
        crate::report::worse(record.exit(), gate)
    });
    if let Some(library) = library {
        library.record(exit, suite_checks(&record))?;
    }
    Ok(exit)
}

/// A bar on stderr when it is a terminal and the human report is wanted.
fn progress_bar(quiet: bool, format: OutputFormat, total: usize) -> Option<ProgressBar> {
    if quiet || format != OutputFormat::Human || Terminal::stderr().is_none() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("  {bar:30} {pos}/{len} scenarios {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    Some(bar)
}

/// A scenario's line as it finishes: every one in the human report, the failing
/// and partial ones in every format and under `-q` (what made the suite fail, or
/// left part of it unjudged, always reaches stderr).
fn show(
    console: &mut Console,
    progress: Option<&ProgressBar>,
    record: &ScenarioRecord,
    format: OutputFormat,
) {
    let wanted = record.exit_code != 0
        || record.partial
        || (format == OutputFormat::Human && !console.quiet());
    if wanted {
        let line = record.line();
        match progress {
            Some(bar) => bar.println(line),
            None => console.error(&line),
        }
    }
    if let Some(bar) = progress {
        bar.inc(1);
    }
}

/// The closing summary, or the JSON or JUnit document. Under `-q` the summary and
/// the totals line are left out: the failing scenarios' lines were shown already.
fn write_report(
    console: &mut Console,
    record: &SuiteRecord,
    report: &ReportTo,
) -> Result<(), CliError> {
    let output = report.output.as_deref();
    match report.format {
        OutputFormat::Human => {
            console.note(&suite_summary(record));
            if output.is_some() {
                let mut lines: Vec<String> =
                    record.scenarios.iter().map(ScenarioRecord::line).collect();
                lines.push(suite_summary(record));
                let text = style::strip(&lines.join("\n"));
                write_output(console, output, &format!("{text}\n"))?;
            }
            Ok(())
        }
        OutputFormat::Json => {
            console.note(&totals_line(record));
            match output {
                None => console.out(&pretty(&SuiteJson(record))),
                Some(path) => write_json(record, path),
            }
        }
        OutputFormat::Junit => {
            console.note(&totals_line(record));
            let xml =
                suite_junit(record).map_err(|e| CliError::Output(std::io::Error::other(e)))?;
            write_output(console, output, &xml)
        }
        OutputFormat::Html => {
            console.note(&totals_line(record));
            write_output(console, output, &page(record))
        }
    }
}

/// The HTML page of the suite's JSON report.
fn page(record: &SuiteRecord) -> String {
    html_page(HtmlKind::Suite, &pretty(&SuiteJson(record)))
}

fn write_json(record: &SuiteRecord, path: &std::path::Path) -> Result<(), CliError> {
    let document = SuiteJson(record);
    write_atomic_with(path, |out| {
        serde_json::to_writer_pretty(&mut *out, &document).map_err(std::io::Error::other)?;
        out.write_all(b"\n")
    })
    .map_err(|source| CliError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// The report files asked for beside the main report (`--json`, `--junit`,
/// `--markdown`, an Arena's `defaults.output`), each in its folder, made if need be,
/// and each written atomically.
fn write_files(
    console: &mut Console,
    record: &SuiteRecord,
    files: &[(ReportFile, PathBuf)],
) -> Result<(), CliError> {
    for (format, path) in files {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| CliError::Write {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        match format {
            ReportFile::Json => write_json(record, path)?,
            ReportFile::Junit => {
                let xml =
                    suite_junit(record).map_err(|e| CliError::Output(std::io::Error::other(e)))?;
                write_output(console, Some(path), &xml)?;
            }
            ReportFile::Markdown => write_output(console, Some(path), &suite_markdown(record))?,
            ReportFile::Html => write_output(console, Some(path), &page(record))?,
        }
    }
    Ok(())
}
