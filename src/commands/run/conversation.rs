//! `run` with messages: one conversation planned from the command line, played by
//! [`crate::suite::play`] with its events shown live, then reported.

use std::io::IsTerminal;
use std::path::Path;

use tokio_util::sync::CancellationToken;

use crate::atomic_file::write_atomic_with;
use crate::cli::args::{OutputFormat, RunArgs};
use crate::cli::{CliError, Console, Exit, Settings, UsageError};
use crate::pack;
use crate::provider::ModelPlan;
use crate::report::{
    HtmlKind, HumanStream, JsonReport, RunRecord, Terminal, html_page, junit_report, problems,
    summary,
};
use crate::session::{Approvals, ToolSet};
use crate::suite::{self, ConversationPlan, PlayError, UserMessages, variables_json};

use super::library::{LibraryPrompt, run_checks};
use super::{ReportFile, ReportTo, ask};
use crate::commands::common::emit::{pretty, write_output};
use crate::commands::common::load::{self, choose_prompt, prompt_evaluator};
use crate::commands::common::model::{self, AnswerFlags};
use crate::commands::common::warnings::LoadWarnings;

/// Loads the config, pack, prompt, variables, mock script and evals; a problem in
/// any of them stops the run before anything starts.
pub(super) fn resolve(
    settings: &Settings,
    args: &RunArgs,
    messages: UserMessages,
    library: Option<&LibraryPrompt>,
    console: &mut Console,
) -> Result<ConversationPlan, CliError> {
    let mut warnings = LoadWarnings::new(args.strict);
    let config = warnings.config_or_empty(settings, console)?;
    let mut pack = warnings.keep(pack::load(&args.pack), console)?;
    for warning in crate::evals::drop_unread_params(&mut pack, &config.evals) {
        warnings.add(warning, console);
    }
    let prompt = choose_prompt(&pack, args.prompt.as_deref())?.clone();
    for warning in pack::unbound_tools(&pack, &prompt, &config).iter() {
        warnings.add(warning.clone(), console);
    }
    let inputs = load::vars(&args.vars)?;
    let now = args.vars.now.unwrap_or_else(std::time::SystemTime::now);
    // A library prompt takes the place of the pack's, whose variables it may not have.
    let system_prompt = match library {
        Some(library) => library.system_prompt(),
        None => pack::render_prompt_at(&pack, &prompt, &inputs, now).map_err(CliError::Invalid)?,
    };
    let scenario = args.scenario.clone().unwrap_or_else(|| prompt.id.clone());
    let model = model_plan(args, &config, &scenario, &mut warnings, console)?;
    let warnings = warnings.settle()?;
    let cancel = CancellationToken::new();
    let evaluator = prompt_evaluator(&pack, &prompt, &config, cancel.clone())?;
    let variables = variables_json(&prompt, &inputs);
    Ok(ConversationPlan {
        config,
        pack,
        prompt,
        system_prompt,
        variables,
        scenario,
        model,
        record: args.record.is_some(),
        evaluator,
        cancel,
        stop: CancellationToken::new(),
        warnings,
        messages,
        scripts: Vec::new(),
        chaos_seed: String::new(),
        max_rounds: args.max_rounds,
        approvals: approvals(args),
        transcript: args.transcript.clone(),
    })
}

/// Who answers, as [`model::plan`] chooses; the mock answers whole, which `--stream`
/// is told.
fn model_plan(
    args: &RunArgs,
    config: &crate::config::RuntimeConfig,
    scenario: &str,
    warnings: &mut LoadWarnings,
    console: &mut Console,
) -> Result<ModelPlan, CliError> {
    let flags = AnswerFlags {
        provider: args.provider.as_deref(),
        replay: args.replay.as_deref(),
        replay_match: args.replay_match,
        mock: args.mock.as_deref(),
        scenario: (scenario, args.scenario.is_some()),
        stream: args.stream,
    };
    let plan = model::plan(flags, config, warnings, console)?;
    if args.stream && plan.is_mock() {
        warnings.add(
            crate::doc::Diagnostic::plain_warning(
                "--stream: the mock answers whole; streaming applies to HTTP providers",
            ),
            console,
        );
    }
    Ok(plan)
}

/// Decisions from `--approve` and `--reject`; when neither is given and a person is
/// at the terminal, they are asked.
fn approvals(args: &RunArgs) -> Approvals {
    let flags_given = !args.approve.is_empty() || !args.reject.is_empty();
    let at_terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    Approvals {
        scripted: Vec::new(),
        approve: ToolSet::new(args.approve.iter().cloned()),
        reject: ToolSet::new(args.reject.iter().cloned()),
        ask: (!flags_given && at_terminal).then(ask::person),
    }
}

