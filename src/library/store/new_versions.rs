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

/// What [`put_versions`] wrote for one template besides what it was given.
pub(super) struct NewVersion {
    pub version: u64,
    pub content_hash: String,
    pub created_at: String,
}

/// Writes the next version of each template's prompt, in order, creating the prompt
/// or bringing a removed one back; a locked prompt refuses (and the caller's
/// transaction then stores nothing).
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
    let mut latest =
        tx.prepare("SELECT COALESCE(MAX(version), 0) FROM versions WHERE prompt_id = ?1")?;
    // The version last given to each prompt of the batch, not yet in `versions`.
    let mut given: HashMap<&str, u64> = HashMap::new();
    let mut rows = Vec::with_capacity(templates.len());
    let mut written = Vec::with_capacity(templates.len());
    for (template, (content, hash)) in templates.iter().zip(contents) {
        let id = template["id"].as_str().unwrap_or_default();
        let version = match given.get(id) {
            // Written earlier in the batch: unlocked and present now.
            Some(last) => last + 1,
            None => {
                let found: Option<(bool, bool)> = state
                    .query_row([id], |row| Ok((row.get(0)?, row.get(1)?)))
                    .optional()?;
                match found {
                    Some((true, false)) => return Err(LibraryError::Locked(id.to_string())),
                    Some((_, true)) => {
                        revive.execute([id])?;
                    }
                    Some(_) => {}
                    None => {
                        create.execute(params![id, now()])?;
                    }
                }
                latest.query_row([id], |row| row.get::<_, u64>(0))? + 1
            }
        };
        given.insert(id, version);
        let created_at = now();
        rows.push(Json::from(vec![
            Json::from(id),
            Json::from(version),
            Json::from(content),
            Json::from(hash.as_str()),
            Json::from(author),
            Json::from(created_at.as_str()),
        ]));
        written.push(NewVersion {
            version,
            content_hash: hash,
            created_at,
        });
    }
    tx.execute(INSERT_VERSIONS, [Json::Array(rows).to_string()])?;
    Ok(written)
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
}
