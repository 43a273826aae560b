//! `eval`: one eval on `--content`, or a pack's evals over a recorded run.

use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};
use tokio_util::sync::CancellationToken;

use crate::cli::args::{EvalArgs, EvalFormat};
use crate::cli::{CliError, Console, Exit, Settings, UsageError};
use crate::config::RuntimeConfig;
use crate::doc::{Diagnostic, Pos};
use crate::evals::{EvalInput, EvalResult, Evaluator};
use crate::pack::{Bound, EvalDef, Threshold, Trigger};
use crate::report::{EvalReplay, eval_junit, evals_table, result_lines};
use crate::session::{EvalPoints, SessionEvent};

use crate::commands::common::emit::{pretty, write_output};
use crate::commands::common::exit::of_evals;
use crate::commands::common::load::{self, lookup, read_given, read_json_object, read_text};
use crate::commands::common::runtime::{interrupted, with_runtime};

/// `eval`: one eval on `--content`, or a pack's evals over a recorded run.
pub(super) fn run(
    settings: &Settings,
    args: &EvalArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let config = load::config_if_any(settings, console)?.unwrap_or_default();
    match (&args.eval_type, &args.pack, &args.transcript) {
        (Some(eval_type), _, _) => {
            let plan = plan_one(&config, args, eval_type, console)?;
            let result = execute_one(plan)?;
            report_one(console, args, eval_type, result)
        }
        (None, Some(pack), Some(transcript)) => {
            let plan = plan_replay(&config, args, pack, transcript, console)?;
            let results = execute_replay(&plan)?;
            report_replay(console, args, &plan, &results)
        }
        _ => Err(UsageError::Nothing(
            "give an eval TYPE with --content, or --pack with --transcript".into(),
        )
        .into()),
    }
}

/// One eval, ready to judge one text.
struct OnePlan {
    eval: EvalDef,
    input: EvalInput,
    evaluator: Evaluator,
    cancel: CancellationToken,
}

/// The eval, its params and context, and the text to judge against `--min-score`
/// and `--max-score`.
fn plan_one(
    config: &RuntimeConfig,
    args: &EvalArgs,
    eval_type: &str,
    console: &mut Console,
) -> Result<OnePlan, CliError> {
    let content = match args.content.as_deref() {
        Some(given) => read_given(given)?,
        None => {
            return Err(UsageError::Nothing("give the text to judge with --content".into()).into());
        }
    };
    let mut params = match &args.params {
        Some(given) => read_json_object(given, "--params", "the params")?,
        None => json!({}),
    };
    // A param the built-in check does not read is said and left out, as PromptKit
    // ignores it; a bound eval takes whatever it is given.
    if !config.evals.contains_key(eval_type) && crate::evals::is_builtin(eval_type) {
        for unread in crate::evals::drop_unread(eval_type, &mut params) {
            console.diagnostics(
                &crate::doc::Diagnostic::plain_warning(format!(
                    "--params: {}; it is ignored",
                    unread.message
                ))
                .into(),
            );
        }
    }
    let mut input: EvalInput = match &args.context {
        Some(given) => {
            let context = read_json_object(given, "--context", "the context")?;
            serde_json::from_value(context).map_err(|err| {
                UsageError::bad_value(
                    "--context",
                    None,
                    format!(
                        "expected messages, turn_index, tool_calls, variables and metadata: {err}"
                    ),
                )
            })?
        }
        None => EvalInput::default(),
    };
    input.content = content;
    let eval = EvalDef {
        id: eval_type.to_string(),
        eval_type: eval_type.to_string(),
        trigger: Trigger::EveryTurn,
        params,
        metric: None,
        threshold: Some(Threshold {
            min: Some(inclusive(args.min_score)),
            max: args.max_score.map(inclusive),
        }),
        sample_percentage: 100.0,
        enabled: true,
        when: Default::default(),
        description: None,
        pos: Pos::START,
        turn: None,
    };
    let cancel = CancellationToken::new();
    // Judges by name only: a saved conversation has no provider of its own.
    let evaluator = Evaluator::new(vec![eval.clone()], &config.evals, cancel.clone())
        .map_err(|problems| UsageError::Unusable(problems[0].message.clone()))?
        .with_judges(crate::evals::Judges::from_providers(
            &config.providers,
            None,
        ));
    Ok(OnePlan {
        eval,
        input,
        evaluator,
        cancel,
    })
}

fn execute_one(plan: OnePlan) -> Result<EvalResult, CliError> {
    let OnePlan {
        eval,
        input,
        evaluator,
        cancel,
    } = plan;
    with_runtime(|| async {
        let result = tokio::select! {
            result = evaluator.run_one(&eval.id, &input) => result,
            () = interrupted() => None,
        };
        cancel.cancel();
        evaluator.shutdown().await;
        result.ok_or(CliError::Interrupted)
    })
}

