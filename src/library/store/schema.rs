//! The schema: each migration upgrades a library file by one version, in place, and
//! the file is switched to write-ahead logging so readers never wait on a writer.

use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior};

use super::{LibraryError, Result};

/// How long a writer waits for another to finish.
pub(super) const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Each entry upgrades the schema by one version (`PRAGMA user_version`).
const MIGRATIONS: &[&str] = &[FIRST_SCHEMA, SEARCH_INDEX, TAG_INDEX, USES_AND_RANK];

/// Version 1: prompts and their versions, ratings, the audit chain, seen packets.
pub(super) const FIRST_SCHEMA: &str = r#"
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
"#;

/// Version 2: a full-text index (FTS5) over each prompt's latest title, tags,
/// description and template, for `search`. A trigger keeps it current on every new
/// version, whoever writes it; removed prompts stay indexed and are left out by the
/// query. The index's rowid comes from `search_keys`, an integer key per prompt
/// (prompts' own rowid may change on VACUUM). Existing libraries are indexed here.
const SEARCH_INDEX: &str = r#"
    CREATE TABLE search_keys (
        key INTEGER PRIMARY KEY,
        prompt_id TEXT NOT NULL UNIQUE REFERENCES prompts(id)
    );
    CREATE VIRTUAL TABLE prompt_search USING fts5(
        title, tags, description, template,
        tokenize = 'unicode61 remove_diacritics 2'
    );
    -- The searchable text of every version: string fields only, tags joined by spaces.
    CREATE VIEW version_text AS
    SELECT prompt_id, version,
        iif(json_type(content, '$.title') = 'text', content ->> '$.title', '') AS title,
        iif(json_type(content, '$.tags') = 'array',
            (SELECT group_concat(value, ' ') FROM json_each(content, '$.tags') WHERE type = 'text'),
            '') AS tags,
        iif(json_type(content, '$.description') = 'text', content ->> '$.description', '') AS description,
        iif(json_type(content, '$.template') = 'text', content ->> '$.template', '') AS template
    FROM versions;
    CREATE TRIGGER index_new_version AFTER INSERT ON versions BEGIN
        INSERT OR IGNORE INTO search_keys (prompt_id) VALUES (NEW.prompt_id);
        DELETE FROM prompt_search
        WHERE rowid = (SELECT key FROM search_keys WHERE prompt_id = NEW.prompt_id);
        INSERT INTO prompt_search (rowid, title, tags, description, template)
        SELECT k.key, t.title, t.tags, t.description, t.template
        FROM search_keys k JOIN version_text t ON t.prompt_id = k.prompt_id
        WHERE k.prompt_id = NEW.prompt_id AND t.version = NEW.version;
    END;
    INSERT INTO search_keys (prompt_id) SELECT id FROM prompts ORDER BY id;
    INSERT INTO prompt_search (rowid, title, tags, description, template)
    SELECT k.key, t.title, t.tags, t.description, t.template
    FROM search_keys k JOIN version_text t ON t.prompt_id = k.prompt_id
    WHERE t.version = (SELECT MAX(version) FROM versions w WHERE w.prompt_id = k.prompt_id);
"#;

/// Version 3: the tags of each prompt's latest version in a table of their own, so a
/// tag filter is an index lookup instead of a walk through every prompt's JSON, and
/// ratings indexed by prompt. The same trigger discipline as the search index: every
/// new version rewrites its prompt's tags in the writer's transaction. Tags compare
/// ignoring ASCII case (`NOCASE`), as the filter always has; a tag given twice in
/// one template is kept once. Existing libraries are filled here.
const TAG_INDEX: &str = r#"
    CREATE TABLE prompt_tags (
        tag TEXT NOT NULL COLLATE NOCASE,
        prompt_id TEXT NOT NULL REFERENCES prompts(id),
        PRIMARY KEY (tag, prompt_id)
    ) WITHOUT ROWID;
    CREATE INDEX prompt_tags_by_prompt ON prompt_tags (prompt_id);
    CREATE INDEX ratings_by_prompt ON ratings (prompt_id);
    -- The tags of every version: string elements of a `tags` array only.
    CREATE VIEW version_tags AS
    SELECT v.prompt_id, v.version, t.value AS tag
    FROM versions v, json_each(v.content, '$.tags') t
    WHERE json_type(v.content, '$.tags') = 'array' AND t.type = 'text';
    CREATE TRIGGER tag_new_version AFTER INSERT ON versions BEGIN
        DELETE FROM prompt_tags WHERE prompt_id = NEW.prompt_id;
        INSERT OR IGNORE INTO prompt_tags (tag, prompt_id)
        SELECT tag, prompt_id FROM version_tags
        WHERE prompt_id = NEW.prompt_id AND version = NEW.version;
    END;
    INSERT OR IGNORE INTO prompt_tags (tag, prompt_id)
    SELECT t.tag, t.prompt_id FROM version_tags t
    WHERE t.version = (SELECT MAX(version) FROM versions w WHERE w.prompt_id = t.prompt_id);
