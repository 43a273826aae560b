//! The prompt library on SQLite: every change a new version, locks, ratings, and a
//! hash-chained audit log. Writes begin immediately (one writer at a time, others
//! wait on the busy timeout) so concurrent processes never interleave a change.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};
use serde::Serialize;
use serde_json::{Value as Json, json};

use super::sign::{canonical_json, content_hash, sha256_hex};

/// How long a writer waits for another to finish.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);
/// The hash an empty audit chain starts from.
const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Each entry upgrades the schema by one version (`PRAGMA user_version`).
const MIGRATIONS: &[&str] = &[r#"
    CREATE TABLE prompts (
        id TEXT PRIMARY KEY,
        locked INTEGER NOT NULL DEFAULT 0,
        removed INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL
    );
    CREATE TABLE versions (
        prompt_id TEXT NOT NULL REFERENCES prompts(id),
        version INTEGER NOT NULL,
        content TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        author TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (prompt_id, version)
    );
    CREATE TABLE ratings (
        id INTEGER PRIMARY KEY,
        prompt_id TEXT NOT NULL REFERENCES prompts(id),
        score REAL NOT NULL,
        comment TEXT,
        author TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE audit (
        seq INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        who TEXT NOT NULL,
        prompt_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        variables TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL
    );
    CREATE TABLE audit_head (
        one INTEGER PRIMARY KEY CHECK (one = 1),
        seq INTEGER NOT NULL,
        hash TEXT NOT NULL
    );
    CREATE TABLE seen_packets (
        digest TEXT PRIMARY KEY,
        received_at TEXT NOT NULL
    );
"#];

#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    #[error("cannot open the library at {}", path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("cannot create the library's directory {}", path.display())]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "the library was written by a newer promptexec (schema {found}, this one knows {known})"
    )]
    TooNew { found: i64, known: i64 },
    #[error("no prompt `{0}` in the library")]
    NotFound(String),
    #[error("prompt `{id}` has no version {version}")]
    NoVersion { id: String, version: u64 },
    #[error("prompt `{0}` is locked; `promptexec prompt unlock {0}` first")]
    Locked(String),
    #[error("a rating is a number from 0 to 5, found {0}")]
    BadRating(f64),
    #[error("this sync packet was received before")]
    Replayed,
    #[error("library database error")]
    Sql(#[from] rusqlite::Error),
}

type Result<T> = std::result::Result<T, LibraryError>;

/// One version of a prompt as stored, with what `list` and `show` report about it.
#[derive(Debug, Clone, Serialize)]
pub struct StoredPrompt {
    pub id: String,
    pub version: u64,
    pub latest_version: u64,
    /// The PromptKind template JSON.
    pub content: Json,
    pub content_hash: String,
    pub locked: bool,
    pub author: String,
    pub created_at: String,
    pub rating: Option<f64>,
    pub ratings: u64,
}

impl StoredPrompt {
    pub fn field(&self, key: &str) -> &str {
        self.content[key].as_str().unwrap_or_default()
    }

