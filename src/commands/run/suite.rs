//! `run` with no message: the suite planned from the command line and the scenario
//! files, played by [`crate::suite::run`] with each scenario shown as it finishes,
//! then reported.

use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tokio_util::sync::CancellationToken;

use crate::atomic_file::write_atomic_with;
use crate::cli::args::{RunArgs, RunFormat};
use crate::cli::{CliError, Console, Exit, Settings, UsageError};
use crate::report::{
    ScenarioRecord, SuiteJson, SuiteRecord, Terminal, style, suite_junit, suite_summary,
    totals_line,
};
use crate::suite::{self, Scenario, SuiteEvent, SuitePlan, recording_path, transcript_path};

use super::ReportTo;
use crate::commands::common::emit::{pretty, write_output};
use crate::commands::common::runtime::default_jobs;
use crate::commands::common::scenario_files::plan::{PlanOptions, plan as load};

/// Loads and plans the scenarios, and checks that no two of them would write one
/// transcript or recording file.
pub(super) fn resolve(
    settings: &Settings,
    args: &RunArgs,
    console: &mut Console,
) -> Result<SuitePlan, CliError> {
    let options = PlanOptions {
        pack: &args.pack,
        scenarios: &args.scenarios,
        filter: &args.filter,
        shard: args.shard,
        mock: args.mock.as_deref(),
        provider: args.provider.as_deref(),
        replay_dir: args.replay_dir.as_deref(),
        replay_match: args.replay_match,
        stream: args.stream,
        vars: &args.vars,
        strict: args.strict,
    };
    let loaded = load(settings, &options, true, console)?;
    let scenarios: Vec<&Scenario> = loaded.scenarios.iter().map(|p| &p.scenario).collect();
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
    Ok(SuitePlan {
        config: loaded.config,
        pack: loaded.pack,
        pack_path: args.pack.clone(),
        warnings: loaded.warnings,
        scenarios: loaded.scenarios,
        shard: args.shard,
        jobs: args.jobs.map_or_else(default_jobs, |n| n as usize).max(1),
        fail_fast: args.fail_fast,
        partial_fails: args.fail_on_partial || args.strict,
        record_dir: args.record_dir.clone(),
        transcript_dir: args.transcript.clone(),
        max_rounds: args.max_rounds,
        approve: args.approve.clone(),
        reject: args.reject.clone(),
        stop: CancellationToken::new(),
    })
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
    let record = suite::run(plan, |event| match event {
        SuiteEvent::Finished(scenario) => show(console, progress.as_ref(), scenario, report.format),
    });
    if let Some(progress) = progress {
        progress.finish_and_clear();
    }
    write_report(console, &record, report)?;
    Ok(record.exit())
}

/// A bar on stderr when it is a terminal and the human report is wanted.
fn progress_bar(quiet: bool, format: RunFormat, total: usize) -> Option<ProgressBar> {
    if quiet || format != RunFormat::Human || Terminal::stderr().is_none() {
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
    format: RunFormat,
) {
    let wanted =
        record.exit_code != 0 || record.partial || (format == RunFormat::Human && !console.quiet());
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
        RunFormat::Human => {
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
        RunFormat::Json => {
            console.note(&totals_line(record));
            let document = SuiteJson(record);
            match output {
                None => console.out(&pretty(&document)),
                Some(path) => write_atomic_with(path, |out| {
                    serde_json::to_writer_pretty(&mut *out, &document)
                        .map_err(std::io::Error::other)?;
                    out.write_all(b"\n")
                })
                .map_err(|source| CliError::Write {
                    path: path.to_path_buf(),
                    source,
                }),
            }
        }
        RunFormat::Junit => {
            console.note(&totals_line(record));
            let xml =
                suite_junit(record).map_err(|e| CliError::Output(std::io::Error::other(e)))?;
            write_output(console, output, &xml)
        }
    }
}
