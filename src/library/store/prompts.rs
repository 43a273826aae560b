//! Prompts and their versions: adding, reading, listing, locking, removing, rating.

use rusqlite::{Connection, OptionalExtension, Transaction, params, params_from_iter};
use serde::Serialize;
use serde_json::Value as Json;

use super::new_versions::put_versions;
use super::{Library, LibraryError, Result, now};

/// The page cache of a batch of writes, in KiB as `PRAGMA cache_size` takes it
/// (negative).
const BATCH_CACHE_KIB: i64 = -64 * 1024;

/// One version of a prompt as stored, with what `list` and `show` report about it:
/// its ratings are this version's.
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

/// The columns [`stored_prompt`] reads, over `p` (prompts) and `v` (versions).
pub(super) const PROMPT_COLUMNS: &str = "p.id, p.locked, v.version, v.content, v.content_hash,
    v.author, v.created_at,
    (SELECT AVG(score) FROM ratings r WHERE r.prompt_id = p.id AND r.version = v.version),
    (SELECT COUNT(*) FROM ratings r WHERE r.prompt_id = p.id AND r.version = v.version)";

/// The latest version of each prompt in the library. It ends in its WHERE clause, so
/// a query may add `AND …` conditions, such as [`tagged`].
pub(super) const LISTED: &str = "prompts p JOIN versions v ON v.prompt_id = p.id
    WHERE p.removed = 0
      AND v.version = (SELECT MAX(version) FROM versions w WHERE w.prompt_id = p.id)";

/// The condition on `p` that it carries every tag of `?1` (a JSON array, see
/// [`tags_param`]), looked up in the tags index; tags compare ignoring ASCII case. No
/// condition at all when no tag is asked for.
pub(super) fn tagged(tags: &[String]) -> &'static str {
    if tags.is_empty() {
        ""
    } else {
        "AND p.id IN (
             SELECT prompt_id FROM prompt_tags WHERE tag IN (SELECT value FROM json_each(?1))
             GROUP BY prompt_id
             HAVING COUNT(*) = (SELECT COUNT(DISTINCT value COLLATE NOCASE) FROM json_each(?1)))"
    }
}

/// The tags a listing must carry, as [`tagged`] takes them.
pub(super) fn tags_param(tags: &[String]) -> String {
    Json::from(tags).to_string()
}

/// The parameters of a query whose only one is [`tagged`]'s: none without tags.
fn tagged_params(tags: &[String]) -> Option<String> {
    (!tags.is_empty()).then(|| tags_param(tags))
}

/// A row of [`PROMPT_COLUMNS`]: a prompt at its latest version.
pub(super) fn stored_prompt(row: &rusqlite::Row<'_>) -> rusqlite::Result<StoredPrompt> {
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
}

/// A template as [`Library::add_changes`] stored it.
#[derive(Debug, Clone)]
pub struct Added {
    /// The prompt at its latest version: the one written, or the one the template
    /// equals.
    pub prompt: StoredPrompt,
    /// Whether a new version was written.
    pub changed: bool,
}

impl Library {
    /// Stores `template` as a new prompt, or as the next version of an existing one
    /// (none when it equals the latest version, which is returned).
    pub fn add(&mut self, template: &Json, author: &str) -> Result<StoredPrompt> {
        let mut stored = self.add_many(std::slice::from_ref(template), author)?;
        stored
            .pop()
            .ok_or_else(|| LibraryError::NotFound(String::new()))
    }

    /// Stores every template (each a new prompt or the next version of one) in one
    /// transaction, or none of them, and returns each as stored.
    pub fn add_many(&mut self, templates: &[Json], author: &str) -> Result<Vec<StoredPrompt>> {
        Ok(self
            .add_changes(templates, author)?
            .into_iter()
            .map(|added| added.prompt)
            .collect())
    }

