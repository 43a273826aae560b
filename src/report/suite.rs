//! Reports of a suite: a line per scenario as it finishes, a closing table, one
//! JSON document with an index and a record per scenario, and JUnit with a
//! testsuite per scenario. All are made from the same records.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use indexmap::IndexMap;
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::json;

use super::style::{self, Tone};
use crate::doc::Diagnostics;
use crate::session::{SessionEvent, TurnEnd};

use super::junit::{eval_status, library_properties, model_properties, non_success};
use super::{
    Exit, JsonReport, ModelTotals, Outcome, RunRecord, Shard, UnplayedTurn, Verdict, dollars,
    problems_except, table, warnings_json,
};

/// A finished suite.
#[derive(Debug)]
pub(crate) struct SuiteRecord {
    pub pack: PathBuf,
    /// What the suite is before a shard is dealt, the same on every shard of it.
    pub identity: String,
    /// What the run's results depend on, a hash per part (prompts, extensions,
    /// tools, provider): two reports compare only where these agree.
    pub fingerprint: BTreeMap<String, String>,
    pub shard: Option<Shard>,
    pub jobs: usize,
    /// In the order they were planned (scenario id order), whatever order they
    /// finished in; scenarios never started are left out.
    pub scenarios: Vec<ScenarioRecord>,
    /// Scenarios planned but never started: `--fail-fast` or an interrupt stopped
    /// the suite first.
    pub not_started: Vec<String>,
    pub duration_ms: u64,
    pub exit_code: u8,
    pub warnings: Diagnostics,
    /// The library prompt every scenario played as its system prompt.
    pub library_prompt: Option<super::LibraryPromptRef>,
}

/// A played turn whose user message a self-play persona wrote.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct SelfPlayed {
    /// The played turn, from 1.
    pub turn: u32,
    pub role: String,
    pub persona: String,
}

/// One scenario, every trial of it.
#[derive(Debug)]
pub(crate) struct ScenarioRecord {
    pub id: String,
    pub file: PathBuf,
    pub description: String,
    pub labels: IndexMap<String, String>,
    pub trials: Vec<RunRecord>,
    pub verdicts: Vec<Verdict>,
    /// The turns of the file that are not played, each with why.
    pub unplayed_turns: Vec<UnplayedTurn>,
    /// The turns played without their media parts, each said in a line.
    pub played_in_part: Vec<String>,
    /// The turns whose user message a self-play persona wrote.
    pub self_play_turns: Vec<SelfPlayed>,
    /// It passed but for what was not judged (assertions skipped, turns not
    /// played): reported `partial`, never `passed`, whatever its exit code.
    pub partial: bool,
    /// Why it could not be played to its end (`interrupted`, or an error).
    pub error: Option<String>,
    pub exit_code: u8,
    pub duration_ms: u64,
}

/// What an exit code says of a scenario, as reports name it.
pub(crate) fn result_word(exit_code: u8) -> &'static str {
    match exit_code {
        0 => "passed",
        1 => "failed",
        4 => "pending",
        130 => "interrupted",
        _ => "error",
    }
}

impl SuiteRecord {
    /// The exit code the suite comes to.
    pub(crate) fn exit(&self) -> Exit {
        Exit::from_code(self.exit_code)
    }
}

impl ScenarioRecord {
    /// The exit code the scenario comes to.
    pub(crate) fn exit(&self) -> Exit {
        Exit::from_code(self.exit_code)
    }

