use std::path::Path;

use serde_json::{Value as Json, json};
use tokio_util::sync::CancellationToken;

use crate::cli::args::{EvalArgs, RunFormat};
use crate::cli::output::write_stderr;
use crate::cli::{Cli, CliError, Exit, print_diagnostics};
use crate::config::RuntimeConfig;
use crate::doc::{Diagnostic, Pos};
use crate::evals::{EvalInput, EvalResult, EvalStatus, Evaluator, Point, eval_counts};
use crate::pack::{self, Bound, EvalDef, Threshold, Trigger};
use crate::report::{RunRecord, describe, evals_table, junit_report};
use crate::session::SessionEvent;

use super::invoke::load_config_if_any;
use super::run::prompt_evaluator;
use super::{interrupted, lookup, read_json_object, read_text, with_runtime, worse, write_output};

/// `eval`: one eval on `--content`, or a pack's evals over a recorded run.
pub fn run(cli: &Cli, args: &EvalArgs) -> Result<Exit, CliError> {
    let config = load_config_if_any(cli)?.unwrap_or_default();
    match (&args.eval_type, &args.pack, &args.transcript) {
        (Some(eval_type), _, _) => one(&config, args, eval_type),
        (None, Some(pack), Some(transcript)) => over_transcript(&config, args, pack, transcript),
        _ => Err(CliError::Usage(
            "give an eval TYPE with --content, or --pack with --transcript".into(),
        )),
    }
}

