//! Saved reports under `--reports DIR`: the list, each as its HTML report, the diff
//! of two (`diff`'s comparison), and one item's history across all of them. Only
//! files inside the folder are ever read.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use axum::extract::{Query, State};
use axum::http::header::{CONTENT_TYPE, X_FRAME_OPTIONS};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value as Json, json};

use crate::compare::{self, ReportAt, ReportKind, Side, Tolerances, histories};
use crate::report::{HtmlKind, html_page};

use super::State as Served;
use super::reply::{ApiError, json_of};
use super::{UiError, blocking};

/// The reports folder as given, made absolute; it must be a directory that reads.
pub(super) fn folder(dir: &Path) -> Result<PathBuf, UiError> {
    let fail = |source| UiError::Reports {
        path: dir.to_path_buf(),
        source,
    };
    let canonical = dir.canonicalize().map_err(fail)?;
    std::fs::read_dir(&canonical).map_err(fail)?;
    Ok(canonical)
}

/// One JSON file under the folder.
struct ReportFile {
    /// Its path under the folder, `/`-separated: how the page names it.
    name: String,
    path: PathBuf,
    modified: SystemTime,
}

impl ReportFile {
    fn when(&self) -> String {
        humantime::format_rfc3339_seconds(self.modified).to_string()
    }
}

/// Every `*.json` file under `dir` at any depth (hidden entries left out), newest
/// first, then by name.
fn report_files(dir: &Path) -> Vec<ReportFile> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let (Ok(kind), false) = (
                entry.file_type(),
                entry.file_name().to_string_lossy().starts_with('.'),
            ) else {
                continue;
            };
            // Folders are entered only when they are folders, not links to one (which
            // could lead out of the folder, or round in a loop).
            if kind.is_dir() {
                pending.push(path);
                continue;
            }
            let is_json = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("json"));
            // A link to a file counts only when the file is inside the folder.
            let inside = path.canonicalize().is_ok_and(|real| real.starts_with(dir));
            let (Ok(meta), Ok(rel)) = (std::fs::metadata(&path), path.strip_prefix(dir)) else {
                continue;
            };
            if is_json && inside && meta.is_file() {
                let parts: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                found.push(ReportFile {
                    name: parts.join("/"),
                    modified: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                    path,
                });
            }
        }
    }
    found.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then_with(|| a.name.cmp(&b.name))
    });
    found
}