    /// What reports call its result: `partial`, or the word of its exit code.
    pub(crate) fn result(&self) -> &'static str {
        if self.partial {
            "partial"
        } else {
            result_word(self.exit_code)
        }
    }

    /// Its assertions that were not judged.
    fn skipped(&self) -> usize {
        self.verdicts
            .iter()
            .filter(|v| v.outcome == Outcome::Skipped)
            .count()
    }

    /// The model calls of every trial.
    pub(crate) fn model(&self) -> ModelTotals {
        self.trials
            .iter()
            .map(|t| ModelTotals::of(t.events.iter()))
            .fold(ModelTotals::default(), |a, b| a + b)
    }

    fn is_assertion(&self, eval_id: &str) -> bool {
        self.verdicts.iter().any(|v| v.check.id == eval_id)
    }

    /// Why the scenario did not pass, one line each: its assertions first, then
    /// what happened in each trial (turns that did not end, extension failures,
    /// the pack's gates).
    pub(crate) fn problems(&self) -> Vec<String> {
        let mut lines: Vec<String> = self.error.iter().cloned().collect();
        lines.extend(
            self.verdicts
                .iter()
                .filter(|v| v.outcome != Outcome::Passed)
                .map(verdict_line),
        );
        // A turn not played with no assertion under it still leaves the run partial.
        lines.extend(
            self.unplayed_turns
                .iter()
                .filter(|turn| !turn.asserted)
                .map(unplayed_line),
        );
        lines.extend(
            self.played_in_part
                .iter()
                .map(|line| format!("{line} [partial]")),
        );
        let several = self.trials.len() > 1;
        for (i, trial) in self.trials.iter().enumerate() {
            for line in problems_except(trial, |id| self.is_assertion(id)) {
                lines.push(if several {
                    format!("trial {}: {line}", i + 1)
                } else {
                    line
                });
            }
        }
        lines
    }

    /// The line shown when the scenario finishes, with its problems under it.
    pub(crate) fn line(&self) -> String {
        let (word, tone) = match self.result() {
            "partial" => ("PARTIAL", Tone::Warn),
            "passed" => ("PASS ", Tone::Good),
            "failed" => ("FAIL ", Tone::Bad),
            "pending" => ("WAIT ", Tone::Warn),
            "interrupted" => ("STOP ", Tone::Warn),
            _ => ("ERROR", Tone::Bad),
        };
        let turns = self.trials.first().map_or(0, |t| t.turns.len());
        let trials = match self.trials.len() {
            1 => String::new(),
            n => format!(", {n} trials"),
        };
        let mut text = format!(
            "{} {}  ({turns} turn(s){trials}, {} ms{})",
            style::paint(word, tone),
            self.id,
            self.duration_ms,
            model_brief(&self.model())
        );
        for problem in self.problems() {
            // Assertion failures quote what the model said.
            text.push_str(&format!("\n    {}", style::peer(&problem, true)));
        }
        text
    }
}

/// `, 830 tokens, $0.0031` when the model reported its usage; nothing for the mock.
fn model_brief(model: &ModelTotals) -> String {
    let tokens = model.input_tokens.unwrap_or(0) + model.output_tokens.unwrap_or(0);
    match (model.has_usage(), model.cost_usd) {
        (false, _) => String::new(),
        (true, None) => format!(", {tokens} tokens"),
        (true, Some(cost)) => format!(", {tokens} tokens, {}", dollars(cost)),
    }
}

fn suite_model(suite: &SuiteRecord) -> ModelTotals {
    suite
        .scenarios
        .iter()
        .map(ScenarioRecord::model)
        .fold(ModelTotals::default(), |a, b| a + b)
}

/// Where an assertion stands: `turn N`, `conversation`, or the file's turn that is
/// not played.
fn place(v: &Verdict) -> &str {
    &v.check.place
}

/// Where an assertion stands, what it expected, and why it did not pass.
fn verdict_line(v: &Verdict) -> String {
    let mut text = format!("{} · {}", place(v), v.check.kind);
    if let Some(message) = &v.check.message {
        text.push_str(&format!(": {message}"));
    }
    if v.trials > 1 {
        text.push_str(&format!(
            " (passed {} of {} trials, needs {:.0}%)",
            v.passes,
            v.trials,
            v.check.pass_threshold * 100.0
        ));
    }
    if let Some(detail) = &v.detail {
        text.push_str(&format!(" — {detail}"));
    }
    match v.outcome {
        Outcome::Error => text.push_str(" [error]"),
        Outcome::Skipped => text.push_str(" [skipped]"),
        Outcome::Passed | Outcome::Failed => {}
    }
    text
}

