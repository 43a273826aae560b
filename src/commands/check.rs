//! `check`: every extension the config binds (or the named ones) through the
//! conformance probes of its kind, its tools fuzzed with arguments generated from
//! their schemas. Exit 0 only when every probe passes.

use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tokio_util::sync::CancellationToken;

use crate::check::{self, CheckError, CheckEvent, CheckPlan, Options, Probe};
use crate::cli::args::{CheckArgs, CheckFormat, InvalidArgs};
use crate::cli::{CliError, Console, Exit, Settings, Unknown, UsageError};
use crate::report::{
    CheckRecord, HtmlKind, Terminal, check_human, check_json, check_junit, html_page, style,
};

use crate::commands::common::emit::write_output;
use crate::commands::common::runtime::{InterruptWatch, default_jobs};
use crate::commands::common::warnings::LoadWarnings;

pub(super) fn run(
    settings: &Settings,
    args: &CheckArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let mut plan = plan(settings, args, console)?;
    if args.locked
        && let Some(drift) =
            crate::lock::gate(Some(&plan.options.config_path), args.pack.as_deref())
                .map_err(CliError::Locked)?
    {
        console.error(&drift);
        return Ok(Exit::No);
    }
    let watch = InterruptWatch::start()?;
    plan.stop = watch.token();
    let progress = progress_bar(console.quiet(), plan.subjects.len());
    let record = check::run(&plan, |event| {
        if let Some(bar) = &progress {
            match event {
                CheckEvent::Started(subject) => {
                    bar.set_message(style::peer(subject.name(), false).into_owned())
                }
                CheckEvent::Finished(checked) => {
                    if !checked.passed() {
                        let name = style::peer(&checked.name, false);
                        bar.println(format!("FAIL {name} ({})", checked.kind));
                    }
                    bar.inc(1);
                }
            }
        }
    });
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    let record = record.map_err(|err| match err {
        CheckError::Interrupted => CliError::Interrupted,
        CheckError::Runtime(source) => CliError::Runtime(source),
    })?;
    if let (Some(probe), true) = (plan.options.only, record.extensions.is_empty()) {
        return Err(UsageError::Unusable(format!(
            "probe `{probe}` applies to none of the extensions checked"
        ))
        .into());
    }
    let rendered = render(&record, args.format, args, settings.verbose > 0)?;
    write_output(console, args.output.as_deref(), &rendered)?;
    let files = [
        (CheckFormat::Json, &args.files.json),
        (CheckFormat::Junit, &args.files.junit),
        (CheckFormat::Html, &args.files.html),
    ];
    for (format, path) in files {
        if let Some(path) = path {
            let text = render(&record, format, args, false)?;
            write_output(console, Some(path), &text)?;
        }
    }
    Ok(record.exit())
}

/// The config and pack read, the probe and names checked, and every extension to
/// check made ready; nothing started.
fn plan(
    settings: &Settings,
    args: &CheckArgs,
    console: &mut Console,
) -> Result<CheckPlan, CliError> {
    let mut warnings = LoadWarnings::new(false);
    let config = warnings.config(settings, console)?;
    let pack = warnings.pack(args.pack.as_deref(), console)?;
    let only = match &args.probe {
        Some(name) => Some(Probe::from_wire(name).ok_or_else(|| UsageError::Unknown {
            name: name.clone(),
            known: Probe::NAMES.iter().map(|n| n.to_string()).collect(),
            phrase: Unknown::NoneCalled {
                kind: "probe".into(),
            },
        })?),
        None => None,
    };
    let known = check::extension_names(&config);
    if let Some(name) = args.names.iter().find(|n| !known.contains(&n.as_str())) {
        return Err(UsageError::Unknown {
            name: name.clone(),
            known: known.iter().map(|n| n.to_string()).collect(),
            phrase: Unknown::BindsNo {
                place: "the config".into(),
                kind: "extension".into(),
            },
        }
        .into());
    }
    let seed = args.seed.unwrap_or_else(fresh_seed);
    let (subjects, notes) = check::subjects(&config, pack.as_ref(), &args.names, seed);
    for note in &notes {
        console.note(note);
    }
    if subjects.is_empty() {
        return Err(UsageError::Nothing(
            "the config binds no extension to check (tools with an exec block, hooks, evals, MCP servers)".into(),
        )
        .into());
    }
    Ok(CheckPlan {
        subjects,
        options: Options {
            seed,
            cases: args.cases as usize,
            only,
            config_path: config
                .path
                .clone()
                .unwrap_or_else(|| PathBuf::from("runtimeconfig.yaml")),
            allow_writes: args.allow_writes,
            invalid_args: args.invalid_args.map(|how| how == InvalidArgs::Fail),
            spec_version: args.spec_version,
        },
        jobs: args.jobs.map_or_else(default_jobs, |j| j as usize),
        stop: CancellationToken::new(),
    })
}

/// The report in the format asked for. The human table is one line per extension
/// when every probe passed, unless `verbose`; colour follows `--color`, and never
/// goes into a pipe or a file.
fn render(
    record: &CheckRecord,
    format: CheckFormat,
    args: &CheckArgs,
    verbose: bool,
) -> Result<String, CliError> {
    Ok(match format {
        CheckFormat::Human => {
            let to_terminal =
                args.output.is_none() && std::io::IsTerminal::is_terminal(&std::io::stdout());
            check_human(record, style::enabled() && to_terminal, verbose)
        }
        CheckFormat::Json => check_json(record),
        CheckFormat::Junit => check_junit(record)
            .map_err(|err| CliError::Output(std::io::Error::other(err.to_string())))?,
        CheckFormat::Html => html_page(HtmlKind::Check, &check_json(record)),
    })
}

/// A bar on stderr, one step per extension, when stderr is a terminal and `-q` is
/// not given.
fn progress_bar(quiet: bool, total: usize) -> Option<ProgressBar> {
    if quiet || Terminal::stderr().is_none() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("  {bar:30} {pos}/{len} extensions {elapsed} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    Some(bar)
}

/// A seed for this run, from the clock: different every run, shown in the report.
fn fresh_seed() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (now.as_nanos() as u64) % 1_000_000_000
}
