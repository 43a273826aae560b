//! A suite played: its scenarios on `jobs` threads (their self-play turns given
//! their speakers first), each trial a conversation of its own with fresh extension
//! processes, each scenario's assertions folded over its trials, and one record of
//! the whole. Each scenario is told to the caller as
//! it finishes; nothing here prints.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use crate::config::RuntimeConfig;
use crate::doc::Diagnostics;
use crate::evals::Evaluator;
use crate::pack::{EvalDef, Pack, Prompt};
use crate::provider::ModelPlan;
use crate::report::{
    Exit, Outcome, RunRecord, ScenarioRecord, SelfPlayed, SuiteRecord, Verdict, run_exit, worse,
};
use crate::session::{Approvals, Decision, SessionEvent, ToolSet};

use super::play::{ConversationPlan, PlayError, Played, TurnScript, play, write_recording};
use super::{Check, Consent, Scenario, Turn, UserMessages, fold};

/// A suite loaded and checked, with how to play it; nothing has started.
pub(crate) struct SuitePlan {
    pub config: RuntimeConfig,
    pub pack: Pack,
    /// The pack as it was given, as reports name it.
    pub pack_path: PathBuf,
    /// Every warning found loading it.
    pub warnings: Diagnostics,
    /// In the order they are reported (scenario id order).
    pub scenarios: Vec<ScenarioPlan>,
    /// What the suite is before the shard is dealt ([`super::identity`]).
    pub identity: String,
    pub shard: Option<super::Slice>,
    /// How many scenarios play at once (at least 1).
    pub jobs: usize,
    /// Start no scenario once one has failed.
    pub fail_fast: bool,
    /// A partial scenario (one with something not judged) fails.
    pub partial_fails: bool,
    /// Write each scenario's recording here (`ID.recording.json`).
    pub record_dir: Option<PathBuf>,
    /// Write each trial's transcript here ([`transcript_path`]).
    pub transcript_dir: Option<PathBuf>,
    pub max_rounds: Option<u64>,
    /// Tools whose pending calls are approved, and rejected.
    pub approve: Vec<String>,
    pub reject: Vec<String>,
    /// Cancelled when the suite is interrupted: what is under way stops, and no
    /// scenario starts.
    pub stop: CancellationToken,
}

/// One scenario, ready to play: its prompt (with the scenario's tool policy), the
/// rendered system prompt, and the evals that check it.
pub(crate) struct ScenarioPlan {
    pub scenario: Scenario,
    pub prompt: Prompt,
    pub system_prompt: String,
    pub variables: Json,
    /// The pack's and prompt's evals, then the scenario's assertions played.
    pub evals: Vec<EvalDef>,
    /// Every assertion of the scenario, those not played included.
    pub checks: Vec<Check>,
    pub model: ModelPlan,
}

/// What a suite tells its caller as it plays.
#[derive(Debug, Clone, Copy)]
pub(crate) enum SuiteEvent<'r> {
    /// A scenario finished (in the order they finish).
    Finished(&'r ScenarioRecord),
}

/// Plays the suite and returns its record; each scenario goes to `on_event` as it
/// finishes.
pub(crate) fn run(plan: &SuitePlan, mut on_event: impl FnMut(SuiteEvent<'_>)) -> SuiteRecord {
    let started = Instant::now();
    let (replanned, found) = super::self_play::replan(plan);
    let plans: Vec<&ScenarioPlan> = plan
        .scenarios
        .iter()
        .zip(&replanned)
        .map(|(planned, again)| again.as_ref().unwrap_or(planned))
        .collect();
    let plans = &plans[..];
    let total = plans.len();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let mut finished: Vec<Option<ScenarioRecord>> = (0..total).map(|_| None).collect();
    std::thread::scope(|scope| {
        let (sender, results) = mpsc::channel();
        for _ in 0..plan.jobs.min(total) {
            let sender = sender.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || work(plan, plans, next, stop, &sender));
        }
        drop(sender);
        for (i, record) in results {
            on_event(SuiteEvent::Finished(&record));
            finished[i] = Some(record);
        }
    });
    let mut scenarios = Vec::new();
    let mut not_started = Vec::new();
    for (scenario, record) in plans.iter().zip(finished) {
        match record {
            Some(record) => scenarios.push(record),
            None => not_started.push(scenario.scenario.id.clone()),
        }
    }
    let mut exit = scenarios
        .iter()
        .map(ScenarioRecord::exit)
        .fold(Exit::Success, worse);
    if plan.stop.is_cancelled() {
        exit = Exit::Interrupted;
    }
    let mut warnings = plan.warnings.clone();
    warnings.extend(found);
    SuiteRecord {
        pack: plan.pack_path.clone(),
        identity: plan.identity.clone(),
        fingerprint: Default::default(),
        shard: plan.shard.as_ref().map(|slice| slice.shard),
        jobs: plan.jobs,
        scenarios,
        not_started,
        duration_ms: started.elapsed().as_millis() as u64,
        exit_code: exit.code(),
        warnings,
        library_prompt: None,
    }
}