/// Why a listed file cannot be shown as a report.
#[derive(Debug, thiserror::Error)]
enum Unreadable {
    #[error("cannot read it: {0}")]
    Read(#[from] std::io::Error),
    #[error("not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// A report file's text and JSON.
fn read_report(path: &Path) -> Result<(String, Json), Unreadable> {
    let text = std::fs::read_to_string(path)?;
    let value = serde_json::from_str(&text)?;
    Ok((text, value))
}

/// The folder, or a 404 when the server was started without one.
fn reports_dir(state: &Served) -> Result<&Path, ApiError> {
    state
        .reports
        .as_deref()
        .ok_or_else(|| ApiError::NotFound("no reports folder: start with --reports DIR".into()))
}

/// The file a page names, which must be a JSON file inside the folder.
fn resolve(dir: &Path, name: &str) -> Result<PathBuf, ApiError> {
    let missing = || ApiError::NotFound(format!("no report `{name}` in the reports folder"));
    let relative = Path::new(name);
    if name.is_empty()
        || relative
            .components()
            .any(|c| !matches!(c, Component::Normal(_)))
    {
        return Err(missing());
    }
    let path = dir.join(relative).canonicalize().map_err(|_| missing())?;
    match path.starts_with(dir) && path.is_file() {
        true => Ok(path),
        false => Err(missing()),
    }
}

/// A report read for a request: its text and JSON, or a 404 or 400.
fn load(state: &Served, name: &str) -> Result<(String, Json), ApiError> {
    let path = resolve(reports_dir(state)?, name)?;
    read_report(&path).map_err(|why| ApiError::BadRequest(format!("{name}: {why}")))
}

pub(super) async fn list(State(state): State<Arc<Served>>) -> Result<Response, ApiError> {
    blocking(&state, |state| {
        let Some(dir) = state.reports.as_deref() else {
            return json_of(&json!({"dir": null, "reports": []}));
        };
        let listed: Vec<Json> = report_files(dir).iter().map(summary).collect();
        json_of(&json!({"dir": dir.display().to_string(), "reports": listed}))
    })
    .await
}

/// A listed report: its kind and counts, or why it is not a report.
fn summary(file: &ReportFile) -> Json {
    let value = match read_report(&file.path) {
        Ok((_, value)) => value,
        Err(why) => return json!({"path": file.name, "error": why.to_string()}),
    };
    let Some(kind) = ReportKind::of(&value) else {
        return json!({"path": file.name, "error": "not a promptexec report"});
    };
    let items = compare::items(kind, &value);
    let count = |want| items.iter().filter(|i| i.pass == Some(want)).count();
    json!({
        "path": file.name,
        "kind": kind.words(),
        "modified": file.when(),
        "items": items.len(),
        "passed": count(true),
        "failed": count(false),
    })
}

#[derive(Debug, Deserialize)]
pub(super) struct ReportQuery {
    path: String,
}

/// The report's own HTML page, as `run --html` writes it.
pub(super) async fn view(
    State(state): State<Arc<Served>>,
    Query(query): Query<ReportQuery>,
) -> Result<Response, ApiError> {
    blocking(&state, move |state| {
        let (text, value) = load(state, &query.path)?;
        let kind = ReportKind::of(&value).ok_or_else(|| {
            ApiError::BadRequest(format!("{}: not a promptexec report", query.path))
        })?;
        Ok(html(html_page(html_kind(kind), &text)))
    })
    .await
}

fn html_kind(kind: ReportKind) -> HtmlKind {
    match kind {
        ReportKind::Suite => HtmlKind::Suite,
        ReportKind::Conversation => HtmlKind::Conversation,
        ReportKind::Test => HtmlKind::Test,
        ReportKind::Check => HtmlKind::Check,
    }
}

/// A report page, shown only in a frame of this server's page.
fn html(page: String) -> Response {
    (
        [
            (CONTENT_TYPE, "text/html; charset=utf-8"),
            (X_FRAME_OPTIONS, "SAMEORIGIN"),
        ],
        page,
    )
        .into_response()
}

#[derive(Debug, Deserialize)]
pub(super) struct PairQuery {
    base: String,
    head: String,
}

/// `diff BASE HEAD --format json`'s document, with the default tolerances.
fn diff_document(state: &Served, pair: &PairQuery) -> Result<String, ApiError> {
    let (_, base) = load(state, &pair.base)?;
    let (_, head) = load(state, &pair.head)?;
    let diff = compare::compare(
        Side {
            file: &pair.base,
            report: &base,
        },
        Side {
            file: &pair.head,
            report: &head,
        },
        &Tolerances::default(),
        &[],
    )
    .map_err(|err| ApiError::BadRequest(err.to_string()))?;
    serde_json::to_string_pretty(&diff)
        .map_err(|err| ApiError::Internal(format!("cannot write the diff: {err}")))
}

pub(super) async fn diff_json(
    State(state): State<Arc<Served>>,
    Query(pair): Query<PairQuery>,
) -> Result<Response, ApiError> {
    blocking(&state, move |state| {
        diff_document(state, &pair).map(super::reply::json_text)
    })
    .await
}

pub(super) async fn diff_page(
    State(state): State<Arc<Served>>,
    Query(pair): Query<PairQuery>,
) -> Result<Response, ApiError> {
    blocking(&state, move |state| {
        let json = diff_document(state, &pair)?;
        Ok(html(html_page(HtmlKind::Diff, &json)))
    })
    .await
}

#[derive(Debug, Deserialize)]
pub(super) struct HistoryQuery {
    id: Option<String>,
}

/// One item's history (`?id=`), or every item's summary.
pub(super) async fn history(
    State(state): State<Arc<Served>>,
    Query(query): Query<HistoryQuery>,
) -> Result<Response, ApiError> {
    blocking(&state, move |state| {
        let dir = reports_dir(state)?;
        let mut files = report_files(dir);
        files.reverse();
        let read: Vec<(String, String, Json)> = files
            .iter()
            .filter_map(|f| {
                read_report(&f.path)
                    .ok()
                    .map(|(_, v)| (f.name.clone(), f.when(), v))
            })
            .collect();
        let reports: Vec<ReportAt<'_>> = read
            .iter()
            .map(|(file, when, report)| ReportAt { file, when, report })
            .collect();
        let all = histories(&reports);
        match query.id {
            Some(id) => match all.iter().find(|h| h.id == id) {
                Some(found) => json_of(found),
                None => Err(ApiError::NotFound(format!("no item `{id}` in any report"))),
            },
            None => {
                let items: Vec<Json> = all
                    .iter()
                    .map(|h| {
                        json!({
                            "id": h.id,
                            "kind": h.kind,
                            "reports": h.points.len(),
                            "pass_rate": h.pass_rate,
                            "flaky": h.flaky,
                            "last": h.points.last().map(|p| p.result.as_str()),
                        })
                    })
                    .collect();
                json_of(&json!({"items": items}))
            }
        }
    })
    .await
}