    pub fn tags(&self) -> Vec<String> {
        self.content["tags"]
            .as_array()
            .map(|tags| {
                tags.iter()
                    .filter_map(|t| t.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct VersionInfo {
    pub version: u64,
    pub content_hash: String,
    pub author: String,
    pub created_at: String,
}

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

pub struct Library {
    conn: Connection,
}

impl Library {
    /// The per-user default: the platform's data directory.
    pub fn default_path() -> PathBuf {
        dirs::data_dir()
            .unwrap_or_else(|| PathBuf::from("."))
            .join("promptexec")
            .join("library.db")
    }

    /// Opens (creating if needed) the library at `path` and brings its schema up to
    /// date.
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| LibraryError::CreateDir {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        let open = |source| LibraryError::Open {
            path: path.to_path_buf(),
            source,
        };
        let mut conn = Connection::open(path).map_err(open)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(open)?;
        wal(&conn).map_err(open)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(open)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(open)?;
        migrate(&mut conn)?;
        Ok(Self { conn })
    }

    fn write(&mut self) -> Result<Transaction<'_>> {
        Ok(self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?)
    }

    /// Stores `template` as a new prompt, or as the next version of an existing one.
    pub fn add(&mut self, template: &Json, author: &str) -> Result<StoredPrompt> {
        let tx = self.write()?;
        let id = template["id"].as_str().unwrap_or_default().to_string();
        let version = put_version(&tx, &id, template, author)?;
        tx.commit()?;
        self.get(&id, Some(version))
    }

    /// Stores every prompt or none.
    pub fn add_all(&mut self, prompts: &[Json], author: &str) -> Result<Vec<(String, u64)>> {
        let tx = self.write()?;
        let mut stored = Vec::new();
        for template in prompts {
            let id = template["id"].as_str().unwrap_or_default().to_string();
            let version = put_version(&tx, &id, template, author)?;
            stored.push((id, version));
        }
        tx.commit()?;
        Ok(stored)
    }

    /// Stores a prompt from a sync packet, unless the packet was seen before; both
    /// in one transaction, so a replay can never slip in between.
    pub fn receive(&mut self, digest: &str, template: &Json, author: &str) -> Result<u64> {
        let tx = self.write()?;
        let fresh = tx.execute(
            "INSERT OR IGNORE INTO seen_packets (digest, received_at) VALUES (?1, ?2)",
            params![digest, now()],
        )?;
        if fresh == 0 {
            return Err(LibraryError::Replayed);
        }
        let id = template["id"].as_str().unwrap_or_default().to_string();
        let version = put_version(&tx, &id, template, author)?;
        tx.commit()?;
        Ok(version)
    }

    /// A prompt at `version`, else at its latest.
    pub fn get(&self, id: &str, version: Option<u64>) -> Result<StoredPrompt> {
        let (locked, latest) = self
            .conn
            .query_row(
                "SELECT p.locked, MAX(v.version) FROM prompts p JOIN versions v ON v.prompt_id = p.id
                 WHERE p.id = ?1 AND p.removed = 0 GROUP BY p.id",
                [id],
                |row| Ok((row.get::<_, bool>(0)?, row.get::<_, u64>(1)?)),
            )
            .optional()?
            .ok_or_else(|| LibraryError::NotFound(id.to_string()))?;
        let version = version.unwrap_or(latest);
        let (content, content_hash, author, created_at) = self
            .conn
            .query_row(
                "SELECT content, content_hash, author, created_at FROM versions
                 WHERE prompt_id = ?1 AND version = ?2",
                params![id, version],
                |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                        row.get::<_, String>(3)?,
                    ))
                },
            )
            .optional()?
            .ok_or_else(|| LibraryError::NoVersion {
                id: id.to_string(),
                version,
            })?;
        let (rating, ratings) = self.conn.query_row(
            "SELECT AVG(score), COUNT(*) FROM ratings WHERE prompt_id = ?1",
            [id],
            |row| Ok((row.get::<_, Option<f64>>(0)?, row.get::<_, u64>(1)?)),
        )?;
        Ok(StoredPrompt {
            id: id.to_string(),
            version,
            latest_version: latest,
            content: serde_json::from_str(&content).unwrap_or(Json::Null),
            content_hash,
            locked,
            author,
            created_at,
            rating,
            ratings,
        })
    }

    /// The latest version of every prompt carrying all of `tags`, by id, read in
    /// one query.
    pub fn list(&self, tags: &[String]) -> Result<Vec<StoredPrompt>> {
        let mut statement = self.conn.prepare(
            "SELECT p.id, p.locked, v.version, v.content, v.content_hash, v.author, v.created_at,
                    (SELECT AVG(score) FROM ratings r WHERE r.prompt_id = p.id),
                    (SELECT COUNT(*) FROM ratings r WHERE r.prompt_id = p.id)
             FROM prompts p JOIN versions v ON v.prompt_id = p.id
             WHERE p.removed = 0
               AND v.version = (SELECT MAX(version) FROM versions w WHERE w.prompt_id = p.id)
             ORDER BY p.id",
        )?;
        let prompts = statement
            .query_map([], |row| {
                let content: String = row.get(3)?;
                Ok(StoredPrompt {
                    id: row.get(0)?,
                    locked: row.get(1)?,
                    version: row.get(2)?,
                    latest_version: row.get(2)?,
                    content: serde_json::from_str(&content).unwrap_or(Json::Null),
                    content_hash: row.get(4)?,
                    author: row.get(5)?,
                    created_at: row.get(6)?,
                    rating: row.get(7)?,
                    ratings: row.get(8)?,
                })
            })?
            .collect::<std::result::Result<Vec<_>, _>>()?;
        Ok(prompts
            .into_iter()
            .filter(|p| {
                let have = p.tags();
                tags.iter()
                    .all(|t| have.iter().any(|h| h.eq_ignore_ascii_case(t)))
            })
            .collect())
    }

    /// Every version of a prompt, oldest first.
    pub fn history(&self, id: &str) -> Result<Vec<VersionInfo>> {
        self.get(id, None)?;
        let mut statement = self.conn.prepare(
            "SELECT version, content_hash, author, created_at FROM versions
             WHERE prompt_id = ?1 ORDER BY version",
        )?;
        let versions = statement
            .query_map([id], |row| {
                Ok(VersionInfo {
                    version: row.get(0)?,
                    content_hash: row.get(1)?,
                    author: row.get(2)?,
                    created_at: row.get(3)?,
                })
            })?
            .collect::<std::result::Result<_, _>>()?;
        Ok(versions)
    }

    pub fn set_locked(&mut self, id: &str, locked: bool) -> Result<()> {
        let tx = self.write()?;
        let changed = tx.execute(
            "UPDATE prompts SET locked = ?2 WHERE id = ?1 AND removed = 0",
            params![id, locked],
        )?;
        if changed == 0 {
            return Err(LibraryError::NotFound(id.to_string()));
        }
        tx.commit()?;
        Ok(())
    }

    /// Takes a prompt out of the library; its versions stay on record.
    pub fn remove(&mut self, id: &str) -> Result<()> {
        let tx = self.write()?;
        refuse_locked(&tx, id)?;
        tx.execute("UPDATE prompts SET removed = 1 WHERE id = ?1", [id])?;
        tx.commit()?;
        Ok(())
    }

    pub fn rate(
        &mut self,
        id: &str,
        score: f64,
        comment: Option<&str>,
        author: &str,
    ) -> Result<()> {
        if !(0.0..=5.0).contains(&score) {
            return Err(LibraryError::BadRating(score));
        }
        let tx = self.write()?;
        is_locked(&tx, id)?;
        tx.execute(
            "INSERT INTO ratings (prompt_id, score, comment, author, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![id, score, comment, author, now()],
        )?;
        tx.commit()?;
        Ok(())
    }

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

/// Switches the file to write-ahead logging. SQLite answers "busy" at once, without
/// the busy handler, when another connection holds the file while this one asks, as
/// happens when several processes open a new library together: ask again until the
/// busy timeout.
fn wal(conn: &Connection) -> rusqlite::Result<()> {
    let started = std::time::Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |row| {
            row.get::<_, String>(0)
        }) {
            Ok(_) => return Ok(()),
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy
                    && started.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            Err(e) => return Err(e),
        }
    }
}

