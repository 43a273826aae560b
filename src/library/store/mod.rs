//! The prompt library on SQLite: every change a new version, locks, ratings per
//! version, a hash-chained audit log with a signed head, and ranking. Writes begin immediately (one writer at a time, others
//! wait on the busy timeout) so concurrent processes never interleave a change.

mod audit;
mod head;
mod new_versions;
mod prompts;
mod rank;
mod schema;
mod search;
mod stats;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rusqlite::{Connection, Transaction, TransactionBehavior};

pub use audit::{AuditBreak, AuditRecord, AuditVerified, Checks, PromptUse};
pub use prompts::{Added, StoredPrompt, VersionInfo};
use schema::{BUSY_TIMEOUT, migrate, wal};
pub use search::SearchHit;
pub use stats::{DayUses, ListOrder, USAGE_DAYS, VersionStats};

#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    #[error("cannot open the library at {}", path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: OpenFailure,
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

/// Why a library (its database, or the key beside it) cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenFailure {
    #[error(transparent)]
    Sql(#[from] rusqlite::Error),
    /// The key that signs the audit log's head cannot be read or made.
    #[error("cannot use its key {}", path.display())]
    Key {
        path: PathBuf,
        #[source]
        source: super::sign::SignError,
    },
}

type Result<T> = std::result::Result<T, LibraryError>;

pub struct Library {
    conn: Connection,
    /// The database file; its key (for the audit head) is beside it.
    path: PathBuf,
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
        let open = |source: rusqlite::Error| LibraryError::Open {
            path: path.to_path_buf(),
            source: source.into(),
        };
        let mut conn = Connection::open(path).map_err(open)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(open)?;
        wal(&conn).map_err(open)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(open)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(open)?;
        // Each insert that fires the index triggers keeps a statement journal; in
        // a temp file that is a write per page changed, in memory it is none.
        conn.pragma_update(None, "temp_store", "MEMORY")
            .map_err(open)?;
        migrate(&mut conn)?;
        Ok(Self {
            conn,
            path: path.to_path_buf(),
        })
    }

    fn write(&mut self) -> Result<Transaction<'_>> {
        Ok(self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?)
    }
}

fn now() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

#[cfg(test)]
mod tests {
    use super::Library;

    /// A fresh library in its own temporary directory.
    pub(super) fn library() -> (tempfile::TempDir, Library) {
        let dir = tempfile::tempdir().expect("temp dir");
        let library = Library::open(&dir.path().join("lib.db")).expect("opens");
        (dir, library)
    }
}