/// A turn that is not played, and why.
fn unplayed_line(turn: &UnplayedTurn) -> String {
    format!("{} — {} [skipped]", turn.place(), turn.reason)
}

/// The closing table and the totals line.
pub(crate) fn suite_summary(suite: &SuiteRecord) -> String {
    let mut grid = table(&["scenario", "result", "trials", "assertions", "time"]);
    for s in &suite.scenarios {
        let passed = s
            .verdicts
            .iter()
            .filter(|v| v.outcome == Outcome::Passed)
            .count();
        let skipped = match s.skipped() {
            0 => String::new(),
            n => format!(" ({n} skipped)"),
        };
        grid.add_row(vec![
            s.id.clone(),
            s.result().to_string(),
            s.trials.len().to_string(),
            format!("{passed}/{}{skipped}", s.verdicts.len()),
            format!("{} ms", s.duration_ms),
        ]);
    }
    let mut text = if suite.scenarios.is_empty() {
        String::new()
    } else {
        format!("{grid}\n")
    };
    if let Some(line) = partial_line(suite) {
        text.push_str(&line);
        text.push('\n');
    }
    if let Some(line) = suite_model(suite).line() {
        text.push_str(&line);
        text.push('\n');
    }
    if let Some(used) = &suite.library_prompt {
        text.push_str(&format!("library prompt: {used}\n"));
    }
    text.push_str(&totals_line(suite));
    text
}

/// What partial scenarios left unjudged, and whether that fails the suite.
fn partial_line(suite: &SuiteRecord) -> Option<String> {
    let partial: Vec<&ScenarioRecord> = suite.scenarios.iter().filter(|s| s.partial).collect();
    if partial.is_empty() {
        return None;
    }
    let skipped: usize = partial.iter().map(|s| s.skipped()).sum();
    let turns: usize = partial.iter().map(|s| s.unplayed_turns.len()).sum();
    let cut: usize = partial.iter().map(|s| s.played_in_part.len()).sum();
    let cut = match cut {
        0 => String::new(),
        n => format!(", {n} played in part"),
    };
    let fails = partial.iter().any(|s| s.exit_code != 0);
    let verdict = if fails {
        "they fail the suite"
    } else {
        "not a pass: --fail-on-partial (or --strict) fails them"
    };
    Some(format!(
        "{} scenario(s) PARTIAL: {skipped} assertion(s) skipped, {turns} turn(s) not played{cut}; {verdict}",
        partial.len()
    ))
}

fn count(suite: &SuiteRecord, word: &str) -> usize {
    suite
        .scenarios
        .iter()
        .filter(|s| s.result() == word)
        .count()
}

/// `suite: N scenario(s) ...; exit C`.
pub(crate) fn totals_line(suite: &SuiteRecord) -> String {
    let mut parts = vec![format!("{} passed", count(suite, "passed"))];
    for word in ["partial", "failed", "error", "pending", "interrupted"] {
        let n = count(suite, word);
        if n > 0 {
            parts.push(format!("{n} {word}"));
        }
    }
    if !suite.not_started.is_empty() {
        parts.push(format!("{} not started", suite.not_started.len()));
    }
    let shard = suite
        .shard
        .map(|s| format!(", shard {s}"))
        .unwrap_or_default();
    format!(
        "suite: {} scenario(s) in {} ms (-j {}{shard}): {}; exit {}",
        suite.scenarios.len() + suite.not_started.len(),
        suite.duration_ms,
        suite.jobs,
        parts.join(", "),
        suite.exit_code
    )
}

/// The suite as one JSON document: totals, an index of scenarios, then each
/// scenario's assertions and the full record of each trial.
pub(crate) struct SuiteJson<'a>(pub &'a SuiteRecord);

