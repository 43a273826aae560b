//! The audit log: every render of an auditable prompt, each record chained to the one
//! before by its hash, and the walk that finds where the chain breaks.

use std::time::SystemTime;

use rusqlite::{OptionalExtension, params};
use serde::Serialize;
use serde_json::{Value as Json, json};

use super::super::sign::{canonical_json, sha256_hex};
use super::{Library, Result, head, now};

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
    /// The used version's content hash; `None` in records written before uses carried
    /// it (as are the three fields below).
    pub content_hash: Option<String>,
    /// What the prompt was used for: `render`, `run` or `chain`.
    pub purpose: Option<String>,
    /// Whether the use succeeded, when the user of the prompt knows.
    pub success: Option<bool>,
    /// The assertions and evals that passed, of those checked.
    pub checks: Option<Checks>,
    pub prev_hash: String,
    pub hash: String,
}

/// How many checks (assertions and evals) of a use passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Checks {
    pub passed: u64,
    pub total: u64,
}

/// One use of a library prompt, as [`Library::record_use`] appends it to the audit
/// log. The variables are recorded as given: the caller redacts sensitive values.
#[derive(Debug, Clone)]
pub struct PromptUse<'a> {
    pub who: &'a str,
    pub prompt_id: &'a str,
    pub version: u64,
    pub content_hash: String,
    pub variables: Json,
    /// `render`, `run` or `chain`.
    pub purpose: &'a str,
    pub success: Option<bool>,
    /// `(passed, total)` assertions and evals of a run or chain step.
    pub checks: Option<(u64, u64)>,
}

impl AuditRecord {
    /// The hash a record must carry: over the previous hash and its own fields, in
    /// their RFC 8785 canonical form.
    pub(super) fn expected_hash(&self) -> String {
        self.hash_over(&canonical_json(&self.body()))
    }

    /// Whether the record carries its own hash. Logs written before hashes used
    /// RFC 8785 sorted keys by UTF-8 bytes and wrote numbers as serde_json does; the
    /// two forms differ only for numbers like `2.0` or `1e21` and for rare keys, and
    /// such a record still holds when its hash matches the older form.
    fn holds(&self) -> bool {
        self.hash == self.expected_hash()
            || self.hash == self.hash_over(&sorted_keys(&self.body()).to_string())
    }

    /// The fields the hash covers. A record with a purpose (every record written since
    /// uses carry one) covers the four fields of a use as well, present or not, so
    /// clearing one of them is an edit like any other.
    fn body(&self) -> Json {
        let mut body = json!({
            "seq": self.seq,
            "at": self.at,
            "who": self.who,
            "prompt_id": self.prompt_id,
            "version": self.version,
            "variables": self.variables,
        });
        if let (Some(purpose), Json::Object(fields)) = (&self.purpose, &mut body) {
            fields.insert("content_hash".into(), json!(self.content_hash));
            fields.insert("purpose".into(), json!(purpose));
            fields.insert("success".into(), json!(self.success));
            fields.insert(
                "checks".into(),
                json!(self.checks.map(|c| [c.passed, c.total])),
            );
        }
        body
    }

    fn hash_over(&self, canonical_body: &str) -> String {
        sha256_hex(format!("{}\n{}", self.prev_hash, canonical_body).as_bytes())
    }
}

/// `value` with every object's keys in UTF-8 byte order: the canonical form that audit
/// hashes used before RFC 8785 (serde_json keeps insertion order, so sorting the map
/// is enough).
fn sorted_keys(value: &Json) -> Json {
    match value {
        Json::Object(map) => {
            let mut entries: Vec<(&String, &Json)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Json::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), sorted_keys(v)))
                    .collect(),
            )
        }
        Json::Array(items) => Json::Array(items.iter().map(sorted_keys).collect()),
        leaf => leaf.clone(),
    }
}

/// Where the audit chain breaks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditBreak {
    pub seq: u64,
    pub reason: String,
}

/// What `verify_audit` found when the chain holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditVerified {
    /// How many records hold.
    pub records: u64,
    /// Whether the head carries a signature by the library's key (that holds).
    pub head_signed: bool,
}

/// The columns [`audit_record`] reads.
const AUDIT_COLUMNS: &str = "seq, at, who, prompt_id, version, variables, prev_hash, hash,
    content_hash, purpose, success, checks_passed, checks_total";

/// A row of [`AUDIT_COLUMNS`].
fn audit_record(row: &rusqlite::Row<'_>) -> rusqlite::Result<AuditRecord> {
    let variables: String = row.get(5)?;
    let checks = match (row.get::<_, Option<u64>>(11)?, row.get(12)?) {
        (Some(passed), Some(total)) => Some(Checks { passed, total }),
        _ => None,
    };
    Ok(AuditRecord {
        seq: row.get(0)?,
        at: row.get(1)?,
        who: row.get(2)?,
        prompt_id: row.get(3)?,
        version: row.get(4)?,
        variables: serde_json::from_str(&variables).unwrap_or(Json::String(variables)),
        prev_hash: row.get(6)?,
        hash: row.get(7)?,
        content_hash: row.get(8)?,
        purpose: row.get(9)?,
        success: row.get(10)?,
        checks,
    })
}