"#;

/// Version 4: what ranking needs. A rating belongs to one version: an older rating is
/// given the version that was latest when it was made (the latest one if none was
/// older). An audit record also says which content was used (its hash), for what
/// (`render`, `run`, `chain`), whether it succeeded and how many checks passed;
/// records written before leave them empty and keep their hashes. The chain's head
/// carries a signature by the library's key and the did:key of that key.
const USES_AND_RANK: &str = r#"
    ALTER TABLE ratings ADD COLUMN version INTEGER;
    UPDATE ratings SET version = COALESCE(
        (SELECT MAX(v.version) FROM versions v
         WHERE v.prompt_id = ratings.prompt_id AND v.created_at <= ratings.created_at),
        (SELECT MAX(v.version) FROM versions v WHERE v.prompt_id = ratings.prompt_id),
        1);
    CREATE INDEX ratings_by_version ON ratings (prompt_id, version);
    ALTER TABLE audit ADD COLUMN content_hash TEXT;
    ALTER TABLE audit ADD COLUMN purpose TEXT;
    ALTER TABLE audit ADD COLUMN success INTEGER;
    ALTER TABLE audit ADD COLUMN checks_passed INTEGER;
    ALTER TABLE audit ADD COLUMN checks_total INTEGER;
    CREATE INDEX audit_by_prompt ON audit (prompt_id, version);
    ALTER TABLE audit_head ADD COLUMN signature TEXT;
    ALTER TABLE audit_head ADD COLUMN signer TEXT;
