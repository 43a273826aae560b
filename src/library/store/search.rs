//! Search through the full-text index: SQLite finds the prompts holding every word of
//! the query and ranks them with `bm25()`, a word in the title counting most, then in
//! a tag, then in the description, then in the template.

use serde::Serialize;

use super::prompts::{LISTED, PROMPT_COLUMNS, StoredPrompt, stored_prompt, tagged, tags_param};
use super::{Library, Result};

/// `bm25()` weights of the index's columns: title, tags, description, template.
const WEIGHTS: &str = "8.0, 4.0, 2.0, 1.0";

/// A prompt found by [`Library::search`].
#[derive(Debug, Clone, Serialize)]
pub struct SearchHit {
    pub prompt: StoredPrompt,
    /// 100 for the best match; the others in proportion to their bm25 score (at least 1).
    pub relevance: u32,
}

impl Library {
    /// The latest version of every prompt carrying all of `tags` in which each word of
    /// `query` begins a word (ignoring case and accents), most relevant first, ties by
    /// id. A query without words finds nothing.
    pub fn search(&self, query: &str, tags: &[String]) -> Result<Vec<SearchHit>> {
        let Some(expression) = match_expression(query) else {
            return Ok(Vec::new());
        };
        // bm25() is lower for better matches; its negation ranks from the best down.
        let sql = format!(
            "WITH hits AS (
                 SELECT k.prompt_id, -bm25(prompt_search, {WEIGHTS}) AS score
                 FROM prompt_search JOIN search_keys k ON k.key = prompt_search.rowid
                 WHERE prompt_search MATCH ?2)
             SELECT {PROMPT_COLUMNS}, h.score FROM hits h JOIN {LISTED} AND p.id = h.prompt_id {}
             ORDER BY h.score DESC, p.id",
            tagged(tags)
        );
        let mut statement = self.conn.prepare(&sql)?;
        let scored: Vec<(StoredPrompt, f64)> = statement
            .query_map((tags_param(tags), expression), |row| {
                Ok((stored_prompt(row)?, row.get(9)?))
            })?
            .collect::<std::result::Result<_, _>>()?;
        Ok(relative(scored))
    }
}

/// The FTS5 expression for `query`: each whitespace-separated word quoted (so no word
/// is read as query syntax) and matched as a prefix, all of them required.
fn match_expression(query: &str) -> Option<String> {
    let words: Vec<String> = query
        .split_whitespace()
        .map(|word| format!("\"{}\"*", word.replace('"', "\"\"")))
        .collect();
    (!words.is_empty()).then(|| words.join(" AND "))
}

/// Scores, best first, as percentages of the best one.
fn relative(scored: Vec<(StoredPrompt, f64)>) -> Vec<SearchHit> {
    let best = scored.first().map_or(0.0, |(_, score)| *score);
    scored
        .into_iter()
        .map(|(prompt, score)| SearchHit {
            prompt,
            relevance: if best > 0.0 {
                (score / best * 100.0).round().clamp(1.0, 100.0) as u32
            } else {
                100
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;
    use serde_json::{Value as Json, json};

    use super::super::tests::library;
    use super::*;

    fn template(id: &str, title: &str, tags: &[&str], template: &str) -> Json {
        json!({"id": id, "title": title, "description": "", "template": template,
               "slots": [], "tags": tags})
    }

    fn ids(hits: &[SearchHit]) -> Vec<&str> {
        hits.iter().map(|h| h.prompt.id.as_str()).collect()
    }

    #[test]
    fn every_word_must_begin_a_word_and_the_title_ranks_first() {
        let (_dir, mut lib) = library();
        lib.add(&template("b", "Other", &["x"], "summarize the text"), "me")
            .expect("add");
        lib.add(&template("a", "Summaries", &["x"], "short notes"), "me")
            .expect("add");
        lib.add(&template("c", "Third", &["y"], "nothing here"), "me")
            .expect("add");
        let hits = lib.search("SUMMAR", &[]).expect("search");
        assert_eq!(ids(&hits), ["a", "b"]);
        assert_eq!(hits[0].relevance, 100);
        assert!(hits[1].relevance < 100, "{}", hits[1].relevance);
        assert!(lib.search("ummar", &[]).expect("search").is_empty());
        assert_eq!(ids(&lib.search("summ text", &[]).expect("search")), ["b"]);
        assert!(lib.search("summ nothing", &[]).expect("search").is_empty());
        assert!(lib.search("  ", &[]).expect("search").is_empty());
        assert_eq!(
            ids(&lib.search("no", &["Y".into()]).expect("search")),
            ["c"]
        );
    }

    #[test]
    fn query_syntax_in_a_word_is_only_text() {
        let (_dir, mut lib) = library();
        lib.add(&template("p", "Say \"hi\"", &[], "AND OR NOT near"), "me")
            .expect("add");
        for query in ["\"hi", "AND", "NOT", "title:say", "near(", "hi*", "-", "*"] {
            lib.search(query, &[])
                .unwrap_or_else(|e| panic!("{query}: {e:?}"));
        }
        assert_eq!(ids(&lib.search("\"hi\"", &[]).expect("search")), ["p"]);
        assert_eq!(ids(&lib.search("and or not", &[]).expect("search")), ["p"]);
    }

    #[test]
    fn a_new_version_replaces_the_old_text_and_removed_prompts_are_not_found() {
        let (_dir, mut lib) = library();
        lib.add(&template("p", "Alpha", &[], "one"), "me")
            .expect("add");
        lib.add(&template("p", "Beta", &[], "two"), "me")
            .expect("add");
        assert!(lib.search("alpha", &[]).expect("search").is_empty());
        assert_eq!(ids(&lib.search("beta", &[]).expect("search")), ["p"]);
        lib.remove("p").expect("removed");
        assert!(lib.search("beta", &[]).expect("search").is_empty());
    }

    #[test]
    fn a_library_of_schema_one_is_indexed_when_opened() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("old.db");
        let old = Connection::open(&path).expect("opens");
        old.execute_batch(super::super::schema::FIRST_SCHEMA)
            .expect("schema 1");
        old.execute_batch(
            r#"PRAGMA user_version = 1;
               INSERT INTO prompts (id, created_at) VALUES ('p', 't');
               INSERT INTO versions VALUES ('p', 1, '{"id":"p","title":"Old title","tags":["t"],"template":"x"}', 'h', 'me', 't');
               INSERT INTO versions VALUES ('p', 2, '{"id":"p","title":"New title","tags":["t"],"template":"x"}', 'h', 'me', 't');"#,
        )
        .expect("rows");
        drop(old);
        let lib = Library::open(&path).expect("upgrades");
        assert_eq!(ids(&lib.search("new", &[]).expect("search")), ["p"]);
        assert!(lib.search("old", &[]).expect("search").is_empty());
        assert_eq!(lib.list(&["T".into()]).expect("list").len(), 1);
    }
}
