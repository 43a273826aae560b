//! A suite's JSON report read back into the record it was written from, so that a
//! saved report renders again in every format (`report show`) and the reports of a
//! suite's shards fold into the one record of the whole suite (`report merge`),
//! which the same writers then report as if the suite had played on one machine.

use std::collections::BTreeMap;
use std::path::PathBuf;

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value as Json;

use crate::conversation::History;
use crate::doc::{Diagnostic, Diagnostics, Pos, Severity};
use crate::session::{EventLog, SessionEvent, TurnEnd};

use super::{RunRecord, ScenarioRecord, SelfPlayed, Shard, SuiteRecord, UnplayedTurn, Verdict};

/// A JSON document that is not a suite's report as promptexec writes it.
#[derive(Debug, thiserror::Error)]
#[error("not a suite report of promptexec: {0}")]
pub(crate) struct NotASuite(#[source] serde_json::Error);

/// The record a suite's JSON report (`run PACK --format json`) was written from.
pub(crate) fn read_suite(report: Json) -> Result<SuiteRecord, NotASuite> {
    let doc = SuiteDoc::deserialize(report).map_err(NotASuite)?;
    let manifest = doc.manifest.unwrap_or_default();
    Ok(SuiteRecord {
        pack: doc.pack,
        identity: manifest.suite,
        fingerprint: doc.fingerprint,
        // Written by the record itself, so it reads back.
        shard: doc.shard.and_then(|s| s.parse::<Shard>().ok()),
        jobs: doc.jobs,
        scenarios: doc.scenarios.into_iter().map(ScenarioDoc::record).collect(),
        not_started: doc.summary.not_started,
        duration_ms: doc.summary.duration_ms,
        exit_code: doc.summary.exit_code,
        warnings: diagnostics(doc.warnings),
        library_prompt: doc.library_prompt,
    })
}

#[derive(Deserialize)]
struct SuiteDoc {
    pack: PathBuf,
    shard: Option<String>,
    jobs: usize,
    summary: SummaryDoc,
    scenarios: Vec<ScenarioDoc>,
    warnings: Vec<WarningDoc>,
    #[serde(default)]
    manifest: Option<ManifestDoc>,
    #[serde(default)]
    fingerprint: BTreeMap<String, String>,
    #[serde(default)]
    library_prompt: Option<super::LibraryPromptRef>,
}

#[derive(Deserialize)]
struct SummaryDoc {
    not_started: Vec<String>,
    duration_ms: u64,
    exit_code: u8,
}

#[derive(Deserialize, Default)]
struct ManifestDoc {
    suite: String,
}

#[derive(Deserialize)]
struct ScenarioDoc {
    id: String,
    file: PathBuf,
    description: String,
    labels: IndexMap<String, String>,
    result: String,
    exit_code: u8,
    duration_ms: u64,
    assertions: Vec<Verdict>,
    unplayed_turns: Vec<UnplayedDoc>,
    played_in_part: Vec<String>,
    #[serde(default)]
    self_play_turns: Vec<SelfPlayed>,
    #[serde(default)]
    error: Option<String>,
    trials: Vec<TrialDoc>,
}

impl ScenarioDoc {
    fn record(self) -> ScenarioRecord {
        ScenarioRecord {
            partial: self.result == "partial",
            id: self.id,
            file: self.file,
            description: self.description,
            labels: self.labels,
            trials: self.trials.into_iter().map(TrialDoc::record).collect(),
            verdicts: self.assertions,
            unplayed_turns: self
                .unplayed_turns
                .into_iter()
                .map(|t| UnplayedTurn {
                    index: t.index,
                    role: t.role,
                    reason: t.reason,
                    asserted: t.asserted,
                })
                .collect(),
            played_in_part: self.played_in_part,
            self_play_turns: self.self_play_turns,
            error: self.error,
            exit_code: self.exit_code,
            duration_ms: self.duration_ms,
        }
    }
}

#[derive(Deserialize)]
struct UnplayedDoc {
    index: u32,
    role: String,
    reason: String,
    #[serde(default)]
    asserted: bool,
}

/// One trial: the JSON report of one conversation.
#[derive(Deserialize)]
struct TrialDoc {
    prompt: String,
    scenario: String,
    variables: Json,
    system_prompt: String,
    messages: History,
    turns: Vec<TurnDoc>,
    totals: TotalsDoc,
    events: Vec<SessionEvent>,
    warnings: Vec<WarningDoc>,
    exit_code: u8,
    #[serde(default)]
    library_prompt: Option<super::LibraryPromptRef>,
}

impl TrialDoc {
    fn record(self) -> RunRecord {
        RunRecord {
            prompt: self.prompt,
            scenario: self.scenario,
            variables: self.variables,
            system_prompt: self.system_prompt,
            messages: self.messages,
            events: EventLog::from_events(self.events),
            turns: self.turns.into_iter().map(TurnDoc::end).collect(),
            dropped_events: self.totals.dropped_events,
            duration_ms: self.totals.duration_ms,
            exit_code: self.exit_code,
            warnings: diagnostics(self.warnings),
            library_prompt: self.library_prompt,
        }
    }
}

#[derive(Deserialize)]
struct TotalsDoc {
    dropped_events: u64,
    duration_ms: u64,
}

/// How a turn ended, as [`super::turn_outcome`] writes it.
#[derive(Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
enum TurnDoc {
    Answered,
    RoundLimit,
    Aborted {
        hook: String,
        reason: String,
    },
    HardAborted {
        hook: String,
        reason: String,
    },
    Pending {
        tool: String,
        call_id: String,
        message: String,
    },
    Failed {
        reason: String,
    },
}

impl TurnDoc {
    fn end(self) -> TurnEnd {
        match self {
            TurnDoc::Answered => TurnEnd::Answered,
            TurnDoc::RoundLimit => TurnEnd::RoundLimit,
            TurnDoc::Aborted { hook, reason } => TurnEnd::Aborted { hook, reason },
            TurnDoc::HardAborted { hook, reason } => TurnEnd::HardAborted { hook, reason },
            TurnDoc::Pending {
                tool,
                call_id,
                message,
            } => TurnEnd::Pending {
                tool,
                call_id,
                message,
            },
            TurnDoc::Failed { reason } => TurnEnd::Failed { reason },
        }
    }
}

/// A warning as [`super::warnings_json`] writes it.
#[derive(Deserialize)]
struct WarningDoc {
    file: PathBuf,
    line: Option<u32>,
    column: Option<u32>,
    message: String,
}

fn diagnostics(warnings: Vec<WarningDoc>) -> Diagnostics {
    let mut all = Diagnostics::default();
    for w in warnings {
        all.push(Diagnostic {
            severity: Severity::Warning,
            file: w.file,
            pos: w.line.zip(w.column).map(|(line, col)| Pos { line, col }),
            message: w.message,
        });
    }
    all
}
