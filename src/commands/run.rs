//! `run`: plays every user message (each `--message`, or each line of
//! `--messages-from`) as a turn against the scripted model and reports what happened.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{Map, Value as Json};
use tokio_util::sync::CancellationToken;

use crate::cli::args::{RunArgs, RunFormat};
use crate::cli::{CliError, Console, Exit, Settings};
use crate::config::RuntimeConfig;
use crate::doc::Diagnostics;
use crate::evals::Evaluator;
use crate::pack::{self, Pack, Prompt, VarInputs};
use crate::provider::{MockScript, ScriptedProvider, load_mock};
use crate::report::{
    HumanStream, JsonReport, RunRecord, Terminal, Transcript, junit_report, problems, summary,
    write_atomic_with,
};
use crate::session::{
    Approvals, Chaos, Decision, Session, SessionEvent, ToolFailure, ToolSet, TurnEnd,
};

use super::ask;
use super::emit::{pretty, write_output};
use super::exit::of_run;
use super::load::{self, choose_prompt, mock_path, prompt_evaluator};
use super::runtime::{interrupted, with_runtime};
use super::user_messages::UserMessages;
use super::warnings::LoadWarnings;

/// Everything a run needs, loaded and checked; nothing has started.
pub(super) struct Plan {
    pub config: RuntimeConfig,
    pub pack: Pack,
    pub prompt: Prompt,
    pub system_prompt: String,
    pub variables: Json,
    pub script: MockScript,
    pub scenario: String,
    pub evaluator: Evaluator,
    pub cancel: CancellationToken,
    pub warnings: Diagnostics,
    pub messages: UserMessages,
    /// What each turn has scripted beside its message (a scenario's consent
    /// answers and injected failures); turns past the list have none.
    pub scripts: Vec<TurnScript>,
    /// Seeds the injected failures' rolls.
    pub chaos_seed: String,
    pub max_rounds: Option<u64>,
    pub approvals: Approvals,
    pub transcript: Option<PathBuf>,
}

/// A turn's answers to pending calls and its tool failures, given in advance.
#[derive(Debug, Clone, Default)]
pub(super) struct TurnScript {
    pub consent: Vec<(String, Decision)>,
    pub chaos: Vec<ToolFailure>,
}

/// `run`: plan, play, report.
pub fn run(
    settings: &Settings,
    mut args: RunArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let messages = std::mem::take(&mut args.messages);
    let messages = UserMessages::load(messages, args.messages_from.as_deref())?;
    let args = &args;
    let plan = plan(settings, args, messages, console)?;
    let mut human = (args.format == RunFormat::Human).then(|| human_stream(console.quiet()));
    let played = execute(plan, |event| {
        if let Some(human) = &mut human {
            human.event(event);
        }
    })?;
    report(console, played, human, args)
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
    let config = warnings.config(settings, console)?;
    let pack = warnings.keep(pack::load(&args.pack), console)?;
    let prompt = choose_prompt(&pack, args.prompt.as_deref())?.clone();
    for warning in pack::unbound_tools(&pack, &prompt, &config).iter() {
        warnings.add(warning.clone(), console);
    }
    let inputs = load::vars(&args.vars)?;
    let now = args.vars.now.unwrap_or_else(std::time::SystemTime::now);
    let system_prompt =
        pack::render_prompt_at(&pack, &prompt, &inputs, now).map_err(CliError::Invalid)?;
    let script = match mock_path(args.mock.as_deref(), &config) {
        Some(path) => warnings.keep(load_mock(&path), console)?,
        None => Default::default(),
    };
    let scenario = args.scenario.clone().unwrap_or_else(|| prompt.id.clone());
    match script.check_scenario(&scenario, args.scenario.is_some()) {
        Some(problem) if problem.is_error() => return Err(CliError::Invalid(problem.into())),
        Some(warning) => warnings.add(warning, console),
        None => {}
    }
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
        script,
        scenario,
        evaluator,
        cancel,
        warnings,
        messages,
        scripts: Vec::new(),
        chaos_seed: String::new(),
        max_rounds: args.max_rounds,
        approvals: approvals(args),
        transcript: args.transcript.clone(),
    })
}

