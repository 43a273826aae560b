//! `run PACK [SCENARIOS...]` with no message: plays a suite of PromptArena scenario
//! files, several at once, each with its own extension processes, and reports each
//! scenario as it finishes and the whole suite at the end.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tokio_util::sync::CancellationToken;

use crate::atomic_file::write_atomic_with;
use crate::cli::args::{RunArgs, RunFormat};
use crate::cli::{CliError, Console, Exit, Settings};
use crate::config::RuntimeConfig;
use crate::doc::Diagnostics;
use crate::evals::Evaluator;
use crate::pack::Pack;
use crate::report::{
    ScenarioRecord, SuiteJson, SuiteRecord, Terminal, suite_junit, suite_summary, totals_line,
};
use crate::session::{Approvals, Decision, SessionEvent, ToolSet};
use crate::suite::{self, Consent, Scenario};

use super::conversation::{Plan, Played, TurnScript, execute as play};
use super::emit::{pretty, write_output};
use super::exit::{of_run, worse};
use super::model;
use super::runtime::{InterruptWatch, default_jobs, interrupt_seen};
use super::scenario_files::plan::{
    PlanOptions, ScenarioPlan, file_stem, plan as plan_suite, recording_path,
};
use super::user_messages::UserMessages;

/// Everything a suite needs, loaded and checked; nothing has started.
struct Suite {
    config: RuntimeConfig,
    pack: Pack,
    warnings: Diagnostics,
    scenarios: Vec<ScenarioPlan>,
    jobs: usize,
}

/// `run` with no message: plan the suite, play it, report it.
pub(super) fn run(
    settings: &Settings,
    args: &RunArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    refuse_single_conversation_flags(args)?;
    let suite = plan(settings, args, console)?;
    let record = execute(&suite, args, console)?;
    report(console, &record, args)?;
    Ok(Exit::from_code(record.exit_code))
}

/// Flags that pick one conversation's prompt or mock scenario mean nothing here:
/// each scenario names its own.
fn refuse_single_conversation_flags(args: &RunArgs) -> Result<(), CliError> {
    let given = [
        (
            "--prompt",
            args.prompt.is_some(),
            "each scenario names its prompt by its `task_type`",
        ),
        (
            "--scenario",
            args.scenario.is_some(),
            "each scenario names its mock scenario by its id",
        ),
        (
            "--record",
            args.record.is_some(),
            "--record-dir DIR writes a recording per scenario",
        ),
        (
            "--replay",
            args.replay.is_some(),
            "--replay-dir DIR replays a recording per scenario",
        ),
    ];
    match given.iter().find(|(_, given, _)| *given) {
        Some((flag, _, instead)) => Err(CliError::Usage(format!(
            "{flag} applies to one conversation (--message); in a suite {instead}"
        ))),
        None => Ok(()),
    }
}

fn plan(settings: &Settings, args: &RunArgs, console: &mut Console) -> Result<Suite, CliError> {
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
    let planned = plan_suite(settings, &options, true, console)?;
    let scenarios: Vec<&Scenario> = planned.scenarios.iter().map(|p| &p.scenario).collect();
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
    let jobs = args.jobs.map_or_else(default_jobs, |n| n as usize).max(1);
    Ok(Suite {
        config: planned.config,
        pack: planned.pack,
        warnings: planned.warnings,
        scenarios: planned.scenarios,
        jobs,
    })
}