fn migrate(conn: &mut Connection) -> Result<()> {
    let known = MIGRATIONS.len() as i64;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let found: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if found > known {
        return Err(LibraryError::TooNew { found, known });
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", i as i64 + 1)?;
    }
    tx.commit()?;
    Ok(())
}

fn is_locked(tx: &Transaction<'_>, id: &str) -> Result<bool> {
    tx.query_row(
        "SELECT locked FROM prompts WHERE id = ?1 AND removed = 0",
        [id],
        |row| row.get::<_, bool>(0),
    )
    .optional()?
    .ok_or_else(|| LibraryError::NotFound(id.to_string()))
}

fn refuse_locked(tx: &Transaction<'_>, id: &str) -> Result<()> {
    if is_locked(tx, id)? {
        return Err(LibraryError::Locked(id.to_string()));
    }
    Ok(())
}

/// Writes the next version of `id` (creating the prompt, or bringing a removed one
/// back); a locked prompt refuses.
fn put_version(tx: &Transaction<'_>, id: &str, template: &Json, author: &str) -> Result<u64> {
    let state: Option<(bool, bool)> = tx
        .query_row(
            "SELECT locked, removed FROM prompts WHERE id = ?1",
            [id],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()?;
    match state {
        Some((true, false)) => return Err(LibraryError::Locked(id.to_string())),
        Some((_, true)) => {
            tx.execute(
                "UPDATE prompts SET removed = 0, locked = 0 WHERE id = ?1",
                [id],
            )?;
        }
        Some(_) => {}
        None => {
            tx.execute(
                "INSERT INTO prompts (id, created_at) VALUES (?1, ?2)",
                params![id, now()],
            )?;
        }
    }
    let version: u64 = tx.query_row(
        "SELECT COALESCE(MAX(version), 0) + 1 FROM versions WHERE prompt_id = ?1",
        [id],
        |row| row.get(0),
    )?;
    tx.execute(
        "INSERT INTO versions (prompt_id, version, content, content_hash, author, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            id,
            version,
            template.to_string(),
            content_hash(template),
            author,
            now()
        ],
    )?;
    Ok(version)
}