fn report_one(
    console: &mut Console,
    args: &EvalArgs,
    eval_type: &str,
    result: EvalResult,
) -> Result<Exit, CliError> {
    let results = [result];
    for line in result_lines(&results) {
        console.note(&line);
    }
    let report = match args.format.unwrap_or(EvalFormat::Json) {
        EvalFormat::Json => pretty(&results[0]),
        EvalFormat::Junit => junit(eval_type, &results)?,
        EvalFormat::Human => {
            console.note(&evals_table(&results.iter().collect::<Vec<_>>()));
            return Ok(of_evals(&results));
        }
    };
    write_output(console, args.output.as_deref(), &report)?;
    Ok(of_evals(&results))
}

/// A pack's evals over a transcript written by `run`, ready to judge at the points
/// where the run could have: after every turn the model answered, and at the end.
struct ReplayPlan {
    prompt: String,
    transcript: PathBuf,
    recording: Recording,
    evaluator: Evaluator,
    cancel: CancellationToken,
}

fn plan_replay(
    config: &RuntimeConfig,
    args: &EvalArgs,
    pack_path: &Path,
    transcript: &Path,
    console: &mut Console,
) -> Result<ReplayPlan, CliError> {
    let pack = load::pack(pack_path, console)?;
    let recording = read_transcript(transcript)?;
    let prompt_id = args
        .prompt
        .clone()
        .or_else(|| recording.prompt.clone())
        .ok_or_else(|| {
            UsageError::Nothing(format!(
                "{} does not say which prompt it played; give --prompt",
                transcript.display()
            ))
        })?;
    let prompt = lookup(
        &pack.prompts,
        &prompt_id,
        "prompt",
        &pack.path.display().to_string(),
    )?;
    let cancel = CancellationToken::new();
    let evaluator = load::prompt_evaluator(&pack, prompt, config, cancel.clone())?;
    Ok(ReplayPlan {
        prompt: prompt.id.clone(),
        transcript: transcript.to_path_buf(),
        recording,
        evaluator,
        cancel,
    })
}

fn execute_replay(plan: &ReplayPlan) -> Result<Vec<EvalResult>, CliError> {
    let recording = &plan.recording;
    with_runtime(|| async {
        let judged = async {
            let mut results = Vec::new();
            // One input at a time, rebuilt as the run went: the history is shared
            // with it, not copied.
            for (point, input) in EvalPoints::new(&recording.events) {
                results.extend(
                    plan.evaluator
                        .run_due(point, &recording.session_id, &input)
                        .await,
                );
            }
            results
        };
        let results = tokio::select! {
            results = judged => Some(results),
            () = interrupted() => None,
        };
        plan.cancel.cancel();
        plan.evaluator.shutdown().await;
        results.ok_or(CliError::Interrupted)
    })
}

fn report_replay(
    console: &mut Console,
    args: &EvalArgs,
    plan: &ReplayPlan,
    results: &[EvalResult],
) -> Result<Exit, CliError> {
    let exit = of_evals(results);
    let replay = EvalReplay {
        prompt: &plan.prompt,
        transcript: plan.transcript.display().to_string(),
        results,
        recorded: &plan.recording.results,
        exit_code: exit.code(),
    };
    for line in replay.disagreements() {
        console.note(&format!("warning: {line}"));
    }
    let report = match args.format.unwrap_or(EvalFormat::Human) {
        EvalFormat::Human => {
            for note in replay.human() {
                console.note(&note);
            }
            return Ok(exit);
        }
        EvalFormat::Json => replay.json(),
        EvalFormat::Junit => junit(&plan.prompt, results)?,
    };
    write_output(console, args.output.as_deref(), &report)?;
    Ok(exit)
}

/// What a transcript holds for evals.
struct Recording {
    prompt: Option<String>,
    session_id: String,
    /// Every event, for the eval points to be rebuilt from.
    events: Vec<SessionEvent>,
    /// The results the run itself reported.
    results: Vec<EvalResult>,
}

fn read_transcript(path: &Path) -> Result<Recording, CliError> {
    let text = read_text(path)?;
    let mut recording = Recording {
        prompt: None,
        session_id: "sess_1".into(),
        events: Vec::new(),
        results: Vec::new(),
    };
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = Pos {
            line: i as u32 + 1,
            col: 1,
        };
        let bad = |message: String| CliError::Invalid(Diagnostic::error(path, at, message).into());
        let event: SessionEvent = serde_json::from_str::<Json>(line)
            .map_err(|err| bad(format!("not a JSON line: {err}")))
            .and_then(|value| {
                serde_json::from_value(value).map_err(|err| {
                    bad(format!("not an event written by `run --transcript`: {err}"))
                })
            })?;
        match &event {
            SessionEvent::SessionStart {
                session_id, prompt, ..
            } => {
                recording.prompt = Some(prompt.clone());
                recording.session_id = session_id.clone();
            }
            SessionEvent::Eval(result) => recording.results.push((**result).clone()),
            _ => {}
        }
        recording.events.push(event);
    }
    Ok(recording)
}

fn junit(name: &str, results: &[EvalResult]) -> Result<String, CliError> {
    eval_junit(name, results, of_evals(results).code()).map_err(CliError::Output)
}

fn inclusive(value: f64) -> Bound {
    Bound {
        value,
        inclusive: true,
    }
}