impl Serialize for SuiteJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let suite = self.0;
        let summary = json!({
            "scenarios": suite.scenarios.len() + suite.not_started.len(),
            "passed": count(suite, "passed"),
            "partial": count(suite, "partial"),
            "failed": count(suite, "failed"),
            "errors": count(suite, "error"),
            "pending": count(suite, "pending"),
            "interrupted": count(suite, "interrupted"),
            "not_started": suite.not_started,
            "duration_ms": suite.duration_ms,
            "exit_code": suite.exit_code,
            "model": suite_model(suite),
        });
        let index: Vec<_> = suite
            .scenarios
            .iter()
            .map(|s| {
                json!({
                    "id": s.id,
                    "file": s.file.display().to_string(),
                    "result": s.result(),
                    "exit_code": s.exit_code,
                    "trials": s.trials.len(),
                    "duration_ms": s.duration_ms,
                    "model": s.model(),
                })
            })
            .collect();
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("pack", &suite.pack.display().to_string())?;
        if let Some(used) = &suite.library_prompt {
            map.serialize_entry("library_prompt", used)?;
        }
        map.serialize_entry("shard", &suite.shard.map(|s| s.to_string()))?;
        map.serialize_entry("jobs", &suite.jobs)?;
        map.serialize_entry("summary", &summary)?;
        map.serialize_entry("index", &index)?;
        let scenarios: Vec<ScenarioJson> = suite.scenarios.iter().map(ScenarioJson).collect();
        map.serialize_entry("scenarios", &scenarios)?;
        map.serialize_entry("warnings", &warnings_json(&suite.warnings))?;
        let mut ids: Vec<&str> = suite.scenarios.iter().map(|s| s.id.as_str()).collect();
        ids.extend(suite.not_started.iter().map(String::as_str));
        ids.sort_unstable();
        let manifest = json!({
            "suite": suite.identity,
            "shard": suite.shard.map(|s| s.to_string()),
            "ids": ids,
        });
        map.serialize_entry("manifest", &manifest)?;
        map.serialize_entry("fingerprint", &suite.fingerprint)?;
        map.end()
    }
}

struct ScenarioJson<'a>(&'a ScenarioRecord);

impl Serialize for ScenarioJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let s = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("id", &s.id)?;
        map.serialize_entry("file", &s.file.display().to_string())?;
        map.serialize_entry("description", &s.description)?;
        map.serialize_entry("labels", &s.labels)?;
        map.serialize_entry("result", s.result())?;
        map.serialize_entry("exit_code", &s.exit_code)?;
        map.serialize_entry("duration_ms", &s.duration_ms)?;
        map.serialize_entry("model", &s.model())?;
        map.serialize_entry("assertions", &s.verdicts)?;
        let unplayed: Vec<_> = s
            .unplayed_turns
            .iter()
            .map(|t| json!({"index": t.index, "role": t.role, "reason": t.reason, "asserted": t.asserted}))
            .collect();
        map.serialize_entry("unplayed_turns", &unplayed)?;
        map.serialize_entry("played_in_part", &s.played_in_part)?;
        if !s.self_play_turns.is_empty() {
            map.serialize_entry("self_play_turns", &s.self_play_turns)?;
        }
        if let Some(error) = &s.error {
            map.serialize_entry("error", error)?;
        }
        map.serialize_entry("problems", &s.problems())?;
        let trials: Vec<JsonReport> = s.trials.iter().map(JsonReport).collect();
        map.serialize_entry("trials", &trials)?;
        map.end()
    }
}