fn now() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library() -> (tempfile::TempDir, Library) {
        let dir = tempfile::tempdir().expect("temp dir");
        let library = Library::open(&dir.path().join("lib.db")).expect("opens");
        (dir, library)
    }

    fn template(id: &str, text: &str) -> Json {
        json!({"id": id, "title": "T", "template": text, "slots": [], "tags": ["a"]})
    }

    #[test]
    fn every_change_is_a_new_version_and_old_ones_stay_readable() {
        let (_dir, mut lib) = library();
        assert_eq!(
            lib.add(&template("p", "one"), "me").expect("add").version,
            1
        );
        assert_eq!(
            lib.add(&template("p", "two"), "me").expect("add").version,
            2
        );
        assert_eq!(
            lib.get("p", Some(1)).expect("v1").content["template"],
            "one"
        );
        assert_eq!(
            lib.get("p", None).expect("latest").content["template"],
            "two"
        );
        assert_eq!(lib.history("p").expect("history").len(), 2);
    }

    #[test]
    fn a_locked_prompt_refuses_changes_and_removal() {
        let (_dir, mut lib) = library();
        lib.add(&template("p", "one"), "me").expect("add");
        lib.set_locked("p", true).expect("lock");
        assert!(matches!(
            lib.add(&template("p", "x"), "me"),
            Err(LibraryError::Locked(_))
        ));
        assert!(matches!(lib.remove("p"), Err(LibraryError::Locked(_))));
        lib.set_locked("p", false).expect("unlock");
        lib.remove("p").expect("removed");
        assert!(matches!(lib.get("p", None), Err(LibraryError::NotFound(_))));
    }

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

    #[test]
    fn a_replayed_packet_is_refused() {
        let (_dir, mut lib) = library();
        lib.receive("d1", &template("p", "x"), "src")
            .expect("first");
        assert!(matches!(
            lib.receive("d1", &template("p", "x"), "src"),
            Err(LibraryError::Replayed)
        ));
    }
}