/// One eval, judged against `--min-score` and `--max-score`.
fn one(config: &RuntimeConfig, args: &EvalArgs, eval_type: &str) -> Result<Exit, CliError> {
    let content = match args.content.as_deref() {
        Some(given) => match given.strip_prefix('@') {
            Some(file) => read_text(file)?,
            None if given == "-" => read_text("-")?,
            None => given.to_string(),
        },
        None => {
            return Err(CliError::Usage(
                "give the text to judge with --content".into(),
            ));
        }
    };
    let params = match &args.params {
        Some(given) => read_json_object(given, "--params", "the params")?,
        None => json!({}),
    };
    let mut input: EvalInput = match &args.context {
        Some(given) => {
            let context = read_json_object(given, "--context", "the context")?;
            serde_json::from_value(context).map_err(|err| {
                CliError::Usage(format!(
                    "--context: expected messages, turn_index, tool_calls, variables and metadata: {err}"
                ))
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
    };
    let cancel = CancellationToken::new();
    let evaluator = Evaluator::new(vec![eval.clone()], &config.evals, cancel.clone())
        .map_err(|problems| CliError::Usage(problems[0].message.clone()))?;
    let result = with_runtime(|| async {
        let result = tokio::select! {
            result = evaluator.run_one(&eval.id, &input) => result,
            () = interrupted() => None,
        };
        cancel.cancel();
        evaluator.shutdown().await;
        result.ok_or(CliError::Interrupted)
    })?;
    if let Some(line) = describe(&SessionEvent::Eval(result.clone())) {
        write_stderr(line.trim_start());
    }
    let results = [result];
    let report = match args.format.unwrap_or(RunFormat::Json) {
        RunFormat::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&results[0]).unwrap_or_default()
        ),
        RunFormat::Junit => junit(eval_type, &results)?,
        RunFormat::Human => {
            write_stderr(&evals_table(&results.iter().collect::<Vec<_>>()));
            return Ok(exit_of(&results));
        }
    };
    write_output(args.output.as_deref(), &report)?;
    Ok(exit_of(&results))
}

/// A pack's evals over a transcript written by `run`, at the points where the run
/// could have judged: after every turn the model answered, and at the end.
fn over_transcript(
    config: &RuntimeConfig,
    args: &EvalArgs,
    pack_path: &Path,
    transcript: &Path,
) -> Result<Exit, CliError> {
    let loaded = pack::load(pack_path)?;
    print_diagnostics(&loaded.warnings);
    let pack = loaded.value;
    let recording = read_transcript(transcript)?;
    let prompt_id = args
        .prompt
        .clone()
        .or_else(|| recording.prompt.clone())
        .ok_or_else(|| {
            CliError::Usage(format!(
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
    let evaluator = prompt_evaluator(&pack, prompt, config, cancel.clone())?;
    let results = with_runtime(|| async {
        let judged = async {
            let mut results = Vec::new();
            for (point, input) in &recording.points {
                results.extend(
                    evaluator
                        .run_due(*point, &recording.session_id, input)
                        .await,
                );
            }
            results
        };
        let results = tokio::select! {
            results = judged => Some(results),
            () = interrupted() => None,
        };
        cancel.cancel();
        evaluator.shutdown().await;
        results.ok_or(CliError::Interrupted)
    })?;
    for line in differences(&recording.results, &results) {
        write_stderr(&format!("warning: {line}"));
    }
    let exit = exit_of(&results);
    let report = match args.format.unwrap_or(RunFormat::Human) {
        RunFormat::Human => {
            for result in &results {
                if let Some(line) = describe(&SessionEvent::Eval(result.clone())) {
                    write_stderr(line.trim_start());
                }
            }
            let counts = eval_counts(&results.iter().collect::<Vec<_>>());
            write_stderr(&format!(
                "{} eval result(s) over {}: {counts}; exit {}",
                results.len(),
                transcript.display(),
                exit.code()
            ));
            if !results.is_empty() {
                write_stderr(&evals_table(&results.iter().collect::<Vec<_>>()));
            }
            return Ok(exit);
        }
        RunFormat::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&json!({
                "prompt": prompt.id,
                "transcript": transcript.display().to_string(),
                "evals": results,
                "totals": eval_counts(&results.iter().collect::<Vec<_>>()).to_json(),
                "exit_code": exit.code(),
            }))
            .unwrap_or_default()
        ),
        RunFormat::Junit => junit(&prompt.id, &results)?,
    };
    write_output(args.output.as_deref(), &report)?;
    Ok(exit)
}

/// What a transcript holds for evals.
struct Recording {
    prompt: Option<String>,
    session_id: String,
    points: Vec<(Point, EvalInput)>,
    /// The results the run itself reported.
    results: Vec<EvalResult>,
}

fn read_transcript(path: &Path) -> Result<Recording, CliError> {
    let text = read_text(&path.display().to_string())?;
    let mut recording = Recording {
        prompt: None,
        session_id: "sess_1".into(),
        points: Vec::new(),
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
        match event {
            SessionEvent::SessionStart {
                session_id, prompt, ..
            } => {
                recording.prompt = Some(prompt);
                recording.session_id = session_id;
            }
            SessionEvent::EvalPoint { turn, input } => {
                let point = turn.map_or(Point::SessionEnd, Point::TurnEnd);
                recording.points.push((point, input));
            }
            SessionEvent::Eval(result) => recording.results.push(result),
            _ => {}
        }
    }
    Ok(recording)
}

/// Where the new results disagree with the recorded ones.
fn differences(recorded: &[EvalResult], now: &[EvalResult]) -> Vec<String> {
    now.iter()
        .filter_map(|new| {
            let old = recorded
                .iter()
                .find(|r| r.eval_id == new.eval_id && r.turn == new.turn)?;
            let same = old.status == new.status
                && match (old.score, new.score) {
                    (Some(a), Some(b)) => (a - b).abs() < 1e-9,
                    (a, b) => a == b,
                };
            let show = |r: &EvalResult| {
                format!(
                    "{:?}{}",
                    r.status,
                    r.score.map(|s| format!(" {s:.2}")).unwrap_or_default()
                )
                .to_lowercase()
            };
            let place = new
                .turn
                .map_or_else(|| "the session".to_string(), |t| format!("turn {t}"));
            (!same).then(|| {
                format!(
                    "eval `{}` on {place}: the run recorded {}, now {}",
                    new.eval_id,
                    show(old),
                    show(new)
                )
            })
        })
        .collect()
}

fn junit(name: &str, results: &[EvalResult]) -> Result<String, CliError> {
    let record = RunRecord {
        prompt: name.to_string(),
        scenario: String::new(),
        variables: Json::Null,
        system_prompt: String::new(),
        messages: Vec::new(),
        events: results.iter().cloned().map(SessionEvent::Eval).collect(),
        turns: Vec::new(),
        dropped_events: 0,
        duration_ms: results.iter().map(|r| r.duration_ms).sum(),
        exit_code: exit_of(results).code(),
        warnings: Default::default(),
    };
    junit_report(&record, &format!("promptexec eval {name}"))
        .map_err(|e| CliError::Output(std::io::Error::other(e)))
}

/// 1 when a gate failed, 3 when an eval could not score; the worse of the two.
pub(super) fn exit_of<'r>(results: impl IntoIterator<Item = &'r EvalResult>) -> Exit {
    results
        .into_iter()
        .map(|r| match r.status {
            EvalStatus::Failed => Exit::No,
            EvalStatus::Error => Exit::ExtensionFailed,
            EvalStatus::Passed | EvalStatus::Measured | EvalStatus::Skipped => Exit::Success,
        })
        .fold(Exit::Success, worse)
}

fn inclusive(value: f64) -> Bound {
    Bound {
        value,
        inclusive: true,
    }
}
