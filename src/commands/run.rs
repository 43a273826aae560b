//! `run`: plays every user message (each `--message`, or each line of
//! `--messages-from`) as a turn against the scripted model and reports what happened.

use std::io::IsTerminal;
use std::path::Path;

use tokio_util::sync::CancellationToken;

use crate::atomic_file::write_atomic_with;
use crate::cli::args::{RunArgs, RunFormat};
use crate::cli::{CliError, Console, Exit, Settings};
use crate::pack;
use crate::provider::load_mock;
use crate::report::{
    HumanStream, JsonReport, RunRecord, Terminal, junit_report, problems, summary,
};
use crate::session::{Approvals, ToolSet};

use super::ask;
use super::conversation::{Plan, Played, execute, variables_json};
use super::emit::{pretty, write_output};
use super::load::{self, choose_prompt, mock_path, prompt_evaluator};
use super::model::{self, NamedBy};
use super::user_messages::UserMessages;
use super::warnings::LoadWarnings;

/// `run`: plan, play, report.
pub(super) fn run(
    settings: &Settings,
    mut args: RunArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    refuse_suite_flags(&args)?;
    let messages = std::mem::take(&mut args.messages);
    let messages = UserMessages::load(messages, args.messages_from.as_deref())?;
    let args = &args;
    let plan = plan(settings, args, messages, console)?;
    let mut human = (args.format == RunFormat::Human).then(|| human_stream(console.quiet()));
    let info = plan.model.info.clone();
    let mut played = execute(plan, |event| {
        if let Some(human) = &mut human {
            human.event(event);
        }
    })?;
    if let (Some(path), Some(session)) = (&args.record, played.recorded.take()) {
        model::write_recording(path, &info, [session], [&played.record])?;
    }
    report(console, played, human, args)
}

/// Flags that choose among or spread out a suite's scenarios mean nothing for one
/// conversation.
fn refuse_suite_flags(args: &RunArgs) -> Result<(), CliError> {
    let given = [
        ("--jobs", args.jobs.is_some()),
        ("--filter", !args.filter.is_empty()),
        ("--fail-fast", args.fail_fast),
        ("--fail-on-partial", args.fail_on_partial),
        ("--shard", args.shard.is_some()),
        ("--record-dir", args.record_dir.is_some()),
        ("--replay-dir", args.replay_dir.is_some()),
    ];
    match given.iter().find(|(_, given)| *given) {
        Some((flag, _)) => Err(CliError::Usage(format!(
            "{flag} applies to a suite of scenarios; with --message or --messages-from one conversation is played"
        ))),
        None => Ok(()),
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

/// Loads the config, pack, prompt, variables, mock script and evals; a problem in
/// any of them stops the run before anything starts.
fn plan(
    settings: &Settings,
    args: &RunArgs,
    messages: UserMessages,
    console: &mut Console,
) -> Result<Plan, CliError> {
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
    let system_prompt =
        pack::render_prompt_at(&pack, &prompt, &inputs, now).map_err(CliError::Invalid)?;
    let chosen = model::choose(
        &config,
        args.provider.as_deref().map(|name| (name, NamedBy::Flag)),
    )?;
    let scenario = args.scenario.clone().unwrap_or_else(|| prompt.id.clone());
    let answers = match (&args.replay, model::live(chosen)) {
        (Some(path), _) => model::replay_answers(path, args.replay_match)?,
        (None, Some(live)) => model::live_answers(live, &config, args.mock.is_some())?,
        (None, None) => {
            let script = match mock_path(args.mock.as_deref(), &config) {
                Some(path) => warnings.keep(load_mock(&path), console)?,
                None => Default::default(),
            };
            match script.check_scenario(&scenario, args.scenario.is_some()) {
                Some(problem) if problem.is_error() => {
                    return Err(CliError::Invalid(problem.into()));
                }
                Some(warning) => warnings.add(warning, console),
                None => {}
            }
            model::mock_answers(script, &scenario)
        }
    };
    if args.stream && matches!(answers, model::Answers::Mock { .. }) {
        warnings.add(
            crate::doc::Diagnostic::plain_warning(
                "--stream: the mock answers whole; streaming applies to HTTP providers",
            ),
            console,
        );
    }
    let model = model::plan(answers, chosen, args.stream);
    let warnings = warnings.settle()?;
    let cancel = CancellationToken::new();
    let evaluator = prompt_evaluator(&pack, &prompt, &config, cancel.clone())?;
    let variables = variables_json(&prompt, &inputs);
    Ok(Plan {
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

/// The summary after the live view, or the JSON or JUnit document; what made the
/// run fail always reaches stderr.
fn report(
    console: &mut Console,
    played: Played,
    human: Option<HumanStream>,
    args: &RunArgs,
) -> Result<Exit, CliError> {
    let record = &played.record;
    let text = match human {
        Some(human) => {
            let text = human.close(&summary(record));
            if console.quiet() {
                // The summary was left out; what made the run fail was not.
                problems(record).iter().for_each(|line| console.error(line));
            }
            args.output.as_ref().map(|_| text)
        }
        None => {
            problems(record).iter().for_each(|line| console.error(line));
            if args.format == RunFormat::Json {
                write_json(console, args.output.as_deref(), record)?;
                return log_read(record).map(|()| played.exit);
            }
            machine_report(args.format, record)?
        }
    };
    log_read(record)?;
    if let Some(text) = text {
        write_output(console, args.output.as_deref(), &text)?;
    }
    Ok(played.exit)
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

/// The JUnit XML (the JSON document is written by [`write_json`]).
fn machine_report(format: RunFormat, record: &RunRecord) -> Result<Option<String>, CliError> {
    Ok(match format {
        RunFormat::Human | RunFormat::Json => None,
        RunFormat::Junit => Some(
            junit_report(record, &format!("promptexec run {}", record.prompt))
                .map_err(|e| CliError::Output(std::io::Error::other(e)))?,
        ),
    })
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