/// A finished run: what happened, and the exit code it comes to.
pub(super) struct Played {
    pub record: RunRecord,
    pub exit: Exit,
}

/// Plays the conversation, writing the transcript and showing each event to `watch`
/// as it happens, and returns the record of the run.
pub(super) fn execute(
    plan: Plan,
    mut watch: impl FnMut(&SessionEvent),
) -> Result<Played, CliError> {
    let mut transcript = match &plan.transcript {
        Some(path) => Some(Transcript::create(path).map_err(|source| CliError::Write {
            path: path.clone(),
            source,
        })?),
        None => None,
    };
    let started = Instant::now();
    let cancel = plan.cancel.clone();
    let played = with_runtime(|| async {
        let sink = |event: &SessionEvent| {
            if let Some(transcript) = &mut transcript {
                transcript.write(event);
            }
            watch(event);
        };
        let mut session = Session::new(
            &plan.config,
            &plan.pack,
            &plan.prompt,
            plan.system_prompt.clone(),
            ScriptedProvider::new(plan.script, &plan.scenario),
            cancel.clone(),
        )
        .with_evals(plan.evaluator)
        .on_event(sink);
        // A user message and an answer a turn at least: grown by doubling, a long
        // conversation's history would hold up to twice the room it needs.
        session.messages.reserve(2 * plan.messages.len());
        session.variables = plan.variables.clone();
        session.max_rounds = plan.max_rounds;
        session.approvals = plan.approvals;
        session.chaos = Chaos::seeded(&plan.chaos_seed);
        let played = tokio::select! {
            turns = play(&mut session, &plan.messages, &plan.scripts) => Some(turns),
            () = interrupted() => None,
        };
        let Some(turns) = played else {
            // The interrupted turn's children died with it; stop the long-running ones.
            cancel.cancel();
            session.finish().await;
            return Err(CliError::Interrupted);
        };
        let dropped = session.finish().await;
        Ok((
            turns,
            std::mem::take(&mut session.events),
            std::mem::take(&mut session.messages),
            dropped,
        ))
    });
    let closed = transcript.map(Transcript::close);
    let (turns, mut events, messages, dropped) = played?;
    if let (Some(Err(source)), Some(path)) = (closed, plan.transcript) {
        return Err(CliError::Write { path, source });
    }
    // Every report reads the event log: a run whose log lost events reports nothing.
    events.check().map_err(CliError::Output)?;
    let exit = of_run(&turns, events.iter());
    let record = RunRecord {
        prompt: plan.prompt.id.clone(),
        scenario: plan.scenario,
        variables: plan.variables,
        system_prompt: plan.system_prompt,
        messages,
        events,
        turns,
        dropped_events: dropped,
        duration_ms: started.elapsed().as_millis() as u64,
        exit_code: exit.code(),
        warnings: plan.warnings,
    };
    Ok(Played { record, exit })
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

/// Plays the messages in order until one ends the run, then the session-level
/// evals and `session_end`.
async fn play(
    session: &mut Session<'_>,
    messages: &UserMessages,
    scripts: &[TurnScript],
) -> Vec<TurnEnd> {
    let mut turns = Vec::with_capacity(messages.len());
    for (i, text) in messages.iter().enumerate() {
        let script = scripts.get(i).cloned().unwrap_or_default();
        session.approvals.scripted = script.consent;
        session.chaos.rules = script.chaos;
        let end = session.turn(text).await;
        let go_on = end.run_continues();
        turns.push(end);
        if !go_on {
            return turns;
        }
    }
    session.end().await;
    turns
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

/// The variables evals see: the values given, else the declared defaults.
fn variables_json(prompt: &Prompt, inputs: &VarInputs) -> Json {
    let mut values = Map::new();
    for var in &prompt.variables {
        if let Some(value) = inputs.get(&var.name).or(var.default.as_ref()) {
            values.insert(var.name.clone(), value.clone());
        }
    }
    Json::Object(values)
}
