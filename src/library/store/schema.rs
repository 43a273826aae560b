//! The schema: each migration upgrades a library file by one version, in place, and
//! the file is switched to write-ahead logging so readers never wait on a writer.

use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior};

use super::{LibraryError, Result};

/// How long a writer waits for another to finish.
pub(super) const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

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

/// Switches the file to write-ahead logging. SQLite answers "busy" at once, without
/// the busy handler, when another connection holds the file while this one asks, as
/// happens when several processes open a new library together: ask again until the
/// busy timeout.
pub(super) fn wal(conn: &Connection) -> rusqlite::Result<()> {
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

pub(super) fn migrate(conn: &mut Connection) -> Result<()> {
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
