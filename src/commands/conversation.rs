//! One conversation played to its end: the session built from a plan, each user
//! message a turn (with what the turn has scripted beside it), the transcript
//! written as it goes, and the record every report is made from. `run` plays one;
//! a suite plays one per scenario trial.

use std::path::PathBuf;
use std::time::Instant;

use serde_json::{Map, Value as Json};
use tokio_util::sync::CancellationToken;

use crate::cli::{CliError, Exit};
use crate::config::RuntimeConfig;
use crate::doc::Diagnostics;
use crate::evals::Evaluator;
use crate::pack::{Pack, Prompt, VarInputs};
use crate::provider::{RecordedSession, Recorder};
use crate::report::{RunRecord, Transcript};
use crate::session::{Approvals, Chaos, Decision, Session, SessionEvent, ToolFailure, TurnEnd};

use super::exit::of_run;
use super::model::ModelPlan;
use super::runtime::{CancelOnInterrupt, interrupted, with_runtime};
use super::user_messages::UserMessages;

/// Everything a run needs, loaded and checked; nothing has started.
pub(super) struct Plan {
    pub config: RuntimeConfig,
    pub pack: Pack,
    pub prompt: Prompt,
    pub system_prompt: String,
    pub variables: Json,
    /// The mock scenario or scenario id the run is reported under.
    pub scenario: String,
    pub model: ModelPlan,
    /// Keep the model exchanges, for a recording.
    pub record: bool,
    pub evaluator: Evaluator,
    pub cancel: CancellationToken,
    /// Cancelled when the command as a whole is interrupted (a suite watches for
    /// signals between conversations too); `run` gives one nothing cancels.
    pub stop: CancellationToken,
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
    /// Streamed answers or not, over the run's choice.
    pub stream: Option<bool>,
}

/// A finished run: what happened, and the exit code it comes to.
pub(super) struct Played {
    pub record: RunRecord,
    pub exit: Exit,
    /// The model exchanges, when the plan asked to keep them.
    pub recorded: Option<RecordedSession>,
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
    let (provider_id, model) = plan.model.hook_names.clone();
    let stream = plan.model.stream;
    let mut tape = None;
    let played = with_runtime(|| async {
        // A signal while the observers drain at the end still stops the run.
        let interrupt = CancelOnInterrupt::start(&cancel, &plan.stop);
        // An interrupt seen before the conversation began: nothing of it starts.
        if interrupt.fired() || plan.stop.is_cancelled() {
            return Err(CliError::Interrupted);
        }
        let mut provider = plan
            .model
            .provider()
            .map_err(|e| CliError::Usage(e.to_string()))?;
        if plan.record {
            let recorder = Recorder::new(provider);
            tape = Some(recorder.tape());
            provider = Box::new(recorder);
        }
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
            provider,
            cancel.clone(),
        )
        .played_by(provider_id, model)
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
            turns = play(&mut session, &plan.messages, &plan.scripts, stream) => Some(turns),
            () = interrupted() => None,
            () = plan.stop.cancelled() => None,
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
            interrupt.fired(),
        ))
    });
    let closed = transcript.map(Transcript::close);
    let (turns, mut events, messages, dropped, stopped) = played?;
    if let (Some(Err(source)), Some(path)) = (closed, plan.transcript) {
        return Err(CliError::Write { path, source });
    }
    // Every report reads the event log: a run whose log lost events reports nothing.
    events.check().map_err(CliError::Output)?;
    let exit = if stopped {
        Exit::Interrupted
    } else {
        of_run(&turns, events.iter())
    };
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
    let recorded = tape.map(|tape| tape.take());
    Ok(Played {
        record,
        exit,
        recorded,
    })
}

/// Plays the messages in order until one ends the run, then the session-level
/// evals and `session_end`.
async fn play(
    session: &mut Session<'_>,
    messages: &UserMessages,
    scripts: &[TurnScript],
    stream: bool,
) -> Vec<TurnEnd> {
    let mut turns = Vec::with_capacity(messages.len());
    for (i, text) in messages.iter().enumerate() {
        let script = scripts.get(i).cloned().unwrap_or_default();
        session.approvals.scripted = script.consent;
        session.chaos.rules = script.chaos;
        session.stream = script.stream.unwrap_or(stream);
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

/// The variables evals see: the values given, else the declared defaults.
pub(super) fn variables_json(prompt: &Prompt, inputs: &VarInputs) -> Json {
    let mut values = Map::new();
    for var in &prompt.variables {
        if let Some(value) = inputs.get(&var.name).or(var.default.as_ref()) {
            values.insert(var.name.clone(), value.clone());
        }
    }
    Json::Object(values)
}
