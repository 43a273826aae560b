use std::collections::BTreeMap;

use comfy_table::{Table, presets};

use crate::evals::{EvalResult, EvalStatus};
use crate::session::{Phase, SessionEvent, TurnEnd};

use super::{ModelTotals, RunRecord};

/// What one pass over a run's events gathers for its summary.
#[derive(Default)]
struct Tally {
    /// Per tool: calls, calls not ok, milliseconds.
    tools: BTreeMap<String, (usize, usize, u64)>,
    /// Per hook: calls, and the phases it ran at.
    hooks: BTreeMap<String, (usize, Vec<Phase>)>,
    /// Per hook: the times it changed what happened.
    decisions: BTreeMap<String, usize>,
    model_calls: usize,
    evals: Vec<EvalResult>,
}

impl Tally {
    fn of(record: &RunRecord) -> Self {
        let mut tally = Tally::default();
        for event in record.events.iter() {
            match event {
                SessionEvent::ToolCall {
                    name,
                    status,
                    duration_ms,
                    ..
                } => {
                    let entry = tally.tools.entry(name).or_default();
                    entry.0 += 1;
                    entry.1 += usize::from(!status.is_ok());
                    entry.2 += duration_ms;
                }
                SessionEvent::HooksRan { phase, hooks: ran } => {
                    for hook in ran {
                        let entry = tally.hooks.entry(hook).or_default();
                        entry.0 += 1;
                        if !entry.1.contains(&phase) {
                            entry.1.push(phase);
                        }
                    }
                }
                SessionEvent::Hook { hook, .. } => *tally.decisions.entry(hook).or_default() += 1,
                SessionEvent::ModelCall { .. } => tally.model_calls += 1,
                SessionEvent::Eval(result) => tally.evals.push(*result),
                _ => {}
            }
        }
        tally
    }

    /// The tables of tools, hooks and evals, each when there is something in it.
    fn tables(&self) -> String {
        let mut text = String::new();
        if !self.tools.is_empty() {
            let mut table = table(&["tool", "calls", "not ok", "time"]);
            for (name, (calls, failed, ms)) in &self.tools {
                table.add_row(vec![
                    name.to_string(),
                    calls.to_string(),
                    failed.to_string(),
                    format!("{ms} ms"),
                ]);
            }
            text.push_str(&format!("\n{table}"));
        }
        if !self.hooks.is_empty() {
            let mut table = table(&["hook", "phases", "calls", "interventions"]);
            for (name, (calls, phases)) in &self.hooks {
                table.add_row(vec![
                    name.to_string(),
                    phases
                        .iter()
                        .map(|p| p.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    calls.to_string(),
                    self.decisions
                        .get(name)
                        .copied()
                        .unwrap_or_default()
                        .to_string(),
                ]);
            }
            text.push_str(&format!("\n{table}"));
        }
        if !self.evals.is_empty() {
            let evals: Vec<&EvalResult> = self.evals.iter().collect();
            text.push_str(&format!("\n{}", evals_table(&evals)));
        }
        text
    }
}

/// The closing summary: one line of totals, what stopped a turn, then tables of
/// tools, hooks and evals.
pub(crate) fn summary(record: &RunRecord) -> String {
    // One pass over the run's events gathers everything the summary shows.
    let tally = Tally::of(record);
    let mut text = format!(
        "summary: {} turn(s), {} model call(s), {} tool call(s), {} hook call(s), {} hook intervention(s), {} eval result(s); exit {}",
        record.turns.len(),
        tally.model_calls,
        tally.tools.values().map(|t| t.0).sum::<usize>(),
        tally.hooks.values().map(|h| h.0).sum::<usize>(),
        tally.decisions.values().sum::<usize>(),
        tally.evals.len(),
        record.exit_code
    );
    if let Some(line) = ModelTotals::of(record.events.iter()).line() {
        text.push('\n');
        text.push_str(&line);
    }
    if let Some(used) = &record.library_prompt {
        text.push_str(&format!("\nlibrary prompt: {used}"));
    }
    for line in problems(record) {
        text.push('\n');
        text.push_str(&line);
    }
    if record.dropped_events > 0 {
        text.push_str(&format!(
            "\n{} event(s) could not be delivered to hooks",
            record.dropped_events
        ));
    }
    text.push_str(&tally.tables());
    text
}

/// A table of eval results: which, where, how, what score, how long.
pub(crate) fn evals_table(evals: &[&EvalResult]) -> String {
    let mut table = table(&["eval", "turn", "result", "score", "time"]);
    for eval in evals {
        table.add_row(vec![
            eval.eval_id.clone(),
            eval.turn
                .map_or_else(|| "session".into(), |t| t.to_string()),
            eval.status.to_string(),
            eval.score
                .map(|s| format!("{s:.2}"))
                .unwrap_or_else(|| "-".into()),
            format!("{} ms", eval.duration_ms),
        ]);
    }
    table.to_string()
}

/// What kept turns from completing and evals from passing, one line each: shown
/// after the summary, and on stderr in every format.
pub(crate) fn problems(record: &RunRecord) -> Vec<String> {
    problems_except(record, |_| false)
}

/// [`problems`], leaving out the results of the evals `skip` names (a scenario's
/// assertions, which its report explains on their own).
pub(crate) fn problems_except(record: &RunRecord, skip: impl Fn(&str) -> bool) -> Vec<String> {
    let mut lines = Vec::new();
    for (i, end) in record.turns.iter().enumerate() {
        let turn = i + 1;
        lines.push(match end {
            TurnEnd::Answered => continue,
            TurnEnd::RoundLimit => format!("turn {turn} reached the round limit without an answer"),
            TurnEnd::Aborted { hook, reason } => {
                format!("turn {turn} aborted by hook `{hook}`: {reason}")
            }
            TurnEnd::HardAborted { hook, reason } => {
                format!("run stopped by hook `{hook}` in turn {turn}: {reason}")
            }
            TurnEnd::Pending {
                tool,
                call_id,
                message,
            } => format!(
                "tool `{tool}` ({call_id}) is waiting for a decision: {message} (give --approve {tool} or --reject {tool})"
            ),
            TurnEnd::Failed { reason } => format!("the run could not go on: {reason}"),
        });
    }
    for failure in record.failures() {
        let turn = match failure.turn {
            0 => "before the first turn".to_string(),
            turn => format!("in turn {turn}"),
        };
        lines.push(format!("{} {turn}", failure.headline()));
    }
    for event in record.events.iter() {
        if let SessionEvent::Guardrail {
            turn,
            validator,
            detail,
            fails_run: true,
            ..
        } = event
        {
            lines.push(format!(
                "guardrail `{validator}` failed the answer in turn {turn}: {detail}"
            ));
        }
    }
    for eval in record.evals().filter(|e| !skip(&e.eval_id)) {
        match eval.status {
            EvalStatus::Failed => lines.push(format!(
                "eval `{}` failed with score {:.2}: {}",
                eval.eval_id,
                eval.score.unwrap_or_default(),
                eval.explanation
            )),
            EvalStatus::Error => lines.push(format!(
                "eval `{}` could not score: {}",
                eval.eval_id,
                eval.error.as_deref().unwrap_or_default()
            )),
            _ => {}
        }
    }
    // Reasons quote what hooks, tools, servers and models wrote.
    lines
        .into_iter()
        .map(|line| super::style::peer(&line, true).into_owned())
        .collect()
}

/// A table in the house style, with this header.
pub(crate) fn table(header: &[&str]) -> Table {
    let mut table = Table::new();
    table
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_header(header.to_vec());
    table
}