/// One worker: takes the next scenario until there is none, the suite is stopped,
/// or (with `fail_fast`) one has failed.
fn work(
    plan: &SuitePlan,
    scenarios: &[&ScenarioPlan],
    next: &AtomicUsize,
    stop: &AtomicBool,
    sender: &mpsc::Sender<(usize, ScenarioRecord)>,
) {
    loop {
        if stop.load(Ordering::SeqCst) || plan.stop.is_cancelled() {
            break;
        }
        let i = next.fetch_add(1, Ordering::SeqCst);
        // Looked at again once taken: a scenario not begun is reported as not
        // started, not as interrupted.
        if i >= scenarios.len() || plan.stop.is_cancelled() {
            break;
        }
        let record = play_scenario(plan, scenarios[i]);
        // Stopped here, before the next is taken: a failure stops the suite no
        // later than its own worker would start another.
        if record.exit_code != 0 && plan.fail_fast {
            stop.store(true, Ordering::SeqCst);
        }
        if sender.send((i, record)).is_err() {
            break;
        }
    }
}

/// Why a trial could not be played to its end.
#[derive(Debug, thiserror::Error)]
enum TrialError {
    #[error(transparent)]
    Play(#[from] PlayError),
    #[error("scenario `{0}`: its evals cannot run")]
    Evals(String),
    #[error("cannot write {}: {source}", path.display())]
    Recording {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl TrialError {
    fn exit(&self) -> Exit {
        match self {
            TrialError::Play(err) => err.exit(),
            TrialError::Evals(_) | TrialError::Recording { .. } => Exit::BadInput,
        }
    }
}

/// Every trial of one scenario, then its assertions folded over them. A trial that
/// could not be played (interrupted, or its transcript could not be written) ends
/// the scenario with that error, which its record keeps.
fn play_scenario(suite: &SuitePlan, plan: &ScenarioPlan) -> ScenarioRecord {
    let started = Instant::now();
    let scenario = &plan.scenario;
    let Trials {
        records: trials,
        mut exit,
        error,
    } = play_trials(suite, plan);
    let results: Vec<Vec<_>> = trials.iter().map(|t| t.evals().collect()).collect();
    let verdicts = fold(&plan.checks, &results);
    let mut partial = false;
    if error.is_none() {
        exit = verdicts.iter().map(verdict_exit).fold(exit, worse);
        // Passed but for what was not judged: partial, which fails only when asked.
        let skipped = verdicts.iter().any(|v| v.outcome == Outcome::Skipped);
        let cut = scenario.turns.iter().any(|t| !t.dropped.is_empty());
        partial = exit == Exit::Success && (skipped || cut || !scenario.unplayed.is_empty());
        if partial && suite.partial_fails {
            exit = Exit::No;
        }
    }
    ScenarioRecord {
        id: scenario.id.clone(),
        file: scenario.path.clone(),
        description: scenario.description.clone(),
        labels: scenario.labels.clone(),
        trials,
        verdicts,
        unplayed_turns: scenario.unplayed.iter().map(|t| t.fact()).collect(),
        played_in_part: played_in_part(scenario),
        self_play_turns: self_played(scenario),
        partial,
        error: error.map(|err| err.to_string()),
        exit_code: exit.code(),
        duration_ms: started.elapsed().as_millis() as u64,
    }
}

/// An assertion's verdict as an exit.
fn verdict_exit(verdict: &Verdict) -> Exit {
    match verdict.outcome {
        Outcome::Passed | Outcome::Skipped => Exit::Success,
        Outcome::Failed => Exit::No,
        Outcome::Error => Exit::ExtensionFailed,
    }
}

/// A scenario's trials as played.
struct Trials {
    records: Vec<RunRecord>,
    /// What they come to, the scenario's own assertions aside.
    exit: Exit,
    /// What stopped them (the trials before it are kept), or kept their recording
    /// from being written.
    error: Option<TrialError>,
}

/// Plays the scenario's trials in order, then writes their recording when the
/// suite records.
fn play_trials(suite: &SuitePlan, plan: &ScenarioPlan) -> Trials {
    let scenario = &plan.scenario;
    let mut trials = Trials {
        records: Vec::new(),
        exit: Exit::Success,
        error: None,
    };
    let mut recorded = Vec::new();
    // A scenario whose every turn is self-play has no conversation to play.
    let count = if scenario.turns.is_empty() {
        0
    } else {
        scenario.trials
    };
    for trial in 1..=count {
        let mut played = match play_trial(suite, plan, trial) {
            Ok(played) => played,
            Err(err) => {
                trials.exit = worse(trials.exit, err.exit());
                trials.error = Some(err);
                return trials;
            }
        };
        let is_check = |id: &str| plan.checks.iter().any(|c| c.id == id);
        let others = played.record.events.iter().filter(|event| match event {
            SessionEvent::Eval(result) => !is_check(&result.eval_id),
            _ => true,
        });
        trials.exit = worse(trials.exit, run_exit(&played.record.turns, others));
        recorded.extend(played.recorded.take());
        trials.records.push(played.record);
    }
    if let Some(dir) = &suite.record_dir
        && !trials.records.is_empty()
    {
        let path = recording_path(dir, &scenario.id);
        if let Err(source) = write_recording(&path, &plan.model.info, recorded, &trials.records) {
            let err = TrialError::Recording { path, source };
            trials.exit = worse(trials.exit, err.exit());
            trials.error = Some(err);
        }
    }
    trials
}

/// The played turns a self-play persona writes the user message of.
fn self_played(scenario: &Scenario) -> Vec<SelfPlayed> {
    let turns = scenario.turns.iter().enumerate();
    turns
        .filter_map(|(i, t)| {
            let speaker = t.speaker.as_ref()?;
            Some(SelfPlayed {
                turn: i as u32 + 1,
                role: speaker.role.clone(),
                persona: speaker.persona.id.clone(),
            })
        })
        .collect()
}

/// The turns whose media parts were not sent, each said in a line.
fn played_in_part(scenario: &Scenario) -> Vec<String> {
    scenario
        .turns
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.dropped.is_empty())
        .map(|(i, t)| {
            let kinds: Vec<String> = t.dropped.iter().map(|k| format!("`{k}`")).collect();
            format!(
                "turn {}: played in part, its {} part(s) not sent (only its text reaches the model)",
                i + 1,
                kinds.join(", ")
            )
        })
        .collect()
}

/// One trial: a conversation of its own, with fresh extension processes.
fn play_trial(suite: &SuitePlan, plan: &ScenarioPlan, trial: u32) -> Result<Played, TrialError> {
    if suite.stop.is_cancelled() {
        return Err(PlayError::Interrupted.into());
    }
    let scenario = &plan.scenario;
    let cancel = CancellationToken::new();
    let evaluator = Evaluator::new(plan.evals.clone(), &suite.config.evals, cancel.clone())
        .map_err(|_| TrialError::Evals(scenario.id.clone()))?;
    let conversation = ConversationPlan {
        config: suite.config.clone(),
        pack: suite.pack.clone(),
        prompt: plan.prompt.clone(),
        system_prompt: plan.system_prompt.clone(),
        variables: plan.variables.clone(),
        scenario: scenario.id.clone(),
        model: plan.model.for_trial(trial),
        record: suite.record_dir.is_some(),
        evaluator,
        cancel,
        stop: suite.stop.clone(),
        warnings: Diagnostics::default(),
        messages: UserMessages::of(scenario.turns.iter().map(|t| t.content.as_str())),
        scripts: scenario.turns.iter().map(turn_script).collect(),
        chaos_seed: format!("{}#{trial}", scenario.id),
        max_rounds: suite.max_rounds,
        approvals: Approvals {
            scripted: Vec::new(),
            approve: ToolSet::new(suite.approve.iter().cloned()),
            reject: ToolSet::new(suite.reject.iter().cloned()),
            ask: None,
        },
        transcript: suite
            .transcript_dir
            .as_ref()
            .map(|dir| transcript_path(dir, &scenario.id, trial, scenario.trials)),
    };
    Ok(play(conversation, |_: &SessionEvent| {})?)
}

/// A turn's consent answers as decisions, and its injected failures.
fn turn_script(turn: &Turn) -> TurnScript {
    let consent = turn
        .consent
        .iter()
        .map(|(tool, answer)| {
            let (approved, note) = match answer {
                Consent::Grant => (true, "consent granted"),
                Consent::Deny => (false, "consent denied"),
                Consent::Timeout => (false, "no consent before the timeout"),
            };
            let decision = Decision {
                approved,
                by: "consent_overrides".into(),
                note: note.into(),
            };
            (tool.clone(), decision)
        })
        .collect();
    TurnScript {
        consent,
        chaos: turn.chaos.clone(),
        stream: turn.streaming,
        speaker: turn.speaker.clone(),
    }
}

/// A scenario id as one plain file name ([`super::cases::file_name_part`]): other
/// characters than letters, digits, `-`, `_` and `.` become `_`, and so does a
/// leading `.`, so whatever the id, its files stay in the folder they are written to.
pub(crate) fn file_stem(id: &str) -> String {
    super::cases::file_name_part(std::ffi::OsStr::new(id))
}

/// `DIR/ID.recording.json`: every trial of the scenario, one session each.
pub(crate) fn recording_path(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{}.recording.json", file_stem(id)))
}

/// `DIR/ID.jsonl`, or `DIR/ID.trial-N.jsonl` for scenarios played more than once.
pub(crate) fn transcript_path(dir: &Path, id: &str, trial: u32, trials: u32) -> PathBuf {
    let stem = file_stem(id);
    if trials > 1 {
        dir.join(format!("{stem}.trial-{trial}.jsonl"))
    } else {
        dir.join(format!("{stem}.jsonl"))
    }
}
