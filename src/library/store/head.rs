//! The audit chain's head, signed. Each write of the audit log signs the head's
//! number and hash with the library's own ed25519 key, kept beside the database
//! (`<db>.key`, mode 0600) and not in it: someone who edits the database and
//! recomputes every hash of the chain cannot sign the new head.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension};

use super::super::sign::{KeyPair, SignError, read_key_file, verify, write_key_files};
use super::audit::AuditBreak;
use super::{LibraryError, OpenFailure, Result};

/// The head as stored: the last record's number and hash, and its signature with the
/// did:key that made it (none in libraries written before heads were signed).
pub(super) struct Head {
    pub seq: u64,
    pub hash: String,
    pub signature: Option<String>,
    pub signer: Option<String>,
}

/// Where the key of the library at `db` is: beside it, named `<db>.key`.
pub(super) fn key_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".key");
    PathBuf::from(name)
}

/// The bytes a head's signature covers.
pub(super) fn signed_bytes(seq: u64, hash: &str) -> String {
    format!("promptexec audit head\n{seq}\n{hash}")
}

/// The key of the library at `db`, made (with its `.pub` beside it) when there is
/// none yet.
pub(super) fn key(db: &Path) -> Result<KeyPair> {
    let path = &key_path(db);
    let failed = |source| LibraryError::Open {
        path: db.to_path_buf(),
        source: OpenFailure::Key {
            path: path.clone(),
            source,
        },
    };
    match read_key_file(path) {
        Ok(key) => Ok(key),
        Err(SignError::KeyMissing { .. }) => {
            let key = KeyPair::generate().map_err(failed)?;
            write_key_files(path, &key).map_err(failed)?;
            Ok(key)
        }
        Err(e) => Err(failed(e)),
    }
}

pub(super) fn read(conn: &Connection) -> Result<Option<Head>> {
    Ok(conn
        .query_row(
            "SELECT seq, hash, signature, signer FROM audit_head WHERE one = 1",
            [],
            |row| {
                Ok(Head {
                    seq: row.get(0)?,
                    hash: row.get(1)?,
                    signature: row.get(2)?,
                    signer: row.get(3)?,
                })
            },
        )
        .optional()?)
}

/// Checks the head's signature against the key at `key_path`: whether the head is
/// signed (an empty log has nothing to sign), or why the signature fails. A head
/// without a signature passes, unsigned, only while the library has no key: once it
/// has one every head is signed, so a missing signature was removed.
pub(super) fn check(head: Option<&Head>, key_path: &Path) -> std::result::Result<bool, AuditBreak> {
    let Some(head) = head else {
        return Ok(false);
    };
    let broken = |reason: String| AuditBreak {
        seq: head.seq,
        reason,
    };
    let (Some(signature), Some(signer)) = (&head.signature, &head.signer) else {
        return if key_path.exists() {
            Err(broken(format!(
                "the head signature is missing, yet the library has a key ({}): it was removed",
                key_path.display()
            )))
        } else {
            Ok(false)
        };
    };
    let key = read_key_file(key_path).map_err(|e| match e {
        SignError::KeyMissing { .. } => broken(format!(
            "the head is signed but the library's key {} is missing: the head signature cannot be checked",
            key_path.display()
        )),
        other => broken(format!(
            "the head signature cannot be checked: {}",
            with_sources(&other)
        )),
    })?;
    if key.did() != *signer {
        return Err(broken(format!(
            "the head signature was made by {signer}, not by the library's key {}",
            key.did()
        )));
    }
    verify(
        signer,
        signed_bytes(head.seq, &head.hash).as_bytes(),
        signature,
    )
    .map_err(|_| {
        broken("the head signature does not match the head: the chain was recomputed".into())
    })?;
    Ok(true)
}

