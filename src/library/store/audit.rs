//! The audit log: every render of an auditable prompt, each record chained to the one
//! before by its hash, and the walk that finds where the chain breaks.

use std::time::SystemTime;

use rusqlite::{OptionalExtension, params};
use serde::Serialize;
use serde_json::{Value as Json, json};

use super::super::sign::{canonical_json, sha256_hex};
use super::{Library, Result, now};

/// The hash an empty audit chain starts from.
const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditRecord {
    pub seq: u64,
    pub at: String,
    pub who: String,
    pub prompt_id: String,
    pub version: u64,
    pub variables: Json,
    pub prev_hash: String,
    pub hash: String,
}

impl AuditRecord {
    /// The hash a record must carry: over the previous hash and its own fields.
    fn expected_hash(&self) -> String {
        let body = json!({
            "seq": self.seq,
            "at": self.at,
            "who": self.who,
            "prompt_id": self.prompt_id,
            "version": self.version,
            "variables": self.variables,
        });
        sha256_hex(format!("{}\n{}", self.prev_hash, canonical_json(&body)).as_bytes())
    }
}

/// Where the audit chain breaks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditBreak {
    pub seq: u64,
    pub reason: String,
}

impl Library {
    /// Appends a render to the audit log, chained to the record before it.
    pub fn record_render(
        &mut self,
        who: &str,
        prompt_id: &str,
        version: u64,
        variables: Json,
    ) -> Result<AuditRecord> {
        let tx = self.write()?;
        let (seq, prev_hash) = tx
            .query_row(
                "SELECT seq, hash FROM audit_head WHERE one = 1",
                [],
                |row| Ok((row.get::<_, u64>(0)?, row.get::<_, String>(1)?)),
            )
            .optional()?
            .unwrap_or((0, GENESIS.to_string()));
        let mut record = AuditRecord {
            seq: seq + 1,
            at: now(),
            who: who.to_string(),
            prompt_id: prompt_id.to_string(),
            version,
            variables,
            prev_hash,
            hash: String::new(),
        };
        record.hash = record.expected_hash();
        tx.execute(
            "INSERT INTO audit (seq, at, who, prompt_id, version, variables, prev_hash, hash)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                record.seq,
                record.at,
                record.who,
                record.prompt_id,
                record.version,
                record.variables.to_string(),
                record.prev_hash,
                record.hash
            ],
        )?;
        tx.execute(
            "INSERT INTO audit_head (one, seq, hash) VALUES (1, ?1, ?2)
             ON CONFLICT (one) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
            params![record.seq, record.hash],
        )?;
        tx.commit()?;
        Ok(record)
    }

    /// Audit records, oldest first: of one prompt, and at or after `since`.
    pub fn audit(
        &self,
        prompt_id: Option<&str>,
        since: Option<SystemTime>,
    ) -> Result<Vec<AuditRecord>> {
        let at_or_after = |r: &AuditRecord| {
            since.is_none_or(|s| humantime::parse_rfc3339_weak(&r.at).is_ok_and(|at| at >= s))
        };
        Ok(self
            .audit_records()?
            .into_iter()
            .filter(|r| prompt_id.is_none_or(|id| r.prompt_id == id))
            .filter(at_or_after)
            .collect())
    }

    fn audit_records(&self) -> Result<Vec<AuditRecord>> {
        let mut statement = self.conn.prepare(
            "SELECT seq, at, who, prompt_id, version, variables, prev_hash, hash FROM audit ORDER BY seq",
        )?;
        let records = statement
            .query_map([], |row| {
                let variables: String = row.get(5)?;
                Ok(AuditRecord {
                    seq: row.get(0)?,
                    at: row.get(1)?,
                    who: row.get(2)?,
                    prompt_id: row.get(3)?,
                    version: row.get(4)?,
                    variables: serde_json::from_str(&variables).unwrap_or(Json::String(variables)),
                    prev_hash: row.get(6)?,
                    hash: row.get(7)?,
                })
            })?
            .collect::<std::result::Result<_, _>>()?;
        Ok(records)
    }

    /// Walks the chain: every record's hash must be its own, every link must point
    /// at the record before, numbers must not skip, and the last must be the head.
    /// Returns how many records hold, or the first break.
    pub fn verify_audit(&self) -> Result<std::result::Result<u64, AuditBreak>> {
        let records = self.audit_records()?;
        let head: Option<(u64, String)> = self
            .conn
            .query_row(
                "SELECT seq, hash FROM audit_head WHERE one = 1",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        Ok(check_chain(&records, head.as_ref()))
    }
}

/// The pure walk behind [`Library::verify_audit`].
fn check_chain(
    records: &[AuditRecord],
    head: Option<&(u64, String)>,
) -> std::result::Result<u64, AuditBreak> {
    let mut prev = (0, GENESIS.to_string());
    for record in records {
        let broken = |reason: String| AuditBreak {
            seq: record.seq,
            reason,
        };
        if record.seq != prev.0 + 1 {
            return Err(broken(format!(
                "record {} follows record {}: records are missing",
                record.seq, prev.0
            )));
        }
        if record.prev_hash != prev.1 {
            return Err(broken(
                "its link to the record before does not match".into(),
            ));
        }
        if record.hash != record.expected_hash() {
            return Err(broken(
                "its content does not match its hash: it was edited".into(),
            ));
        }
        prev = (record.seq, record.hash.clone());
    }
    match head {
        Some((seq, hash)) if (*seq, hash) != (prev.0, &prev.1) => Err(AuditBreak {
            seq: *seq,
            reason: format!(
                "the log ends at record {} but record {seq} was written: records at the end were removed",
                prev.0
            ),
        }),
        None if prev.0 > 0 => Err(AuditBreak {
            seq: prev.0,
            reason: "the chain's head is missing".into(),
        }),
        _ => Ok(prev.0),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::library;
    use super::*;

    #[test]
    fn the_audit_chain_detects_edits_and_deletions() {
        let (_dir, mut lib) = library();
        for i in 0..3 {
            lib.record_render("me", "p", 1, json!({"n": i}))
                .expect("record");
        }
        assert_eq!(lib.verify_audit().expect("reads"), Ok(3));
        let mut records = lib.audit_records().expect("records");
        let head = (3, records[2].hash.clone());
        records[1].variables = json!({"n": 9});
        assert_eq!(
            check_chain(&records, Some(&head)).map_err(|b| b.seq),
            Err(2)
        );
        let mut records = lib.audit_records().expect("records");
        records.remove(1);
        assert_eq!(
            check_chain(&records, Some(&head)).map_err(|b| b.seq),
            Err(3)
        );
        let mut records = lib.audit_records().expect("records");
        records.pop();
        assert!(check_chain(&records, Some(&head)).is_err());
    }
}
