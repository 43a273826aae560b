use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::cli::args::{RunArgs, RunFormat};
use crate::cli::output::write_stderr;
use crate::cli::{Cli, CliError, Exit, print_diagnostics, write_stdout};
use crate::pack;
use crate::provider::{ScriptedProvider, load_mock};
use crate::session::{Session, SessionEvent, TurnEnd};

use super::invoke::load_config;
use super::prompt::choose_prompt;
use super::{interrupted, vars, with_runtime};

/// `run`: plays every `--message` as a turn and reports what happened.
pub fn run(cli: &Cli, args: &RunArgs) -> Result<Exit, CliError> {
    let config = load_config(cli)?;
    let loaded = pack::load(&args.pack)?;
    print_diagnostics(&loaded.warnings);
    let pack = loaded.value;
    let prompt = choose_prompt(&pack, args.prompt.as_deref())?;
    let inputs = vars::collect(&args.vars)?;
    let system_prompt = pack::render_prompt(&pack, prompt, &inputs).map_err(CliError::Invalid)?;
    let mock_path = args
        .mock
        .clone()
        .or_else(|| config.providers.iter().find_map(|p| p.mock_config.clone()));
    let script = match &mock_path {
        Some(path) => {
            let loaded = load_mock(path)?;
            print_diagnostics(&loaded.warnings);
            loaded.value
        }
        None => Default::default(),
    };
    let scenario = args.scenario.clone().unwrap_or_else(|| prompt.id.clone());
    let provider = ScriptedProvider::new(script, &scenario);

    let (ends, events, messages) = with_runtime(|| async {
        let cancel = CancellationToken::new();
        let mut session = Session::new(
            &config,
            &pack,
            prompt,
            system_prompt.clone(),
            provider,
            cancel.clone(),
        );
        session.max_rounds = args.max_rounds;
        let mut ends = Vec::new();
        for text in &args.messages {
            let end = tokio::select! {
                end = session.turn(text) => Some(end),
                () = interrupted() => None,
            };
            let Some(end) = end else {
                // The turn's children were killed with it; stop the long-running ones.
                cancel.cancel();
                session.finish().await;
                return Err(CliError::Interrupted);
            };
            let stop = !matches!(
                end,
                TurnEnd::Answered | TurnEnd::RoundLimit | TurnEnd::Aborted { .. }
            );
            ends.push(end);
            if stop {
                break;
            }
        }
        session.finish().await;
        Ok((ends, session.events.clone(), session.messages.clone()))
    })?;

    let exit = ends.iter().map(exit_for).fold(Exit::Success, super::worse);
    match args.format {
        RunFormat::Human => {
            for line in events.iter().map(describe).filter(|l| !l.is_empty()) {
                write_stderr(&line);
            }
            write_stderr(&summary(&events, &ends, exit));
        }
        RunFormat::Json => {
            let report = json!({
                "prompt": prompt.id,
                "scenario": scenario,
                "system_prompt": system_prompt,
                "messages": messages,
                "events": events,
                "turns": ends.iter().map(|e| format!("{e:?}")).collect::<Vec<_>>(),
                "exit_code": exit.code(),
            });
            write_stdout(&format!(
                "{}\n",
                serde_json::to_string_pretty(&report).unwrap_or_default()
            ))?;
        }
    }
    Ok(exit)
}

fn exit_for(end: &TurnEnd) -> Exit {
    match end {
        TurnEnd::Answered | TurnEnd::RoundLimit => Exit::Success,
        TurnEnd::Aborted { .. } | TurnEnd::HardAborted { .. } => Exit::No,
        TurnEnd::Pending { .. } => Exit::Pending,
    }
}

fn describe(event: &SessionEvent) -> String {
    match event {
        SessionEvent::User { turn, content } => format!("── turn {turn}\nuser: {content}"),
        SessionEvent::ModelCall { .. } => String::new(),
        SessionEvent::Assistant {
            content,
            tool_calls,
            ..
        } => {
            let mut line = format!("assistant: {content}");
            for call in tool_calls {
                line.push_str(&format!(
                    "\n  → {} {}",
                    call["name"].as_str().unwrap_or_default(),
                    call["args"]
                ));
            }
            line
        }
        SessionEvent::Hook {
            phase,
            hook,
            action,
            reason,
        } => format!(
            "hook `{hook}` at {phase}: {action}{}",
            reason
                .as_ref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default()
        ),
        SessionEvent::ToolCall {
            name,
            call_id,
            status,
            content,
            duration_ms,
            ..
        } => {
            format!("tool {name} ({call_id}) {status} in {duration_ms} ms: {content}")
        }
        SessionEvent::TurnEnd { turn, reason } => format!("── turn {turn} ended: {reason}"),
    }
    .trim_end()
    .to_string()
}

fn summary(events: &[SessionEvent], ends: &[TurnEnd], exit: Exit) -> String {
    let count = |f: fn(&SessionEvent) -> bool| events.iter().filter(|e| f(e)).count();
    let mut text = format!(
        "summary: {} turn(s), {} model call(s), {} tool call(s), {} hook intervention(s); exit {}",
        ends.len(),
        count(|e| matches!(e, SessionEvent::ModelCall { .. })),
        count(|e| matches!(e, SessionEvent::ToolCall { .. })),
        count(|e| matches!(e, SessionEvent::Hook { .. })),
        exit.code()
    );
    for end in ends {
        match end {
            TurnEnd::Aborted { hook, reason } => {
                text.push_str(&format!("\nturn aborted by hook `{hook}`: {reason}"))
            }
            TurnEnd::HardAborted { hook, reason } => {
                text.push_str(&format!("\nrun stopped by hook `{hook}`: {reason}"))
            }
            TurnEnd::Pending {
                tool,
                call_id,
                message,
            } => text.push_str(&format!(
                "\ntool `{tool}` ({call_id}) is waiting for a decision: {message}"
            )),
            TurnEnd::Answered | TurnEnd::RoundLimit => {}
        }
    }
    text
}