/// Plays the conversation, showing its events live in the human report, writes its
/// recording when asked, and reports it.
pub(super) fn execute(
    plan: ConversationPlan,
    record_to: Option<&Path>,
    report: &ReportTo,
    library: Option<&LibraryPrompt>,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let mut human = (report.format == OutputFormat::Human).then(|| human_stream(console.quiet()));
    let info = plan.model.info.clone();
    let mut played = suite::play(plan, |event| {
        if let Some(human) = &mut human {
            human.event(event);
        }
    })
    .map_err(play_error)?;
    if let (Some(path), Some(session)) = (record_to, played.recorded.take()) {
        suite::write_recording(path, &info, [session], [&played.record]).map_err(|source| {
            CliError::Write {
                path: path.to_path_buf(),
                source,
            }
        })?;
    }
    played.record.library_prompt = library.map(LibraryPrompt::reference);
    let record = &played.record;
    write_report(console, record, human, report)?;
    if let Some(library) = library {
        library.record(record.exit(), run_checks(record))?;
    }
    Ok(record.exit())
}

/// A conversation that could not be played, as the command's error.
fn play_error(err: PlayError) -> CliError {
    match err {
        PlayError::Interrupted => CliError::Interrupted,
        PlayError::Transcript { path, source } => CliError::Write { path, source },
        PlayError::Provider(err) => UsageError::Unusable(err.to_string()).into(),
        PlayError::EventLog(err) => CliError::Output(err),
        PlayError::Runtime(err) => CliError::Runtime(err),
    }
}

/// The one place the live human view is made: on stderr, with a spinner when that
/// is a terminal; nowhere under `-q` (its summary lines still come from `report`).
fn human_stream(quiet: bool) -> HumanStream {
    if quiet {
        HumanStream::new(Box::new(std::io::sink()), None)
    } else {
        HumanStream::new(Box::new(std::io::stderr()), Terminal::stderr())
    }
}

/// The summary after the live view, or the JSON or JUnit document; what made the
/// run fail always reaches stderr.
fn write_report(
    console: &mut Console,
    record: &RunRecord,
    human: Option<HumanStream>,
    report: &ReportTo,
) -> Result<(), CliError> {
    let output = report.output.as_deref();
    let text = match human {
        Some(human) => {
            let text = human.close(&summary(record));
            if console.quiet() {
                // The summary was left out; what made the run fail was not.
                problems(record).iter().for_each(|line| console.error(line));
            }
            output.map(|_| text)
        }
        None => {
            problems(record).iter().for_each(|line| console.error(line));
            match report.format {
                OutputFormat::Json => {
                    write_json(console, output, record)?;
                    None
                }
                OutputFormat::Html => Some(page(record)),
                _ => {
                    let title = format!("promptexec run {}", record.prompt);
                    let xml = junit_report(record, &title)
                        .map_err(|e| CliError::Output(std::io::Error::other(e)))?;
                    Some(xml)
                }
            }
        }
    };
    log_read(record)?;
    if let Some(text) = text {
        write_output(console, output, &text)?;
    }
    for (kind, path) in &report.files {
        if *kind == ReportFile::Html {
            write_output(console, Some(path), &page(record))?;
            log_read(record)?;
        }
    }
    Ok(())
}

/// The HTML page of the conversation's JSON report.
fn page(record: &RunRecord) -> String {
    html_page(HtmlKind::Conversation, &pretty(&JsonReport(record)))
}

/// Whether every pass the reports made over the event log read all of it.
fn log_read(record: &RunRecord) -> Result<(), CliError> {
    record
        .events
        .error()
        .map_or(Ok(()), |err| Err(CliError::Output(err)))
}

/// The JSON document, written to FILE as it is made (a long run's report is never
/// held whole), or to stdout.
fn write_json(
    console: &mut Console,
    output: Option<&Path>,
    record: &RunRecord,
) -> Result<(), CliError> {
    let report = JsonReport(record);
    let Some(path) = output else {
        return console.out(&pretty(&report));
    };
    write_atomic_with(path, |out| {
        serde_json::to_writer_pretty(&mut *out, &report).map_err(std::io::Error::other)?;
        out.write_all(b"\n")
    })
    .map_err(|source| CliError::Write {
        path: path.to_path_buf(),
        source,
    })
}