"#;

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
    // An up-to-date library, the usual case, is opened without taking the write lock.
    let found: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    if found == known {
        return Ok(());
    }
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

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::super::Library;
    use super::*;

    fn ids(prompts: &[super::super::StoredPrompt]) -> Vec<&str> {
        prompts.iter().map(|p| p.id.as_str()).collect()
    }

    /// A library as schema 2 wrote it: its own tags only inside each version's JSON.
    fn schema_two_library(path: &std::path::Path) {
        let old = Connection::open(path).expect("opens");
        old.execute_batch(FIRST_SCHEMA).expect("schema 1");
        old.execute_batch(SEARCH_INDEX).expect("schema 2");
        old.execute_batch(
            r#"PRAGMA user_version = 2;
               INSERT INTO prompts (id, created_at) VALUES ('a', 't'), ('b', 't'), ('c', 't');
               INSERT INTO versions VALUES ('a', 1, '{"id":"a","title":"A","tags":["old"],"template":"x"}', 'h', 'me', 't');
               INSERT INTO versions VALUES ('a', 2, '{"id":"a","title":"A","tags":["New","x","NEW"],"template":"x"}', 'h', 'me', 't');
               INSERT INTO versions VALUES ('b', 1, '{"id":"b","title":"B","tags":"new","template":"x"}', 'h', 'me', 't');
               INSERT INTO versions VALUES ('c', 1, '{"id":"c","title":"C","tags":["x", 3],"template":"x"}', 'h', 'me', 't');"#,
        )
        .expect("rows");
    }

    #[test]
    fn a_library_of_schema_two_gets_its_tags_table_when_opened() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("old.db");
        schema_two_library(&path);
        let mut lib = Library::open(&path).expect("upgrades");
        let version: i64 = lib
            .conn
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .expect("version");
        assert_eq!(version, MIGRATIONS.len() as i64);
        // Only the latest version's tags, only string elements of an array.
        assert_eq!(ids(&lib.list(&["new".into()]).expect("list")), ["a"]);
        assert!(lib.list(&["old".into()]).expect("list").is_empty());
        assert_eq!(ids(&lib.list(&["X".into()]).expect("list")), ["a", "c"]);
        assert_eq!(
            ids(&lib.list(&["x".into(), "new".into()]).expect("list")),
            ["a"]
        );
        assert_eq!(ids(&lib.list(&[]).expect("list")), ["a", "b", "c"]);
        assert!(lib.list(&["3".into()]).expect("list").is_empty());
        // Writes after the upgrade keep the table current.
        let c = serde_json::json!({"id": "c", "title": "C", "tags": ["new"], "template": "y"});
        lib.add(&c, "me").expect("add");
        assert_eq!(ids(&lib.list(&["NEW".into()]).expect("list")), ["a", "c"]);
        assert_eq!(ids(&lib.list(&["x".into()]).expect("list")), ["a"]);
        // Opening again finds nothing left to do.
        drop(lib);
        Library::open(&path).expect("opens again");
    }

    #[test]
    fn a_migration_that_fails_leaves_the_library_as_it_was() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("old.db");
        schema_two_library(&path);
        // A table in the way of version 3 makes it fail halfway.
        let old = Connection::open(&path).expect("opens");
        old.execute_batch("CREATE TABLE ratings_in_the_way (x); CREATE INDEX ratings_by_prompt ON ratings_in_the_way (x);")
            .expect("in the way");
        drop(old);
        assert!(Library::open(&path).is_err());
        let old = Connection::open(&path).expect("opens");
        let version: i64 = old
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .expect("version");
        assert_eq!(version, 2);
        let tags_table: i64 = old
            .query_row(
                "SELECT COUNT(*) FROM sqlite_schema WHERE name = 'prompt_tags'",
                [],
                |row| row.get(0),
            )
            .expect("schema");
        assert_eq!(tags_table, 0, "nothing of version 3 stays");
    }

    #[test]
    fn a_library_of_schema_three_keeps_its_ratings_and_audit_log() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("old.db");
        let old = Connection::open(&path).expect("opens");
        old.execute_batch(FIRST_SCHEMA).expect("schema 1");
        old.execute_batch(SEARCH_INDEX).expect("schema 2");
        old.execute_batch(TAG_INDEX).expect("schema 3");
        // Version 1 at 10:00 and version 2 at 12:00; ratings at 11:00 and 13:00.
        old.execute_batch(
            r#"PRAGMA user_version = 3;
               INSERT INTO prompts (id, created_at) VALUES ('a', '2026-01-01T10:00:00.000Z');
               INSERT INTO versions VALUES ('a', 1, '{"id":"a","title":"A","template":"x"}', 'h1', 'me', '2026-01-01T10:00:00.000Z');
               INSERT INTO versions VALUES ('a', 2, '{"id":"a","title":"A","template":"y"}', 'h2', 'me', '2026-01-01T12:00:00.000Z');
               INSERT INTO ratings (prompt_id, score, author, created_at) VALUES ('a', 1, 'me', '2026-01-01T11:00:00.000Z');
               INSERT INTO ratings (prompt_id, score, author, created_at) VALUES ('a', 5, 'me', '2026-01-01T13:00:00.000Z');"#,
        )
        .expect("rows");
        // An audit record as schema 3 wrote it: no use fields, an unsigned head.
        let mut record = super::super::AuditRecord {
            seq: 1,
            at: "2026-01-01T12:30:00.000Z".into(),
            who: "me".into(),
            prompt_id: "a".into(),
            version: 2,
            variables: serde_json::json!({"n": 1}),
            content_hash: None,
            purpose: None,
            success: None,
            checks: None,
            prev_hash: "0".repeat(64),
            hash: String::new(),
        };
        record.hash = record.expected_hash();
        old.execute(
            "INSERT INTO audit VALUES (1, ?1, 'me', 'a', 2, '{\"n\":1}', ?2, ?3)",
            (&record.at, &record.prev_hash, &record.hash),
        )
        .expect("audit");
        old.execute("INSERT INTO audit_head VALUES (1, 1, ?1)", [&record.hash])
            .expect("head");
        drop(old);

        let mut lib = Library::open(&path).expect("upgrades");
        let v1 = lib.get("a", Some(1)).expect("v1");
        let v2 = lib.get("a", Some(2)).expect("v2");
        assert_eq!((v1.rating, v1.ratings), (Some(1.0), 1));
        assert_eq!((v2.rating, v2.ratings), (Some(5.0), 1));
        let held = lib.verify_audit().expect("reads").expect("holds");
        assert_eq!((held.records, held.head_signed), (1, false));
        lib.record_render("me", "a", 2, serde_json::json!({}))
            .expect("records");
        let held = lib.verify_audit().expect("reads").expect("holds");
        assert_eq!((held.records, held.head_signed), (2, true));
        let records = lib.audit(None, None).expect("records");
        assert_eq!(records[0].purpose, None);
        assert_eq!(records[1].purpose.as_deref(), Some("render"));
        assert_eq!(records[1].content_hash.as_deref(), Some("h2"));
    }
}
