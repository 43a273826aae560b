//! What `eval` shows: one eval's result, or a pack's evals judged again over a
//! recorded run, with where the new results disagree with the recorded ones.

use serde::Serialize;
use serde_json::Value as Json;

use crate::diff::{Paired, pair};
use crate::evals::{EvalResult, eval_counts};
use crate::session::{EventLog, SessionEvent};

use super::{RunRecord, describe, evals_table, junit_report};

/// A pack's evals over a transcript written by `run`.
#[derive(Debug, Clone)]
pub(crate) struct EvalReplay<'a> {
    pub prompt: &'a str,
    /// The transcript's path as given.
    pub transcript: String,
    pub results: &'a [EvalResult],
    /// The results the run itself recorded.
    pub recorded: &'a [EvalResult],
    pub exit_code: u8,
}

/// The replay's JSON document; its shape is part of the command line contract.
#[derive(Serialize)]
struct ReplayJson<'a> {
    prompt: &'a str,
    transcript: &'a str,
    evals: &'a [EvalResult],
    totals: Json,
    exit_code: u8,
}

impl EvalReplay<'_> {
    /// Pretty JSON, ending in a newline.
    pub(crate) fn json(&self) -> String {
        let all: Vec<&EvalResult> = self.results.iter().collect();
        let doc = ReplayJson {
            prompt: self.prompt,
            transcript: &self.transcript,
            evals: self.results,
            totals: eval_counts(&all).to_json(),
            exit_code: self.exit_code,
        };
        format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        )
    }

    /// The lines people read, each one note: a line per result, a summary, and the
    /// results' table.
    pub(crate) fn human(&self) -> Vec<String> {
        let all: Vec<&EvalResult> = self.results.iter().collect();
        let mut notes = result_lines(self.results);
        notes.push(format!(
            "{} eval result(s) over {}: {}; exit {}",
            self.results.len(),
            self.transcript,
            eval_counts(&all),
            self.exit_code
        ));
        if !self.results.is_empty() {
            notes.push(evals_table(&all));
        }
        notes
    }

    /// Where the new results disagree with the recorded ones, one warning each:
    /// results are paired by eval and turn, and a pair differs in status or score.
    pub(crate) fn disagreements(&self) -> Vec<String> {
        let show = |r: &EvalResult| {
            format!(
                "{:?}{}",
                r.status,
                r.score.map(|s| format!(" {s:.2}")).unwrap_or_default()
            )
            .to_lowercase()
        };
        pair(self.results, self.recorded, |r| (r.eval_id.clone(), r.turn))
            .into_iter()
            .filter_map(|paired| match paired {
                Paired::Both(new, old) => Some((new, old)),
                Paired::OnlyLeft(_) | Paired::OnlyRight(_) => None,
            })
            .filter(|(new, old)| {
                let same_score = match (old.score, new.score) {
                    (Some(a), Some(b)) => (a - b).abs() < 1e-9,
                    (a, b) => a == b,
                };
                old.status != new.status || !same_score
            })
            .map(|(new, old)| {
                let place = new
                    .turn
                    .map_or_else(|| "the session".to_string(), |t| format!("turn {t}"));
                format!(
                    "eval `{}` on {place}: the run recorded {}, now {}",
                    new.eval_id,
                    show(old),
                    show(new)
                )
            })
            .collect()
    }
}

/// One line per result, as the run's stream shows it.
pub(crate) fn result_lines(results: &[EvalResult]) -> Vec<String> {
    results
        .iter()
        .filter_map(|result| describe(&SessionEvent::Eval(Box::new(result.clone()))))
        .map(|line| line.trim_start().to_string())
        .collect()
}

/// The results as one JUnit testsuite named `promptexec eval NAME`: a testcase per
/// result, as a run's evals are.
pub(crate) fn eval_junit(
    name: &str,
    results: &[EvalResult],
    exit_code: u8,
) -> Result<String, std::io::Error> {
    let record = RunRecord {
        prompt: name.to_string(),
        scenario: String::new(),
        variables: Json::Null,
        system_prompt: String::new(),
        messages: Default::default(),
        events: EventLog::from_events(
            results
                .iter()
                .cloned()
                .map(|r| SessionEvent::Eval(Box::new(r))),
        ),
        turns: Vec::new(),
        dropped_events: 0,
        duration_ms: results.iter().map(|r| r.duration_ms).sum(),
        exit_code,
        warnings: Default::default(),
        library_prompt: None,
    };
    let report =
        junit_report(&record, &format!("promptexec eval {name}")).map_err(std::io::Error::other)?;
    record.events.error().map_or(Ok(report), Err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evals::EvalStatus;

    fn result(id: &str, turn: Option<u32>, status: EvalStatus, score: Option<f64>) -> EvalResult {
        EvalResult {
            eval_id: id.into(),
            eval_type: "contains".into(),
            score,
            passed: Some(status == EvalStatus::Passed),
            status,
            duration_ms: 3,
            explanation: format!("{id} judged"),
            details: Json::Null,
            error: None,
            turn,
            trigger: "every_turn".into(),
        }
    }

    fn replay<'a>(results: &'a [EvalResult], recorded: &'a [EvalResult]) -> EvalReplay<'a> {
        EvalReplay {
            prompt: "support",
            transcript: "out/run.jsonl".into(),
            results,
            recorded,
            exit_code: 1,
        }
    }

    #[test]
    fn a_replay_renders_for_people_machines_and_junit() {
        let results = [
            result("polite", Some(1), EvalStatus::Passed, Some(1.0)),
            result("short", None, EvalStatus::Failed, Some(0.25)),
        ];
        let replay = replay(&results, &[]);
        insta::assert_snapshot!("eval_replay_human", replay.human().join("\n"));
        insta::assert_snapshot!("eval_replay_json", replay.json());
        insta::assert_snapshot!(
            "eval_replay_junit",
            eval_junit("support", &results, 1).expect("XML")
        );
    }

    #[test]
    fn only_results_judged_differently_than_recorded_are_named() {
        let recorded = [
            result("polite", Some(1), EvalStatus::Passed, Some(1.0)),
            result("short", None, EvalStatus::Passed, Some(0.9)),
            result("gone", Some(2), EvalStatus::Failed, None),
        ];
        let now = [
            result("polite", Some(1), EvalStatus::Passed, Some(1.0 + 1e-12)),
            result("short", None, EvalStatus::Failed, Some(0.25)),
            result("polite", Some(2), EvalStatus::Failed, None),
        ];
        assert_eq!(
            replay(&now, &recorded).disagreements(),
            ["eval `short` on the session: the run recorded passed 0.90, now failed 0.25"]
        );
        assert!(replay(&now, &now).disagreements().is_empty());
    }
}