impl Library {
    /// Appends a render to the audit log: [`Library::record_use`] with the purpose
    /// `render` and the version's content hash.
    pub fn record_render(
        &mut self,
        who: &str,
        prompt_id: &str,
        version: u64,
        variables: Json,
    ) -> Result<AuditRecord> {
        let content_hash: Option<String> = self
            .conn
            .query_row(
                "SELECT content_hash FROM versions WHERE prompt_id = ?1 AND version = ?2",
                params![prompt_id, version],
                |row| row.get(0),
            )
            .optional()?;
        self.record_use(&PromptUse {
            who,
            prompt_id,
            version,
            content_hash: content_hash.unwrap_or_default(),
            variables,
            purpose: "render",
            success: None,
            checks: None,
        })
    }

    /// Appends a use of a prompt to the audit log, chained to the record before it,
    /// and signs the new head with the library's key (made on first use).
    pub fn record_use(&mut self, entry: &PromptUse<'_>) -> Result<AuditRecord> {
        let db = self.path.clone();
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
            who: entry.who.to_string(),
            prompt_id: entry.prompt_id.to_string(),
            version: entry.version,
            variables: entry.variables.clone(),
            content_hash: Some(entry.content_hash.clone()),
            purpose: Some(entry.purpose.to_string()),
            success: entry.success,
            checks: entry.checks.map(|(passed, total)| Checks { passed, total }),
            prev_hash,
            hash: String::new(),
        };
        record.hash = record.expected_hash();
        tx.execute(
            "INSERT INTO audit (seq, at, who, prompt_id, version, variables, prev_hash, hash,
                 content_hash, purpose, success, checks_passed, checks_total)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            params![
                record.seq,
                record.at,
                record.who,
                record.prompt_id,
                record.version,
                record.variables.to_string(),
                record.prev_hash,
                record.hash,
                record.content_hash,
                record.purpose,
                record.success,
                record.checks.map(|c| c.passed),
                record.checks.map(|c| c.total),
            ],
        )?;
        // The key is made (or read) while this writer holds the lock: two first
        // writers never make two keys.
        let key = head::key(&db)?;
        let signature = key.sign(head::signed_bytes(record.seq, &record.hash).as_bytes());
        tx.execute(
            "INSERT INTO audit_head (one, seq, hash, signature, signer) VALUES (1, ?1, ?2, ?3, ?4)
             ON CONFLICT (one) DO UPDATE SET seq = excluded.seq, hash = excluded.hash,
                 signature = excluded.signature, signer = excluded.signer",
            params![record.seq, record.hash, signature, key.did()],
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
        let mut statement = self
            .conn
            .prepare(&format!("SELECT {AUDIT_COLUMNS} FROM audit ORDER BY seq"))?;
        let records = statement
            .query_map([], audit_record)?
            .collect::<std::result::Result<_, _>>()?;
        Ok(records)
    }

    /// The uses recorded of one prompt (of every prompt if `None`), oldest first.
    pub(super) fn uses_of(&self, prompt_id: Option<&str>) -> Result<Vec<AuditRecord>> {
        let mut statement = self.conn.prepare(&format!(
            "SELECT {AUDIT_COLUMNS} FROM audit WHERE ?1 IS NULL OR prompt_id = ?1 ORDER BY seq"
        ))?;
        let records = statement
            .query_map([prompt_id], audit_record)?
            .collect::<std::result::Result<_, _>>()?;
        Ok(records)
    }

    /// Walks the chain: every record's hash must be its own, every link must point
    /// at the record before, numbers must not skip, and the last must be the head;
    /// then the head's signature must be the library key's over its number and hash.
    /// Returns how many records hold, or the first break.
    pub fn verify_audit(&self) -> Result<std::result::Result<AuditVerified, AuditBreak>> {
        let records = self.audit_records()?;
        let head = head::read(&self.conn)?;
        let stored = head.as_ref().map(|h| (h.seq, h.hash.clone()));
        let records = match check_chain(&records, stored.as_ref()) {
            Ok(count) => count,
            Err(broken) => return Ok(Err(broken)),
        };
        Ok(
            head::check(head.as_ref(), &head::key_path(&self.path)).map(|head_signed| {
                AuditVerified {
                    records,
                    head_signed,
                }
            }),
        )
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
        if !record.holds() {
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
        assert_eq!(lib.verify_audit().expect("reads").map(|v| v.records), Ok(3));
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

    #[test]
    fn records_hashed_before_rfc_8785_still_hold_and_edits_to_them_are_found() {
        // A record as the older form hashed it, with a number the two forms write
        // differently (`2.0` against `2`) and keys in insertion order.
        let mut old = AuditRecord {
            seq: 1,
            at: "2025-06-01T12:00:00.000Z".into(),
            who: "me".into(),
            prompt_id: "p".into(),
            version: 1,
            variables: json!({"z": 2.0, "a": "x"}),
            content_hash: None,
            purpose: None,
            success: None,
            checks: None,
            prev_hash: GENESIS.into(),
            hash: String::new(),
        };
        let legacy = r#"{"at":"2025-06-01T12:00:00.000Z","prompt_id":"p","seq":1,"variables":{"a":"x","z":2.0},"version":1,"who":"me"}"#;
        assert_eq!(sorted_keys(&old.body()).to_string(), legacy);
        old.hash = sha256_hex(format!("{GENESIS}\n{legacy}").as_bytes());
        assert_ne!(old.hash, old.expected_hash(), "the forms must differ here");
        let head = (1, old.hash.clone());
        assert_eq!(check_chain(std::slice::from_ref(&old), Some(&head)), Ok(1));
        old.variables = json!({"z": 3.0, "a": "x"});
        assert_eq!(check_chain(&[old], Some(&head)).map_err(|b| b.seq), Err(1));
    }
}
