//! The reports of a suite's shards folded into the one record the whole suite
//! would have given on one machine, after checking that they are every shard of one
//! suite, each once, and that no scenario was played twice.

use std::collections::BTreeMap;

use super::{Exit, SuiteRecord, worse};

/// Why shard reports do not make one suite.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum MergeError {
    #[error("no report to merge")]
    Nothing,
    #[error("{0} has no shard manifest (it was not written by `run PACK` of this promptexec)")]
    NoManifest(String),
    #[error("{0} is a whole suite's report, not a shard's (it was run without --shard)")]
    NotAShard(String),
    #[error(
        "{file} is from another suite than {first} (their manifest.suite differs: other scenario files, or another --filter)"
    )]
    OtherSuite { file: String, first: String },
    #[error("{file} is shard {shard}, but {first} is one of {count}")]
    OtherCount {
        file: String,
        shard: String,
        first: String,
        count: usize,
    },
    #[error("shard {shard} is given twice: {first} and {again}")]
    Twice {
        shard: String,
        first: String,
        again: String,
    },
    #[error("missing shard(s) {0}: every shard of the suite must be given")]
    Missing(String),
    #[error("scenario `{id}` is in both {first} and {again}")]
    Overlap {
        id: String,
        first: String,
        again: String,
    },
    #[error(
        "{file} ran with other extensions, prompts or providers than {first} (fingerprint part `{part}` differs)"
    )]
    OtherRun {
        file: String,
        first: String,
        part: String,
    },
}

/// One suite's record from the records of all its shards, each named as the
/// errors should name it: scenarios in id order, as an unsharded run reports them,
/// the exit code the most serious of the shards', the time the longest shard's.
pub(crate) fn merge_shards(shards: Vec<(String, SuiteRecord)>) -> Result<SuiteRecord, MergeError> {
    let mut slots: BTreeMap<usize, String> = BTreeMap::new();
    let mut owner: BTreeMap<String, String> = BTreeMap::new();
    let (first_name, first) = shards.first().ok_or(MergeError::Nothing)?;
    let count = first
        .shard
        .map(|s| s.count)
        .ok_or_else(|| MergeError::NotAShard(first_name.clone()))?;
    for (name, record) in &shards {
        if record.identity.is_empty() {
            return Err(MergeError::NoManifest(name.clone()));
        }
        let shard = record
            .shard
            .ok_or_else(|| MergeError::NotAShard(name.clone()))?;
        if record.identity != first.identity {
            return Err(MergeError::OtherSuite {
                file: name.clone(),
                first: first_name.clone(),
            });
        }
        if shard.count != count {
            return Err(MergeError::OtherCount {
                file: name.clone(),
                shard: shard.to_string(),
                first: first_name.clone(),
                count,
            });
        }
        if let Some(part) = differing_part(&first.fingerprint, &record.fingerprint) {
            return Err(MergeError::OtherRun {
                file: name.clone(),
                first: first_name.clone(),
                part,
            });
        }
        if let Some(earlier) = slots.insert(shard.index, name.clone()) {
            return Err(MergeError::Twice {
                shard: shard.to_string(),
                first: earlier,
                again: name.clone(),
            });
        }
        let ids = record.scenarios.iter().map(|s| &s.id);
        for id in ids.chain(&record.not_started) {
            if let Some(earlier) = owner.insert(id.clone(), name.clone()) {
                return Err(MergeError::Overlap {
                    id: id.clone(),
                    first: earlier,
                    again: name.clone(),
                });
            }
        }
    }
    let missing: Vec<String> = (1..=count)
        .filter(|k| !slots.contains_key(k))
        .map(|k| format!("{k}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(MergeError::Missing(missing.join(", ")));
    }
    let mut records = shards.into_iter().map(|(_, record)| record);
    let first = records.next().ok_or(MergeError::Nothing)?;
    Ok(fold(first, records))
}

/// The first fingerprint part two runs disagree on.
fn differing_part(a: &BTreeMap<String, String>, b: &BTreeMap<String, String>) -> Option<String> {
    a.keys()
        .chain(b.keys())
        .find(|key| a.get(*key) != b.get(*key))
        .cloned()
}

/// Checked shards as one record.
fn fold(first: SuiteRecord, shards: impl Iterator<Item = SuiteRecord>) -> SuiteRecord {
    let mut whole = first;
    whole.shard = None;
    let mut exit = Exit::from_code(whole.exit_code);
    for shard in shards {
        whole.scenarios.extend(shard.scenarios);
        whole.not_started.extend(shard.not_started);
        whole.duration_ms = whole.duration_ms.max(shard.duration_ms);
        exit = worse(exit, Exit::from_code(shard.exit_code));
        for warning in shard.warnings.iter() {
            if !whole.warnings.iter().any(|w| w == warning) {
                whole.warnings.push(warning.clone());
            }
        }
    }
    whole
        .scenarios
        .sort_by(|a, b| a.id.cmp(&b.id).then_with(|| a.file.cmp(&b.file)));
    whole.not_started.sort();
    whole.exit_code = exit.code();
    whole
}
