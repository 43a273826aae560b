use std::cell::RefCell;
use std::io::IsTerminal;
use std::time::Instant;

use serde_json::{Map, Value as Json};
use tokio_util::sync::CancellationToken;

use crate::cli::args::{RunArgs, RunFormat};
use crate::cli::output::{quiet, write_error};
use crate::cli::{Cli, CliError, Exit};
use crate::config::RuntimeConfig;
use crate::doc::{Diagnostic, Diagnostics};
use crate::evals::{Evaluator, prompt_evals};
use crate::pack::{self, Pack, Prompt, VarInputs};
use crate::provider::{ScriptedProvider, load_mock};
use crate::report::{
    HumanStream, RunRecord, Terminal, Transcript, evals_of, failures_of, json_report, junit_report,
    problems, summary,
};
use crate::session::{Approvals, Session, SessionEvent, ToolSet, TurnEnd};

use super::eval::exit_of;
use super::prompt::choose_prompt;
use super::warnings::LoadWarnings;
use super::{ask, interrupted, vars, with_runtime, write_output};

/// `run`: plays every `--message` as a turn and reports what happened.
pub fn run(cli: &Cli, args: &RunArgs) -> Result<Exit, CliError> {
    let mut warnings = LoadWarnings::new(args.strict);
    let config = warnings.config(cli)?;
    let pack = warnings.keep(pack::load(&args.pack))?;
    let prompt = choose_prompt(&pack, args.prompt.as_deref())?;
    for warning in pack::unbound_tools(&pack, prompt, &config).iter() {
        warnings.add(warning.clone());
    }
    let inputs = vars::collect(&args.vars)?;
    let now = args.vars.now.unwrap_or_else(std::time::SystemTime::now);
    let system_prompt =
        pack::render_prompt_at(&pack, prompt, &inputs, now).map_err(CliError::Invalid)?;
    let mock_path = args
        .mock
        .clone()
        .or_else(|| config.providers.iter().find_map(|p| p.mock_config.clone()));
    let script = match &mock_path {
        Some(path) => warnings.keep(load_mock(path))?,
        None => Default::default(),
    };
    let scenario = args.scenario.clone().unwrap_or_else(|| prompt.id.clone());
    match script.check_scenario(&scenario, args.scenario.is_some()) {
        Some(problem) if problem.is_error() => return Err(CliError::Invalid(problem.into())),
        Some(warning) => warnings.add(warning),
        None => {}
    }
    let warnings = warnings.settle()?;
    let cancel = CancellationToken::new();
    let evaluator = prompt_evaluator(&pack, prompt, &config, cancel.clone())?;
    let mut transcript = match &args.transcript {
        Some(path) => Some(Transcript::create(path).map_err(|source| CliError::Write {
            path: path.clone(),
            source,
        })?),
        None => None,
    };
    let variables = variables_json(prompt, &inputs);

    let started = Instant::now();
    let human = RefCell::new(if quiet() {
        HumanStream::new(Box::new(std::io::sink()), None)
    } else {
        HumanStream::new(Box::new(std::io::stderr()), Terminal::stderr())
    });
    let played = with_runtime(|| async {
        let sink = |event: &SessionEvent| {
            if let Some(transcript) = &mut transcript {
                transcript.write(event);
            }
            if args.format == RunFormat::Human {
                human.borrow_mut().event(event);
            }
        };
        let mut session = Session::new(
            &config,
            &pack,
            prompt,
            system_prompt.clone(),
            ScriptedProvider::new(script, &scenario),
            cancel.clone(),
        )
        .with_evals(evaluator)
        .on_event(sink);
        session.variables = variables.clone();
        session.max_rounds = args.max_rounds;
        session.approvals = approvals(args);
        let played = tokio::select! {
            turns = play(&mut session, &args.messages) => Some(turns),
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
            session.events.clone(),
            session.messages.clone(),
            dropped,
        ))
    });
    let closed = transcript.map(Transcript::close);
    let (turns, events, messages, dropped) = played?;
    if let (Some(Err(source)), Some(path)) = (closed, &args.transcript) {
        return Err(CliError::Write {
            path: path.clone(),
            source,
        });
    }

    let exit = run_exit(&turns, &events);
    let record = RunRecord {
        prompt: prompt.id.clone(),
        scenario,
        variables,
        system_prompt,
        messages,
        events,
        turns,
        dropped_events: dropped,
        duration_ms: started.elapsed().as_millis() as u64,
        exit_code: exit.code(),
        warnings,
    };
    let report = match args.format {
        RunFormat::Human => {
            let text = human.into_inner().close(&summary(&record));
            if quiet() {
                // The summary was left out; what made the run fail was not.
                problems(&record).iter().for_each(|line| write_error(line));
            }
            args.output.as_ref().map(|_| text)
        }
        RunFormat::Json | RunFormat::Junit => {
            problems(&record).iter().for_each(|line| write_error(line));
            machine_report(args.format, &record)?
        }
    };
    if let Some(text) = report {
        write_output(args.output.as_deref(), &text)?;
    }
    Ok(exit)
}

/// The JSON document or the JUnit XML.
fn machine_report(format: RunFormat, record: &RunRecord) -> Result<Option<String>, CliError> {
    Ok(match format {
        RunFormat::Human => None,
        RunFormat::Json => Some(format!(
            "{}\n",
            serde_json::to_string_pretty(&json_report(record)).unwrap_or_default()
        )),
        RunFormat::Junit => Some(
            junit_report(record, &format!("promptexec run {}", record.prompt))
                .map_err(|e| CliError::Output(std::io::Error::other(e)))?,
        ),
    })
}

/// Plays the messages in order until one ends the run, then the session-level
/// evals and `session_end`.
async fn play(session: &mut Session<'_>, messages: &[String]) -> Vec<TurnEnd> {
    let mut turns = Vec::new();
    for text in messages {
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
        approve: ToolSet::new(args.approve.iter().cloned()),
        reject: ToolSet::new(args.reject.iter().cloned()),
        ask: (!flags_given && at_terminal).then(ask::person),
    }
}

/// The run's exit code: the most serious of its turns, evals and extension failures
/// (a failure counts even when the conversation went on).
fn run_exit(turns: &[TurnEnd], events: &[SessionEvent]) -> Exit {
    let failed = failures_of(events)
        .next()
        .map_or(Exit::Success, |_| Exit::ExtensionFailed);
    let from_turns = turns.iter().map(|end| match end {
        TurnEnd::Answered | TurnEnd::RoundLimit => Exit::Success,
        TurnEnd::Aborted { .. } | TurnEnd::HardAborted { .. } => Exit::No,
        TurnEnd::Pending { .. } => Exit::Pending,
        TurnEnd::Failed { .. } => Exit::ExtensionFailed,
    });
    from_turns.fold(
        super::worse(exit_of(evals_of(events)), failed),
        super::worse,
    )
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

/// The prompt's evals, ready to run; those that cannot run are bad input, each
/// pointing at its place in the pack.
pub(super) fn prompt_evaluator(
    pack: &Pack,
    prompt: &Prompt,
    config: &RuntimeConfig,
    cancel: CancellationToken,
) -> Result<Evaluator, CliError> {
    Evaluator::new(prompt_evals(&pack.evals, prompt), &config.evals, cancel).map_err(|problems| {
        let mut diagnostics = Diagnostics::default();
        for problem in problems {
            diagnostics.push(Diagnostic::error(
                &pack.path,
                problem.pos,
                problem.to_string(),
            ));
        }
        CliError::Invalid(diagnostics)
    })
}