/// An error and the errors beneath it, as one line.
fn with_sources(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::audit::PromptUse;
    use super::super::tests::library;
    use super::*;

    fn used(lib: &mut super::super::Library, n: u64) {
        lib.record_use(&PromptUse {
            who: "me",
            prompt_id: "p",
            version: 1,
            content_hash: "sha256:00".into(),
            variables: json!({"n": n}),
            purpose: "run",
            success: Some(n.is_multiple_of(2)),
            checks: Some((n, 3)),
        })
        .expect("recorded");
    }

    fn reason(lib: &super::super::Library) -> String {
        lib.verify_audit()
            .expect("reads")
            .expect_err("a break")
            .reason
    }

    #[test]
    fn the_first_use_makes_a_private_key_beside_the_database_and_signs_the_head() {
        let (dir, mut lib) = library();
        let key = dir.path().join("lib.db.key");
        assert!(!key.exists(), "no key before the first use");
        used(&mut lib, 1);
        used(&mut lib, 2);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).expect("a key").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let held = lib.verify_audit().expect("reads").expect("holds");
        assert_eq!((held.records, held.head_signed), (2, true));
        let records = lib.audit(None, None).expect("records");
        assert_eq!(records[1].purpose.as_deref(), Some("run"));
        assert_eq!(records[1].success, Some(true));
        assert_eq!(
            records[1].checks,
            Some(super::super::Checks {
                passed: 2,
                total: 3
            })
        );
    }

    #[test]
    fn a_recomputed_chain_fails_on_the_head_signature() {
        let (_dir, mut lib) = library();
        for n in 0..3 {
            used(&mut lib, n);
        }
        // Edit a record, then recompute every hash from it on and move the head.
        let mut records = lib.audit(None, None).expect("records");
        records[1].variables = json!({"n": 9});
        let mut prev = records[0].hash.clone();
        for record in &mut records[1..] {
            record.prev_hash = prev;
            record.hash = record.expected_hash();
            prev = record.hash.clone();
            lib.conn
                .execute(
                    "UPDATE audit SET variables = ?2, prev_hash = ?3, hash = ?4 WHERE seq = ?1",
                    rusqlite::params![
                        record.seq,
                        record.variables.to_string(),
                        record.prev_hash,
                        record.hash
                    ],
                )
                .expect("edits");
        }
        lib.conn
            .execute("UPDATE audit_head SET hash = ?1", [&prev])
            .expect("moves the head");
        assert_eq!(
            reason(&lib),
            "the head signature does not match the head: the chain was recomputed"
        );
    }

    #[test]
    fn a_removed_signature_or_key_is_reported() {
        let (dir, mut lib) = library();
        used(&mut lib, 1);
        let key = dir.path().join("lib.db.key");
        let saved = std::fs::read(&key).expect("a key");
        std::fs::remove_file(&key).expect("removes the key");
        assert!(reason(&lib).contains("the head is signed but the library's key"));
        std::fs::write(&key, KeyPair::generate().expect("key").seed_hex()).expect("another key");
        assert!(reason(&lib).contains("not by the library's key"));
        std::fs::write(&key, &saved).expect("the key again");
        lib.conn
            .execute("UPDATE audit_head SET signature = NULL, signer = NULL", [])
            .expect("edits");
        assert!(
            reason(&lib).starts_with("the head signature is missing, yet the library has a key")
        );
    }

    #[test]
    fn an_unsigned_head_of_an_older_library_passes_until_the_next_write_signs_it() {
        let (dir, mut lib) = library();
        used(&mut lib, 1);
        std::fs::remove_file(dir.path().join("lib.db.key")).expect("no key yet");
        std::fs::remove_file(dir.path().join("lib.db.key.pub")).expect("no key yet");
        lib.conn
            .execute("UPDATE audit_head SET signature = NULL, signer = NULL", [])
            .expect("as written before heads were signed");
        let held = lib.verify_audit().expect("reads").expect("holds");
        assert_eq!((held.records, held.head_signed), (1, false));
        used(&mut lib, 2);
        let held = lib.verify_audit().expect("reads").expect("holds");
        assert_eq!((held.records, held.head_signed), (2, true));
    }
}
