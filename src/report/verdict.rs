//! What a suite's assertions came to, as every report reads it: each assertion as
//! planned ([`Check`]), its verdict over the trials, and the turns of a scenario
//! file that were not played. Plain data; the suite makes it.

use serde::{Deserialize, Serialize};

use crate::doc::Pos;

/// One assertion as planned: the eval that checks it, and what a report says of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Check {
    /// The eval id its results carry.
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub message: Option<String>,
    /// The played turn it judges (from 1); `None`: the whole conversation, or a
    /// turn that is not played.
    pub turn: Option<u32>,
    pub pass_threshold: f64,
    /// Where it stands, as reports name it: `turn 2`, `conversation`, or the
    /// file's turn it is written under when that turn is not played.
    #[serde(default)]
    pub place: String,
    /// Why it is not judged: its turn is not played, or its type needs what
    /// promptexec does not run. Such a check has no eval and is reported skipped.
    #[serde(skip)]
    pub not_played: Option<String>,
    #[serde(skip)]
    pub pos: Pos,
}

crate::wire_enum! {
    /// What an assertion came to over the trials.
    pub(crate) enum Outcome {
        Passed = "passed",
        Failed = "failed",
        /// It could not be judged in some trial (an eval that failed to score).
        Error = "error",
        /// It was not judged at all: its turn is not played, or its type needs what
        /// promptexec does not run. Its scenario is partial, never passed.
        Skipped = "skipped",
    }
}

/// One assertion over every trial.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Verdict {
    #[serde(flatten)]
    pub check: Check,
    pub outcome: Outcome,
    /// Trials it passed in (an assertion whose precondition did not hold passes).
    pub passes: u32,
    pub trials: u32,
    /// Why it failed in the first trial it did not pass; why it was skipped when it
    /// was skipped in every trial, or why it is not played.
    pub detail: Option<String>,
    /// Skipped in every trial (its precondition did not hold), or not played.
    pub skipped: bool,
}

/// A turn of the scenario file that is not played, as reports name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnplayedTurn {
    /// Its place in `spec.turns`, from 1.
    pub index: u32,
    pub role: String,
    /// Why it is not played.
    pub reason: String,
    /// Whether assertions are written under it (each is then reported skipped; a
    /// turn with none is reported on its own).
    pub asserted: bool,
}

impl UnplayedTurn {
    /// Where it is, as reports name it.
    pub(crate) fn place(&self) -> String {
        format!("turn {} of the file (`{}`)", self.index, self.role)
    }
}
