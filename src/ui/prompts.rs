//! The library's endpoints: each opens the library as a command does and answers
//! with that command's JSON (`prompt list`, `search`, `show`, `history`, `audit`,
//! `add`, `stats`), plus a prompt as its `.prompt` file and line diffs of those files.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, Query, State};
use axum::response::Response;
use serde::Deserialize;
use serde_json::json;

use crate::diff::text::{Line, lines};
use crate::doc::Rejected;
use crate::library::{
    Library, ListOrder, PromptTemplate, file_name_for, parse_prompt_template, to_prompt_file,
};
use crate::report::{Answer, LibraryAnswer, StatsAnswer};

use super::State as Served;
use super::blocking;
use super::reply::{ApiError, json_of, json_text};

/// Runs `work` on the library, opened afresh for this request as a command opens
/// it, off the async threads (SQLite blocks).
pub(super) async fn in_library<T, F>(state: &Arc<Served>, work: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&mut Library, &Served) -> Result<T, ApiError> + Send + 'static,
{
    blocking(state, move |state| {
        let mut library = Library::open(&state.library)?;
        work(&mut library, state)
    })
    .await
}

/// `q`, `tag` (repeated) and `sort` of `GET /api/prompts`.
pub(super) async fn list(
    State(state): State<Arc<Served>>,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Result<Response, ApiError> {
    let mut query = String::new();
    let mut tags = Vec::new();
    let mut sort = String::from("id");
    for (key, value) in pairs {
        match key.as_str() {
            "q" => query = value,
            "tag" => tags.push(value),
            "sort" => sort = value,
            _ => {}
        }
    }
    in_library(&state, move |library, _| {
        let text = if !query.trim().is_empty() {
            let hits = library.search(&query, &tags)?;
            LibraryAnswer::Found {
                query: &query,
                hits: &hits,
            }
            .json()
        } else if sort == "rank" {
            LibraryAnswer::Ranked(&library.list_ranked(&tags)?).json()
        } else {
            let order = match sort.as_str() {
                "recent" => ListOrder::Recent,
                "id" => ListOrder::Id,
                other => {
                    return Err(ApiError::BadRequest(format!(
                        "no sort `{other}`: rank, recent or id"
                    )));
                }
            };
            LibraryAnswer::Listed(&library.list_in(&tags, order)?).json()
        };
        Ok(json_text(text))
    })
    .await
}

#[derive(Debug, Deserialize)]
pub(super) struct VersionQuery {
    version: Option<u64>,
}

pub(super) async fn show(
    State(state): State<Arc<Served>>,
    Path(id): Path<String>,
    Query(at): Query<VersionQuery>,
) -> Result<Response, ApiError> {
    in_library(&state, move |library, _| {
        let prompt = library.get(&id, at.version)?;
        Ok(json_text(LibraryAnswer::Shown(&prompt).json()))
    })
    .await
}

/// A version as the `.prompt` file `prompt export-dir` writes.
pub(super) async fn file(
    State(state): State<Arc<Served>>,
    Path(id): Path<String>,
    Query(at): Query<VersionQuery>,
) -> Result<Response, ApiError> {
    in_library(&state, move |library, _| {
        let prompt = library.get(&id, at.version)?;
        json_of(&json!({
            "id": prompt.id,
            "version": prompt.version,
            "latest_version": prompt.latest_version,
            "locked": prompt.locked,
            "text": to_prompt_file(&prompt.content),
        }))
    })
    .await
}

pub(super) async fn history(
    State(state): State<Arc<Served>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    in_library(&state, move |library, _| {
        Ok(json_text(
            LibraryAnswer::History(&library.history(&id)?).json(),
        ))
    })
    .await
}

pub(super) async fn audit(
    State(state): State<Arc<Served>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    in_library(&state, move |library, _| {
        // An unknown prompt is a 404, not an empty log.
        library.get(&id, None)?;
        let records = library.audit(Some(&id), None)?;
        Ok(json_text(LibraryAnswer::Audit(&records).json()))
    })
    .await
}

#[derive(Debug, Deserialize)]
pub(super) struct VersionPair {
    from: Option<u64>,
    to: Option<u64>,
}

/// Two versions' files, line by line: by default the one before the latest and the
/// latest.
pub(super) async fn versions_diff(
    State(state): State<Arc<Served>>,
    Path(id): Path<String>,
    Query(pair): Query<VersionPair>,
) -> Result<Response, ApiError> {
    in_library(&state, move |library, _| {
        let latest = library.get(&id, None)?.latest_version;
        let to = pair.to.unwrap_or(latest);
        let from = pair.from.unwrap_or(to.saturating_sub(1).max(1));
        let old = to_prompt_file(&library.get(&id, Some(from))?.content);
        let new = to_prompt_file(&library.get(&id, Some(to))?.content);
        json_of(&json!({"id": id, "from": from, "to": to, "lines": lines_json(&old, &new)}))
    })
    .await
}

/// The body of the editor's requests: a `.prompt` file's text.
#[derive(Debug, Deserialize)]
pub(super) struct Draft {
    text: String,
}

/// The latest version's file against the editor's text.
pub(super) async fn draft_diff(
    State(state): State<Arc<Served>>,
    Path(id): Path<String>,
    draft: Result<axum::Json<Draft>, JsonRejection>,
) -> Result<Response, ApiError> {
    let text = body(draft)?.text;
    in_library(&state, move |library, _| {
        let saved = library.get(&id, None)?;
        let old = to_prompt_file(&saved.content);
        json_of(&json!({
            "id": id,
            "from": saved.version,
            "to": null,
            "lines": lines_json(&old, &text),
        }))
    })
    .await
}

/// Saves the editor's text as `prompt add` would its file: a new version, or none
/// when nothing changed; refused for a locked prompt.
pub(super) async fn save(
    State(state): State<Arc<Served>>,
    Path(id): Path<String>,
    draft: Result<axum::Json<Draft>, JsonRejection>,
) -> Result<Response, ApiError> {
    let text = body(draft)?.text;
    in_library(&state, move |library, state| {
        let template = read_draft(&id, &text)?;
        let content = template.library_json().clone();
        let named = content["id"].as_str().unwrap_or_default();
        if named != id {
            return Err(ApiError::BadRequest(format!(
                "the text names prompt `{named}`, not `{id}`"
            )));
        }
        let added = library.add_changes(&[content], &state.who)?;
        Ok(json_text(
            LibraryAnswer::Added {
                prompts: &added,
                one: true,
            }
            .json(),
        ))
    })
    .await
}

#[derive(Debug, Deserialize)]
pub(super) struct StatsQuery {
    id: Option<String>,
}

pub(super) async fn stats(
    State(state): State<Arc<Served>>,
    Query(query): Query<StatsQuery>,
) -> Result<Response, ApiError> {
    in_library(&state, move |library, _| {
        let stats = library.stats(query.id.as_deref(), SystemTime::now())?;
        Ok(json_text(StatsAnswer(&stats).json()))
    })
    .await
}

/// The name a draft of prompt `id` has in messages: its file in `prompt export-dir`.
pub(super) fn draft_label(id: &str) -> PathBuf {
    PathBuf::from(file_name_for(id))
}

/// A draft read as the `.prompt` file of prompt `id`; its errors as the answer.
pub(super) fn read_draft(id: &str, text: &str) -> Result<PromptTemplate, ApiError> {
    parse_prompt_template(&draft_label(id), text)
        .map(|loaded| loaded.value)
        .map_err(|Rejected(problems)| ApiError::Invalid(problems))
}

/// A JSON body, or a 400 that says what is wrong with it.
pub(super) fn body<T>(given: Result<axum::Json<T>, JsonRejection>) -> Result<T, ApiError> {
    given
        .map(|axum::Json(value)| value)
        .map_err(|err| ApiError::BadRequest(err.body_text()))
}

fn lines_json(old: &str, new: &str) -> serde_json::Value {
    lines(old, new)
        .iter()
        .map(|line| match line {
            Line::Same(text) => json!({"op": "same", "text": text}),
            Line::Removed(text) => json!({"op": "removed", "text": text}),
            Line::Added(text) => json!({"op": "added", "text": text}),
        })
        .collect()
}