    /// [`Library::add_many`], saying of each template whether it made a new version:
    /// content equal to its prompt's latest version makes none.
    pub fn add_changes(&mut self, templates: &[Json], author: &str) -> Result<Vec<Added>> {
        // A large batch keeps the pages it changes in memory until it commits,
        // instead of spilling them to the log midway (the cache grows only as used).
        self.conn
            .pragma_update(None, "cache_size", BATCH_CACHE_KIB)?;
        let tx = self.write()?;
        let written = put_versions(&tx, templates, author)?;
        // Held for the batch: see `put_versions` on cached statements.
        let mut ratings = tx.prepare(RATINGS)?;
        let mut locks = tx.prepare("SELECT locked FROM prompts WHERE id = ?1")?;
        let mut stored = Vec::with_capacity(templates.len());
        for (template, new) in templates.iter().zip(written) {
            let id = template["id"].as_str().unwrap_or_default();
            let (rating, ratings) = ratings.query_row(params![id, new.version], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })?;
            // A prompt written is unlocked; one left unchanged may be locked.
            let locked = !new.changed && locks.query_row([id], |row| row.get(0))?;
            stored.push(Added {
                prompt: StoredPrompt {
                    id: id.to_string(),
                    version: new.version,
                    latest_version: new.version,
                    content: template.clone(),
                    content_hash: new.content_hash,
                    locked,
                    author: new.author,
                    created_at: new.created_at,
                    rating,
                    ratings,
                },
                changed: new.changed,
            });
        }
        drop(ratings);
        drop(locks);
        tx.commit()?;
        Ok(stored)
    }

    /// Stores every prompt or none.
    pub fn add_all(&mut self, prompts: &[Json], author: &str) -> Result<Vec<(String, u64)>> {
        let tx = self.write()?;
        let written = put_versions(&tx, prompts, author)?;
        tx.commit()?;
        Ok(prompts
            .iter()
            .zip(written)
            .map(|(template, new)| {
                let id = template["id"].as_str().unwrap_or_default().to_string();
                (id, new.version)
            })
            .collect())
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
        let written = put_versions(&tx, std::slice::from_ref(template), author)?;
        tx.commit()?;
        Ok(written.first().map_or(0, |new| new.version))
    }

    /// A prompt at `version`, else at its latest.
    pub fn get(&self, id: &str, version: Option<u64>) -> Result<StoredPrompt> {
        read_prompt(&self.conn, id, version)
    }

    /// The latest version of every prompt carrying all of `tags`, by id, read in
    /// one query.
    pub fn list(&self, tags: &[String]) -> Result<Vec<StoredPrompt>> {
        let sql = format!(
            "SELECT {PROMPT_COLUMNS} FROM {LISTED} {} ORDER BY p.id",
            tagged(tags)
        );
        let mut statement = self.conn.prepare(&sql)?;
        let prompts = statement
            .query_map(params_from_iter(tagged_params(tags)), stored_prompt)?
            .collect::<std::result::Result<_, _>>()?;
        Ok(prompts)
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

    /// Rates one version of a prompt (its latest if `None`); returns the version rated.
    pub fn rate(
        &mut self,
        id: &str,
        version: Option<u64>,
        score: f64,
        comment: Option<&str>,
        author: &str,
    ) -> Result<u64> {
        if !(0.0..=5.0).contains(&score) {
            return Err(LibraryError::BadRating(score));
        }
        let tx = self.write()?;
        let version = read_prompt(&tx, id, version)?.version;
        tx.execute(
            "INSERT INTO ratings (prompt_id, version, score, comment, author, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![id, version, score, comment, author, now()],
        )?;
        tx.commit()?;
        Ok(version)
    }
}

/// A prompt at `version`, else at its latest, as `conn` sees it.
fn read_prompt(conn: &Connection, id: &str, version: Option<u64>) -> Result<StoredPrompt> {
    let (locked, latest) = conn
        .prepare_cached(
            "SELECT p.locked, MAX(v.version) FROM prompts p JOIN versions v ON v.prompt_id = p.id
             WHERE p.id = ?1 AND p.removed = 0 GROUP BY p.id",
        )?
        .query_row([id], |row| {
            Ok((row.get::<_, bool>(0)?, row.get::<_, u64>(1)?))
        })
        .optional()?
        .ok_or_else(|| LibraryError::NotFound(id.to_string()))?;
    let version = version.unwrap_or(latest);
    let (content, content_hash, author, created_at) = conn
        .prepare_cached(
            "SELECT content, content_hash, author, created_at FROM versions
             WHERE prompt_id = ?1 AND version = ?2",
        )?
        .query_row(params![id, version], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, String>(3)?,
            ))
        })
        .optional()?
        .ok_or_else(|| LibraryError::NoVersion {
            id: id.to_string(),
            version,
        })?;
    let (rating, ratings) = ratings_of(conn, id, version)?;
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

/// The average and count of the ratings of prompt `?1` at version `?2`.
const RATINGS: &str =
    "SELECT AVG(score), COUNT(*) FROM ratings WHERE prompt_id = ?1 AND version = ?2";

/// The average and count of the ratings of a prompt's version.
fn ratings_of(conn: &Connection, id: &str, version: u64) -> Result<(Option<f64>, u64)> {
    Ok(conn
        .prepare_cached(RATINGS)?
        .query_row(params![id, version], |row| Ok((row.get(0)?, row.get(1)?)))?)
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

#[cfg(test)]
mod tests {
    use super::super::tests::library;
    use super::*;
    use serde_json::json;

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
