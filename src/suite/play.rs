//! One conversation played to its end: the session built from a plan, each user
//! message a turn (with what the turn has scripted beside it), the transcript
//! written as it goes, and the record every report is made from. `run` plays one;
//! a suite plays one per scenario trial.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde_json::{Map, Value as Json};
use tokio_util::sync::CancellationToken;

use crate::config::RuntimeConfig;
use crate::conversation::History;
use crate::doc::Diagnostics;
use crate::evals::Evaluator;
use crate::pack::{Pack, Prompt, VarInputs};
use crate::provider::{
    ModelPlan, Provider, ProviderInfo, RecordedSession, Recorder, Recording, SessionTape,
    SetupError,
};
use crate::report::{Exit, RunRecord, Transcript, run_exit};
use crate::session::{
    Approvals, Chaos, Decision, EventLog, Session, SessionEvent, ToolFailure, TurnEnd,
};

use super::UserMessages;
use super::self_play::Speaker;

/// Everything a conversation needs, loaded and checked; nothing has started.
pub(crate) struct ConversationPlan {
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
    /// Cancelled when the command as a whole is interrupted: what is under way
    /// stops, nothing new starts, and the record says it was interrupted.
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
pub(crate) struct TurnScript {
    pub consent: Vec<(String, Decision)>,
    pub chaos: Vec<ToolFailure>,
    /// Streamed answers or not, over the run's choice.
    pub stream: Option<bool>,
    /// A self-play turn: the persona writes the user message when the turn comes,
    /// in place of the one given.
    pub speaker: Option<Arc<Speaker>>,
}

/// A finished conversation: the record of what happened, and the model exchanges
/// when the plan asked to keep them.
pub(crate) struct Played {
    pub record: RunRecord,
    pub recorded: Option<RecordedSession>,
}

/// Why a conversation could not be played to a record.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PlayError {
    /// Stopped by [`ConversationPlan::stop`] before it could end.
    #[error("interrupted")]
    Interrupted,
    #[error("cannot write {}", path.display())]
    Transcript {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// The provider could not be made.
    #[error(transparent)]
    Provider(#[from] SetupError),
    /// The event log lost events: every report reads it, so none is made.
    #[error("cannot write output")]
    EventLog(#[source] io::Error),
    #[error("cannot start the async runtime")]
    Runtime(#[source] io::Error),
}

impl PlayError {
    /// The exit code the failure comes to.
    pub(crate) fn exit(&self) -> Exit {
        match self {
            PlayError::Interrupted => Exit::Interrupted,
            _ => Exit::BadInput,
        }
    }
}

/// What the session left when its conversation ended.
struct Ended {
    turns: Vec<TurnEnd>,
    events: EventLog,
    messages: History,
    dropped: u64,
}

/// Plays the conversation, writing the transcript and showing each event to
/// `on_event` as it happens, and returns the record of the run.
pub(crate) fn play(
    plan: ConversationPlan,
    mut on_event: impl FnMut(&SessionEvent),
) -> Result<Played, PlayError> {
    let mut transcript = open_transcript(plan.transcript.as_deref())?;
    let started = Instant::now();
    let cancel = plan.cancel.clone();
    let mut tape = None;
    let ended = with_runtime(|| async {
        // A stop, even while the observers drain at the end, cancels what is under way.
        let _watch = StopWatch::start(&plan.stop, &cancel);
        // A stop seen before the conversation began: nothing of it starts.
        if plan.stop.is_cancelled() {
            return Err(PlayError::Interrupted);
        }
        let provider = provider(&plan.model, plan.record, &mut tape)?;
        let (provider_id, model) = plan.model.hook_names.clone();
        let sink = |event: &SessionEvent| {
            if let Some(transcript) = &mut transcript {
                transcript.write(event);
            }
            on_event(event);
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
        .with_evals(
            plan.evaluator
                .with_judges(crate::evals::Judges::for_run(&plan.config, &plan.model)),
        )
        .on_event(sink);
        // A user message and an answer a turn at least: grown by doubling, a long
        // conversation's history would hold up to twice the room it needs.
        session.messages.reserve(2 * plan.messages.len());
        session.variables = plan.variables.clone();
        session.max_rounds = plan.max_rounds;
        session.approvals = plan.approvals;
        session.chaos = Chaos::seeded(&plan.chaos_seed);
        let stream = plan.model.stream;
        let played = tokio::select! {
            turns = turns(&mut session, &plan.messages, &plan.scripts, stream) => Some(turns),
            () = plan.stop.cancelled() => None,
        };
        let Some(turns) = played else {
            // The interrupted turn's children died with it; stop the long-running ones.
            cancel.cancel();
            session.finish().await;
            return Err(PlayError::Interrupted);
        };
        let dropped = session.finish().await;
        Ok(Ended {
            turns,
            events: std::mem::take(&mut session.events),
            messages: std::mem::take(&mut session.messages),
            dropped,
        })
    });
    let closed = transcript.map(Transcript::close);
    let (ended, exit) = settle(ended?, closed, plan.transcript, &plan.stop)?;
    let record = RunRecord {
        prompt: plan.prompt.id,
        scenario: plan.scenario,
        variables: plan.variables,
        system_prompt: plan.system_prompt,
        messages: ended.messages,
        events: ended.events,
        turns: ended.turns,
        dropped_events: ended.dropped,
        duration_ms: started.elapsed().as_millis() as u64,
        exit_code: exit.code(),
        warnings: plan.warnings,
        library_prompt: None,
    };
    Ok(Played {
        record,
        recorded: tape.map(|tape: SessionTape| tape.take()),
    })
}

/// What a conversation that ended comes to: an error when its transcript could not
/// be closed or its event log lost events (every report reads it), else its exit.
fn settle(
    mut ended: Ended,
    closed: Option<io::Result<()>>,
    transcript: Option<PathBuf>,
    stop: &CancellationToken,
) -> Result<(Ended, Exit), PlayError> {
    if let (Some(Err(source)), Some(path)) = (closed, transcript) {
        return Err(PlayError::Transcript { path, source });
    }
    ended.events.check().map_err(PlayError::EventLog)?;
    // A stop while the observers drained at the end still ends the run interrupted.
    let exit = if stop.is_cancelled() {
        Exit::Interrupted
    } else {
        run_exit(&ended.turns, ended.events.iter())
    };
    Ok((ended, exit))
}

/// The transcript file, created now, when the plan names one.
fn open_transcript(path: Option<&Path>) -> Result<Option<Transcript>, PlayError> {
    path.map(|path| {
        Transcript::create(path).map_err(|source| PlayError::Transcript {
            path: path.to_path_buf(),
            source,
        })
    })
    .transpose()
}

/// Runs `work` on a current-thread runtime: calls wait on I/O, and it starts faster.
fn with_runtime<Fut, T>(work: impl FnOnce() -> Fut) -> Result<T, PlayError>
where
    Fut: std::future::Future<Output = Result<T, PlayError>>,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(PlayError::Runtime)?;
    runtime.block_on(work())
}

/// The plan's provider, behind a recorder (its exchanges kept in `tape`) when the
/// plan records.
fn provider<'a>(
    model: &ModelPlan,
    record: bool,
    tape: &mut Option<SessionTape>,
) -> Result<Box<dyn Provider + 'a>, PlayError> {
    let provider = model.clone().provider()?;
    if !record {
        return Ok(provider);
    }
    let recorder = Recorder::new(provider);
    *tape = Some(recorder.tape());
    Ok(Box::new(recorder))
}

/// Cancels `cancel` once `stop` is, for as long as it lives.
struct StopWatch(tokio::task::JoinHandle<()>);

impl StopWatch {
    fn start(stop: &CancellationToken, cancel: &CancellationToken) -> Self {
        let (stop, cancel) = (stop.clone(), cancel.clone());
        StopWatch(tokio::spawn(async move {
            stop.cancelled().await;
            cancel.cancel();
        }))
    }
}

impl Drop for StopWatch {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Plays the messages in order until one ends the run, then the session-level
/// evals and `session_end`.
async fn turns(
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
        let end = match &script.speaker {
            None => session.turn(text).await,
            Some(speaker) => match speaker.speak(&session.messages, i as u32 + 1).await {
                Ok(spoken) => {
                    tracing::info!(
                        "self-play: turn {} written by {}",
                        i + 1,
                        spoken.answered_by
                    );
                    session.turn(&spoken.text).await
                }
                Err(err) => TurnEnd::Failed {
                    reason: err.to_string(),
                },
            },
        };
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
pub(crate) fn variables_json(prompt: &Prompt, inputs: &VarInputs) -> Json {
    let mut values = Map::new();
    for var in &prompt.variables {
        if let Some(value) = inputs.get(&var.name).or(var.default.as_ref()) {
            values.insert(var.name.clone(), value.clone());
        }
    }
    Json::Object(values)
}

/// Writes a recording of `sessions` as played by `info`, unless a model call of
/// `runs` failed: such a recording would not replay, and the file may hold a good
/// one.
pub(crate) fn write_recording<'r>(
    path: &Path,
    info: &ProviderInfo,
    sessions: impl IntoIterator<Item = RecordedSession>,
    runs: impl IntoIterator<Item = &'r RunRecord>,
) -> io::Result<()> {
    let failed = runs.into_iter().any(|run| {
        run.turns
            .iter()
            .any(|end| matches!(end, TurnEnd::Failed { .. }))
    });
    if failed {
        tracing::warn!(
            "{} not written: the conversation could not go on, and its recording would not replay",
            path.display()
        );
        return Ok(());
    }
    let mut recording = Recording::new(info.clone());
    for session in sessions {
        recording.push_session(session);
    }
    recording.write(path)
}
