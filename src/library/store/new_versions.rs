//! Writing new versions of prompts, any number at once. Every version written fires
//! the search index's trigger, and FTS5 writes its pending index to disk each time a
//! statement of the transaction opens a savepoint, as an insert that fires triggers
//! does: so the prompts' rows are written first and then every version in a single
//! statement, one index write (and one statement journal) for the whole batch
//! instead of one per version.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Transaction, params};
use serde_json::Value as Json;

use super::super::parallel::map_in_parallel;
use super::super::sign::content_hash;
use super::{LibraryError, Result, now};

/// Inserts the versions of `?1`, a JSON array of `[prompt_id, version, content,
/// content_hash, author, created_at]` rows, in the array's order.
const INSERT_VERSIONS: &str = "INSERT INTO versions
        (prompt_id, version, content, content_hash, author, created_at)
    SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5
    FROM json_each(?1) ORDER BY key";

/// What [`put_versions`] wrote for one template besides what it was given, or found
/// when the template equals its prompt's latest version.
pub(super) struct NewVersion {
    pub version: u64,
    pub content_hash: String,
    pub author: String,
    pub created_at: String,
    /// Whether a version was written: `false` when the content was already the latest.
    pub changed: bool,
}

/// Writes the next version of each template's prompt, in order, creating the prompt
/// or bringing a removed one back; a locked prompt refuses (and the caller's
/// transaction then stores nothing). A template whose content (its canonical JSON)
/// equals its prompt's latest version writes no version, locked or not: it changes
/// nothing.
pub(super) fn put_versions(
    tx: &Transaction<'_>,
    templates: &[Json],
    author: &str,
) -> Result<Vec<NewVersion>> {
    // Each template's text and hash stand alone: worked out on every core.
    let contents = map_in_parallel(templates, |t| (t.to_string(), content_hash(t)));
    // Statements held for the batch, not taken from the connection's cache: a cached
    // statement forgets its values when handed back, and SQLite then plans these
    // queries again at their next use.
    let mut state = tx.prepare("SELECT locked, removed FROM prompts WHERE id = ?1")?;
    let mut revive = tx.prepare("UPDATE prompts SET removed = 0, locked = 0 WHERE id = ?1")?;
    let mut create = tx.prepare("INSERT INTO prompts (id, created_at) VALUES (?1, ?2)")?;
    let mut latest = tx.prepare(
        "SELECT version, content_hash, author, created_at FROM versions
         WHERE prompt_id = ?1 ORDER BY version DESC LIMIT 1",
    )?;
    // The latest version of each prompt of the batch so far, maybe not yet in
    // `versions`.
    let mut given: HashMap<&str, Latest> = HashMap::new();
    let mut rows = Vec::with_capacity(templates.len());
    let mut written = Vec::with_capacity(templates.len());
    for (template, (content, hash)) in templates.iter().zip(contents) {
        let id = template["id"].as_str().unwrap_or_default();
        let (before, locked) = match given.get(id) {
            // Seen earlier in the batch: unlocked (or unchanged) and present now.
            Some(last) => (Some(last.clone()), false),
            None => {
                let found: Option<(bool, bool)> = state
                    .query_row([id], |row| Ok((row.get(0)?, row.get(1)?)))
                    .optional()?;
                let locked = match found {
                    Some((_, true)) => {
                        revive.execute([id])?;
                        false
                    }
                    Some((locked, false)) => locked,
                    None => {
                        create.execute(params![id, now()])?;
                        false
                    }
                };
                let before = latest
                    .query_row([id], |row| {
                        Ok(Latest {
                            version: row.get(0)?,
                            content_hash: row.get(1)?,
                            author: row.get(2)?,
                            created_at: row.get(3)?,
                        })
                    })
                    .optional()?;
                (before, locked)
            }
        };
        let new = match before {
            Some(last) if last.content_hash == hash => NewVersion {
                version: last.version,
                content_hash: hash,
                author: last.author,
                created_at: last.created_at,
                changed: false,
            },
            _ if locked => return Err(LibraryError::Locked(id.to_string())),
            before => {
                let created_at = now();
                let version = before.map_or(1, |last| last.version + 1);
                rows.push(Json::from(vec![
                    Json::from(id),
                    Json::from(version),
                    Json::from(content),
                    Json::from(hash.as_str()),
                    Json::from(author),
                    Json::from(created_at.as_str()),
                ]));
                NewVersion {
                    version,
                    content_hash: hash,
                    author: author.to_string(),
                    created_at,
                    changed: true,
                }
            }
        };
        given.insert(
            id,
            Latest {
                version: new.version,
                content_hash: new.content_hash.clone(),
                author: new.author.clone(),
                created_at: new.created_at.clone(),
            },
        );
        written.push(new);
    }
    if !rows.is_empty() {
        tx.execute(INSERT_VERSIONS, [Json::Array(rows).to_string()])?;
    }
    Ok(written)
}

