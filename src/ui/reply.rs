//! Answers as HTTP responses: JSON text as the commands print it, pages, and every
//! failure as `{error}` with the status the contract names.

use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use serde_json::{Value as Json, json};

use crate::doc::Diagnostics;
use crate::library::LibraryError;

/// Why a request was not answered.
#[derive(Debug, thiserror::Error)]
pub(super) enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error(transparent)]
    Library(#[from] LibraryError),
    /// A template that does not read; each problem where it is.
    #[error("the template has {} error(s)", .0.error_count())]
    Invalid(Diagnostics),
    #[error("{0}")]
    Internal(String),
}

impl ApiError {
    fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Invalid(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::Library(err) => match err {
                LibraryError::NotFound(_) | LibraryError::NoVersion { .. } => StatusCode::NOT_FOUND,
                LibraryError::Locked(_) | LibraryError::Replayed => StatusCode::CONFLICT,
                LibraryError::BadRating(_) => StatusCode::BAD_REQUEST,
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            },
        }
    }

    /// The message with every cause, as the command line would print it.
    fn message(&self) -> String {
        let mut text = self.to_string();
        let mut cause = std::error::Error::source(self);
        while let Some(err) = cause {
            text.push_str(": ");
            text.push_str(&err.to_string());
            cause = err.source();
        }
        text
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({ "error": self.message() });
        if let ApiError::Invalid(problems) = &self {
            body["errors"] = problems_json(problems);
        }
        (self.status(), axum::Json(body)).into_response()
    }
}

/// Problems as `{severity, file, line, col, message}`, `line` and `col` null for a
/// problem with the whole text; in the order the command line prints them.
pub(super) fn problems_json(problems: &Diagnostics) -> Json {
    problems
        .clone()
        .sorted()
        .iter()
        .map(|d| {
            json!({
                "severity": match d.severity {
                    crate::doc::Severity::Error => "error",
                    crate::doc::Severity::Warning => "warning",
                },
                "file": d.file.display().to_string(),
                "line": d.pos.map(|p| p.line),
                "col": d.pos.map(|p| p.col),
                "message": d.message,
            })
        })
        .collect()
}

/// JSON text already made (a command's `--format json` answer), as it is.
pub(super) fn json_text(text: String) -> Response {
    ([(CONTENT_TYPE, "application/json")], text).into_response()
}

/// Any serializable answer, pretty as the commands print JSON.
pub(super) fn json_of(value: &impl serde::Serialize) -> Result<Response, ApiError> {
    serde_json::to_string_pretty(value)
        .map(json_text)
        .map_err(|err| ApiError::Internal(format!("cannot write the answer: {err}")))
}

/// What no route answers.
pub(super) async fn not_found() -> ApiError {
    ApiError::NotFound("nothing is served here".into())
}