/// Plays the scenarios on `jobs` threads, each scenario on its own runtime with its
/// own extension processes, and shows each as it finishes.
fn execute(suite: &Suite, args: &RunArgs, console: &mut Console) -> Result<SuiteRecord, CliError> {
    for dir in [&args.transcript, &args.record_dir].into_iter().flatten() {
        std::fs::create_dir_all(dir).map_err(|source| CliError::Write {
            path: dir.clone(),
            source,
        })?;
    }
    let watch = InterruptWatch::start()?;
    let interrupted = watch.token();
    let started = Instant::now();
    let total = suite.scenarios.len();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let progress = progress_bar(console.quiet(), args.format, total);
    let mut finished: Vec<Option<ScenarioRecord>> = (0..total).map(|_| None).collect();
    std::thread::scope(|scope| {
        let (sender, results) = mpsc::channel();
        for _ in 0..suite.jobs.min(total) {
            let sender = sender.clone();
            let (next, stop, interrupted) = (&next, &stop, &interrupted);
            scope.spawn(move || {
                loop {
                    if stop.load(Ordering::SeqCst) || stopped_by_signal(interrupted) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    // Looked at again once taken: a scenario not begun is reported as
                    // not started, not as interrupted.
                    if i >= total || stopped_by_signal(interrupted) {
                        break;
                    }
                    let record = play_scenario(suite, &suite.scenarios[i], args, interrupted);
                    // Stopped here, before the next is taken: a failure stops the
                    // suite no later than its own worker would start another.
                    if record.exit_code != 0 && args.fail_fast {
                        stop.store(true, Ordering::SeqCst);
                    }
                    if sender.send((i, record)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        for (i, record) in results {
            show(console, progress.as_ref(), &record, args.format);
            finished[i] = Some(record);
        }
    });
    if let Some(progress) = progress {
        progress.finish_and_clear();
    }
    let mut scenarios = Vec::new();
    let mut not_started = Vec::new();
    for (plan, record) in suite.scenarios.iter().zip(finished) {
        match record {
            Some(record) => scenarios.push(record),
            None => not_started.push(plan.scenario.id.clone()),
        }
    }
    let mut exit = scenarios
        .iter()
        .map(|s| Exit::from_code(s.exit_code))
        .fold(Exit::Success, worse);
    if stopped_by_signal(&interrupted) {
        exit = Exit::Interrupted;
    }
    Ok(SuiteRecord {
        pack: args.pack.clone(),
        shard: args.shard,
        jobs: suite.jobs,
        scenarios,
        not_started,
        duration_ms: started.elapsed().as_millis() as u64,
        exit_code: exit.code(),
        warnings: suite.warnings.clone(),
    })
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
/// and partial ones in every format (what made the suite fail, or left part of it
/// unjudged, always reaches stderr).
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

/// Whether the suite was interrupted: its own watch saw the signal, or a conversation
/// did first (then the watch's token is cancelled too, which stops the others).
fn stopped_by_signal(interrupted: &CancellationToken) -> bool {
    if interrupt_seen() {
        interrupted.cancel();
    }
    interrupted.is_cancelled()
}

/// Every trial of one scenario, then its assertions folded over them. A trial that
/// could not be played (interrupted, or its transcript could not be written) ends
/// the scenario with that error, which its record keeps.
fn play_scenario(
    suite: &Suite,
    plan: &ScenarioPlan,
    args: &RunArgs,
    interrupted: &CancellationToken,
) -> ScenarioRecord {
    let started = Instant::now();
    let scenario = &plan.scenario;
    let mut trials = Vec::new();
    let mut exit = Exit::Success;
    let mut error = None;
    let mut recorded = Vec::new();
    // A scenario whose every turn is self-play has no conversation to play.
    let trials_played = if scenario.turns.is_empty() {
        0
    } else {
        scenario.trials
    };
    for trial in 1..=trials_played {
        let played = play_trial(suite, plan, args, trial, interrupted);
        let mut played = match played {
            Ok(played) => played,
            Err(err) => {
                exit = worse(exit, err.exit());
                error = Some(match err {
                    CliError::Interrupted => "interrupted".to_string(),
                    other => other.to_string(),
                });
                break;
            }
        };
        let is_check = |id: &str| plan.checks.iter().any(|c| c.id == id);
        let others = played.record.events.iter().filter(|event| match event {
            SessionEvent::Eval(result) => !is_check(&result.eval_id),
            _ => true,
        });
        exit = worse(exit, of_run(&played.record.turns, others));
        recorded.extend(played.recorded.take());
        trials.push(played.record);
    }
    if let Some(dir) = &args.record_dir
        && error.is_none()
        && !trials.is_empty()
    {
        let path = recording_path(dir, &scenario.id);
        if let Err(err) = model::write_recording(&path, &plan.model.info, recorded, &trials) {
            exit = worse(exit, err.exit());
            let cause = std::error::Error::source(&err)
                .map(|cause| format!(": {cause}"))
                .unwrap_or_default();
            error = Some(format!("{err}{cause}"));
        }
    }
    let results: Vec<Vec<_>> = trials.iter().map(|t| t.evals().collect()).collect();
    let verdicts = suite::fold(&plan.checks, &results);
    let mut partial = false;
    if error.is_none() {
        for verdict in &verdicts {
            exit = worse(
                exit,
                match verdict.outcome {
                    suite::Outcome::Passed | suite::Outcome::Skipped => Exit::Success,
                    suite::Outcome::Failed => Exit::No,
                    suite::Outcome::Error => Exit::ExtensionFailed,
                },
            );
        }
        // Passed but for what was not judged: partial, which fails only when asked.
        let skipped = verdicts
            .iter()
            .any(|v| v.outcome == suite::Outcome::Skipped);
        let cut = scenario.turns.iter().any(|t| !t.dropped.is_empty());
        partial = exit == Exit::Success && (skipped || cut || !scenario.unplayed.is_empty());
        if partial && (args.fail_on_partial || args.strict) {
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
        unplayed_turns: scenario.unplayed.clone(),
        played_in_part: played_in_part(scenario),
        partial,
        error,
        exit_code: exit.code(),
        duration_ms: started.elapsed().as_millis() as u64,
    }
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
fn play_trial(
    suite: &Suite,
    plan: &ScenarioPlan,
    args: &RunArgs,
    trial: u32,
    interrupted: &CancellationToken,
) -> Result<Played, CliError> {
    if stopped_by_signal(interrupted) {
        return Err(CliError::Interrupted);
    }
    let scenario = &plan.scenario;
    let cancel = CancellationToken::new();
    let evaluator = Evaluator::new(plan.evals.clone(), &suite.config.evals, cancel.clone())
        .map_err(|_| {
            CliError::Usage(format!("scenario `{}`: its evals cannot run", scenario.id))
        })?;
    let run_plan = Plan {
        config: suite.config.clone(),
        pack: suite.pack.clone(),
        prompt: plan.prompt.clone(),
        system_prompt: plan.system_prompt.clone(),
        variables: plan.variables.clone(),
        scenario: scenario.id.clone(),
        model: plan.model.for_trial(trial),
        record: args.record_dir.is_some(),
        evaluator,
        cancel,
        stop: interrupted.clone(),
        warnings: Diagnostics::default(),
        messages: UserMessages::of(scenario.turns.iter().map(|t| t.content.as_str())),
        scripts: scenario.turns.iter().map(turn_script).collect(),
        chaos_seed: format!("{}#{trial}", scenario.id),
        max_rounds: args.max_rounds,
        approvals: Approvals {
            scripted: Vec::new(),
            approve: ToolSet::new(args.approve.iter().cloned()),
            reject: ToolSet::new(args.reject.iter().cloned()),
            ask: None,
        },
        transcript: args
            .transcript
            .as_ref()
            .map(|dir| transcript_path(dir, &scenario.id, trial, scenario.trials)),
    };
    play(run_plan, |_: &SessionEvent| {})
}

/// A turn's consent answers as decisions, and its injected failures.
fn turn_script(turn: &suite::Turn) -> TurnScript {
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
    }
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
                return Err(CliError::Usage(format!(
                    "{flag}: scenarios `{other}` and `{}` would both write {}",
                    scenario.id,
                    path.display()
                )));
            }
        }
    }
    Ok(())
}

/// `DIR/ID.jsonl`, or `DIR/ID.trial-N.jsonl` for scenarios played more than once.
fn transcript_path(dir: &Path, id: &str, trial: u32, trials: u32) -> PathBuf {
    let stem = file_stem(id);
    if trials > 1 {
        dir.join(format!("{stem}.trial-{trial}.jsonl"))
    } else {
        dir.join(format!("{stem}.jsonl"))
    }
}

/// The closing summary, or the JSON or JUnit document.
fn report(console: &mut Console, record: &SuiteRecord, args: &RunArgs) -> Result<(), CliError> {
    match args.format {
        RunFormat::Human => {
            let text = if console.quiet() {
                totals_line(record)
            } else {
                suite_summary(record)
            };
            console.error(&text);
            if args.output.is_some() {
                let mut lines: Vec<String> =
                    record.scenarios.iter().map(ScenarioRecord::line).collect();
                lines.push(suite_summary(record));
                let text = crate::cli::style::strip(&lines.join("\n"));
                write_output(console, args.output.as_deref(), &format!("{text}\n"))?;
            }
            Ok(())
        }
        RunFormat::Json => {
            console.error(&totals_line(record));
            let report = SuiteJson(record);
            match &args.output {
                None => console.out(&pretty(&report)),
                Some(path) => write_atomic_with(path, |out| {
                    serde_json::to_writer_pretty(&mut *out, &report)
                        .map_err(std::io::Error::other)?;
                    out.write_all(b"\n")
                })
                .map_err(|source| CliError::Write {
                    path: path.clone(),
                    source,
                }),
            }
        }
        RunFormat::Junit => {
            console.error(&totals_line(record));
            let xml =
                suite_junit(record).map_err(|e| CliError::Output(std::io::Error::other(e)))?;
            write_output(console, args.output.as_deref(), &xml)
        }
    }
}