/// A prompt's latest version, as [`put_versions`] compares a template with it.
#[derive(Clone)]
struct Latest {
    version: u64,
    content_hash: String,
    author: String,
    created_at: String,
}

#[cfg(test)]
mod tests {
    use super::super::tests::library;
    use serde_json::json;

    #[test]
    fn one_batch_versions_a_prompt_given_twice_and_indexes_its_latest() {
        let (_dir, mut lib) = library();
        lib.add(
            &json!({"id": "p", "title": "Old", "template": "x", "tags": ["a"]}),
            "me",
        )
        .expect("add");
        lib.remove("p").expect("removed");
        let batch = [
            json!({"id": "p", "title": "Middle", "template": "y", "tags": ["b"]}),
            json!({"id": "q", "title": "Other", "template": "z"}),
            json!({"id": "p", "title": "Newest", "template": "w", "tags": ["c"]}),
        ];
        let stored = lib.add_many(&batch, "me").expect("stored");
        let versions: Vec<(&str, u64)> =
            stored.iter().map(|p| (p.id.as_str(), p.version)).collect();
        assert_eq!(versions, [("p", 2), ("q", 1), ("p", 3)]);
        let latest = lib.get("p", None).expect("back in the library");
        assert_eq!(latest.content, batch[2]);
        assert_eq!(latest.content_hash, stored[2].content_hash);
        assert_eq!(lib.get("p", Some(2)).expect("v2").content, batch[0]);
        let found: Vec<String> = lib
            .search("newest", &[])
            .expect("search")
            .into_iter()
            .map(|h| h.prompt.id)
            .collect();
        assert_eq!(found, ["p"]);
        assert!(lib.search("middle", &[]).expect("search").is_empty());
        assert_eq!(lib.list(&["c".into()]).expect("list").len(), 1);
        assert!(lib.list(&["b".into()]).expect("list").is_empty());
    }

    #[test]
    fn content_equal_to_the_latest_version_writes_none() {
        let (_dir, mut lib) = library();
        let one = json!({"id": "p", "title": "One", "template": "x"});
        // The same content with its keys in another order.
        let same = json!({"template": "x", "title": "One", "id": "p"});
        let two = json!({"id": "p", "title": "Two", "template": "x"});
        lib.add(&one, "ana").expect("add");
        let again = lib.add_changes(&[same], "bob").expect("add");
        assert_eq!(again[0].prompt.version, 1);
        assert!(!again[0].changed);
        assert_eq!(
            again[0].prompt.author, "ana",
            "the version as it was written"
        );
        // In one batch: a change, then the same change again, then the first content.
        let batch = lib
            .add_changes(&[two.clone(), two, one.clone()], "bob")
            .expect("add");
        let seen: Vec<(u64, bool)> = batch
            .iter()
            .map(|a| (a.prompt.version, a.changed))
            .collect();
        assert_eq!(seen, [(2, true), (2, false), (3, true)]);
        assert_eq!(lib.history("p").expect("history").len(), 3);
        // A locked prompt refuses a change but not the content it already has.
        lib.set_locked("p", true).expect("lock");
        assert_eq!(lib.add(&one, "bob").expect("unchanged").version, 3);
        assert!(matches!(
            lib.add(
                &json!({"id": "p", "title": "Three", "template": "x"}),
                "bob"
            ),
            Err(super::super::LibraryError::Locked(_))
        ));
        lib.set_locked("p", false).expect("unlock");
        // A removed prompt comes back at its latest version.
        lib.remove("p").expect("removed");
        assert_eq!(lib.add(&one, "bob").expect("back").version, 3);
        assert_eq!(lib.list(&[]).expect("list").len(), 1);
    }
}