/// JUnit: a testsuite per scenario, with a testcase per assertion, per result of
/// the pack's evals, and one for each trial's conversation (a turn a hook stopped
/// or left waiting fails it; an extension failure is its `<error>`).
pub(crate) fn suite_junit(suite: &SuiteRecord) -> Result<String, quick_junit::SerializeError> {
    let mut report = Report::new("promptexec");
    for s in &suite.scenarios {
        let mut junit = TestSuite::new(s.id.as_str());
        junit.set_time(Duration::from_millis(s.duration_ms));
        model_properties(&mut junit, &s.model());
        library_properties(&mut junit, suite.library_prompt.as_ref());
        for v in &s.verdicts {
            let status = match v.outcome {
                Outcome::Passed | Outcome::Skipped if v.skipped => {
                    let mut status = TestCaseStatus::skipped();
                    status.set_message(v.detail.clone().unwrap_or_default());
                    status
                }
                Outcome::Passed | Outcome::Skipped => TestCaseStatus::success(),
                Outcome::Failed => non_success(NonSuccessKind::Failure, verdict_line(v)),
                Outcome::Error => non_success(NonSuccessKind::Error, verdict_line(v)),
            };
            // The assertion's id keeps two of one type in one turn apart.
            let name = format!("{} · {} [{}]", place(v), v.check.kind, v.check.id);
            let mut case = TestCase::new(name, status);
            case.set_classname(format!("{}.assertions", s.id));
            junit.add_test_case(case);
        }
        for line in &s.played_in_part {
            let mut status = TestCaseStatus::skipped();
            status.set_message(line.clone());
            let name = line.split(':').next().unwrap_or(line);
            let mut case = TestCase::new(format!("{name} (in part)"), status);
            case.set_classname(format!("{}.turns", s.id));
            junit.add_test_case(case);
        }
        for turn in &s.unplayed_turns {
            let mut status = TestCaseStatus::skipped();
            status.set_message(turn.reason.clone());
            let mut case = TestCase::new(turn.place(), status);
            case.set_classname(format!("{}.turns", s.id));
            junit.add_test_case(case);
        }
        let several = s.trials.len() > 1;
        for (i, trial) in s.trials.iter().enumerate() {
            let suffix = if several {
                format!(" (trial {})", i + 1)
            } else {
                String::new()
            };
            let status = conversation_status(trial);
            let mut case = TestCase::new(format!("conversation{suffix}"), status);
            case.set_classname(format!("{}.turns", s.id));
            case.set_time(Duration::from_millis(trial.duration_ms));
            junit.add_test_case(case);
            for eval in trial.evals().filter(|e| !s.is_assertion(&e.eval_id)) {
                let status = eval_status(&eval);
                let turn = eval
                    .turn
                    .map(|t| format!(" (turn {t})"))
                    .unwrap_or_default();
                let mut case =
                    TestCase::new(format!("eval {}{turn}{suffix}", eval.eval_id), status);
                case.set_classname(format!("{}.evals", s.id));
                case.set_time(Duration::from_millis(eval.duration_ms));
                junit.add_test_case(case);
            }
        }
        report.add_test_suite(junit);
    }
    report.to_string()
}

/// A trial's conversation as a testcase: an extension failure is its `<error>`; a
/// turn a hook ended or a tool left waiting, or a guardrail that fails the run, its
/// `<failure>`. A turn that ran out of rounds is shown but fails nothing, as in the
/// exit code.
fn conversation_status(trial: &RunRecord) -> TestCaseStatus {
    let lines = problems_except(trial, |_| true).join("; ");
    if trial.failures().next().is_some() {
        return non_success(NonSuccessKind::Error, lines);
    }
    let stopped = trial
        .turns
        .iter()
        .any(|end| !matches!(end, TurnEnd::Answered | TurnEnd::RoundLimit));
    let guarded = trial.events.iter().any(|e| {
        matches!(
            e,
            SessionEvent::Guardrail {
                fails_run: true,
                ..
            }
        )
    });
    if stopped || guarded {
        return non_success(NonSuccessKind::Failure, lines);
    }
    let mut status = TestCaseStatus::success();
    if !lines.is_empty() {
        status.set_message(lines);
    }
    status
}
