//! Live tools (`mode: live`): one HTTP request per call, built from the arguments
//! as PromptKit builds it, and the answer read back as the tool's result.
//!
//! The request goes to the configured URL only: redirects are not followed (a 3xx is
//! an HTTP error like any other status outside 2xx), and no proxy is used.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use regex::Regex;
use serde_json::{Map, Value as Json};
use tokio_util::sync::CancellationToken;

use crate::config::{HttpRequestMapping, HttpTool};
use crate::exec::{Outcome, RawJson};
use crate::go_template::{Missing, TemplateError, go_float};

use super::mock::wrapped;
use super::{ToolMode, ToolReport, ToolStatus};

/// The most of an answer read (PromptKit's limit).
const MAX_RESPONSE: usize = 10 * 1024 * 1024;
/// A call's deadline when neither the tool nor the caller gives one.
pub const DEFAULT_HTTP_TIMEOUT: Duration = Duration::from_secs(30);
/// How much of an error answer's body a message shows.
const ERROR_BODY: usize = 500;

/// Calls live tool `name` with `args` through `client` (which must not follow
/// redirects). The deadline is the tool's, shortened by the caller's `timeout`.
pub async fn call_http(
    name: &str,
    tool: &HttpTool,
    client: &reqwest::Client,
    args: &Json,
    timeout: Option<Duration>,
    cancel: &CancellationToken,
) -> ToolReport {
    let started = Instant::now();
    let mut report = ToolReport::new(name, ToolMode::Live);
    let deadline = match (tool.timeout, timeout) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b).unwrap_or(DEFAULT_HTTP_TIMEOUT),
    };
    let mut interrupted = false;
    let outcome = match request(tool, client, args) {
        Err(error) => Err((ToolStatus::Failed, error.to_string())),
        Ok(request) => tokio::select! {
            answer = tokio::time::timeout(deadline, send(tool, request)) => match answer {
                Ok(answer) => answer,
                Err(_) => Err((
                    ToolStatus::Timeout,
                    format!("{} {}: no answer within {} ms", tool.method, tool.url.source(), deadline.as_millis()),
                )),
            },
            () = cancel.cancelled() => {
                interrupted = true;
                Err((ToolStatus::Failed, Outcome::Interrupted.describe()))
            }
        },
    };
    match outcome {
        Ok(result) => report.succeeded(RawJson::from(&result)),
        Err((ToolStatus::Error, error)) => report.answered_error(error),
        Err((status, error)) => {
            // How the call ended, for the messages that explain a failure.
            report.outcome = match status {
                ToolStatus::Timeout => Outcome::TimedOut {
                    after: deadline,
                    nothing_read: true,
                },
                _ if interrupted => Outcome::Interrupted,
                _ => Outcome::ServerFailed {
                    reason: format!("failed: {error}"),
                },
            };
            report.status = status;
            report.error = Some(error);
        }
    }
    report.duration_ms = started.elapsed().as_millis() as u64;
    report
}

type Failure = (ToolStatus, String);

/// Why a call's request could not be built (the call fails before it is sent).
#[derive(Debug, thiserror::Error)]
enum RequestError {
    #[error("`{0}` is not an HTTP method")]
    Method(String),
    #[error("the URL `{url}` is not valid: {error}")]
    InvalidUrl {
        url: String,
        error: <reqwest::Url as std::str::FromStr>::Err,
    },
    #[error("the URL `{0}` is not an http or https URL")]
    NotHttp(reqwest::Url),
    #[error("`{0}` is not a valid header name")]
    HeaderName(String),
    #[error("the value of header `{0}` is not valid in a header")]
    HeaderValue(reqwest::header::HeaderName),
    #[error("URL template: {0}")]
    UrlTemplate(TemplateError),
    #[error("header {name:?} template: {error}")]
    HeaderTemplate { name: String, error: TemplateError },
    #[error("body mapping failed: {0}")]
    BodyMapping(MappingError),
}

/// Why a JMESPath mapping (of a request's body or of the answer) failed.
#[derive(Debug, thiserror::Error)]
enum MappingError {
    #[error("{0}")]
    Jmespath(#[from] jmespath::JmespathError),
    #[error("{0}")]
    Json(#[from] serde_json::Error),
}

async fn send(tool: &HttpTool, request: reqwest::RequestBuilder) -> Result<Json, Failure> {
    let url = tool.url.source();
    let method = &tool.method;
    let mut response = request.send().await.map_err(|e| {
        (
            ToolStatus::Failed,
            format!("HTTP request to {method} {url} failed: {}", error_chain(&e)),
        )
    })?;
    let status = response.status();
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| {
        (
            ToolStatus::Failed,
            format!("reading the answer of {method} {url}: {}", error_chain(&e)),
        )
    })? {
        let room = MAX_RESPONSE - body.len();
        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if body.len() >= MAX_RESPONSE {
            break;
        }
    }
    let text = String::from_utf8_lossy(&body).into_owned();
    if !status.is_success() {
        let shown: String = text.chars().take(ERROR_BODY).collect();
        return Err((
            ToolStatus::Error,
            format!("HTTP request returned status {}: {shown}", status.as_u16()),
        ));
    }
    let result = match serde_json::from_str::<Json>(&text) {
        Ok(value) => redacted(value, &tool.redact),
        Err(_) => wrapped(text),
    };
    match &tool.response_mapping {
        Some(expr) => jmespath_search(expr, &result)
            .map_err(|e| (ToolStatus::Error, format!("response mapping failed: {e}"))),
        None => Ok(result),
    }
}

/// Top-level fields of an object answer replaced by `[REDACTED]`.
fn redacted(value: Json, fields: &[String]) -> Json {
    match value {
        Json::Object(mut map) => {
            for field in fields {
                if let Some(v) = map.get_mut(field) {
                    *v = Json::String("[REDACTED]".into());
                }
            }
            Json::Object(map)
        }
        other => other,
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

fn jmespath_search(expr: &str, data: &Json) -> Result<Json, MappingError> {
    let compiled = jmespath::compile(expr)?;
    let found = compiled.search(data)?;
    Ok(serde_json::to_value(&*found)?)
}

fn is_body_method(method: &str) -> bool {
    matches!(method, "POST" | "PUT" | "PATCH")
}

/// The request for `args`, as PromptKit builds it: with a `request` mapping the URL
/// is rendered and the arguments are split into query, headers and body; without
/// one, the arguments are the body of a POST, PUT or PATCH and the query of any
/// other method.
fn request(
    tool: &HttpTool,
    client: &reqwest::Client,
    args: &Json,
) -> Result<reqwest::RequestBuilder, RequestError> {
    let method = reqwest::Method::from_bytes(tool.method.as_bytes())
        .map_err(|_| RequestError::Method(tool.method.clone()))?;
    let object = match args {
        Json::Object(map) => map.clone(),
        _ => Map::new(),
    };
    let has_args = !object.is_empty();
    let mut headers: Vec<(String, String)> = Vec::new();
    let (url, query, body) = match &tool.request {
        Some(mapping) if has_args => mapped(tool, mapping, &object, &mut headers)?,
        _ => {
            let url = tool.url.source().to_string();
            if !has_args {
                (url, BTreeMap::new(), None)
            } else if is_body_method(&tool.method) {
                (url, BTreeMap::new(), Some(Json::Object(object)))
            } else {
                let query = object
                    .iter()
                    .map(|(k, v)| (k.clone(), query_value(v)))
                    .collect();
                (url, query, None)
            }
        }
    };
    let mut url = reqwest::Url::parse(&url).map_err(|error| RequestError::InvalidUrl {
        url: url.clone(),
        error,
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(RequestError::NotHttp(url));
    }
    if !query.is_empty() {
        let mut all: BTreeMap<String, String> = url
            .query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        all.extend(query);
        url.query_pairs_mut().clear().extend_pairs(all);
    }
    let mut request = client.request(method, url);
    let mut set = reqwest::header::HeaderMap::new();
    if let Some(body) = body {
        set.insert(
            reqwest::header::CONTENT_TYPE,
            reqwest::header::HeaderValue::from_static("application/json"),
        );
        request = request.body(body.to_string());
    }
    headers.extend(tool.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
    for (header, var) in &tool.headers_from_env {
        if let Ok(value) = std::env::var(var)
            && !value.is_empty()
        {
            headers.push((header.clone(), value));
        }
    }
    for (name, value) in headers {
        let name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| RequestError::HeaderName(name.clone()))?;
        let value = reqwest::header::HeaderValue::from_str(&value)
            .map_err(|_| RequestError::HeaderValue(name.clone()))?;
        // A later setting of a header replaces an earlier one, as Go's Header.Set does.
        set.insert(name, value);
    }
    Ok(request.headers(set))
}

type Parts = (String, BTreeMap<String, String>, Option<Json>);

fn mapped(
    tool: &HttpTool,
    mapping: &HttpRequestMapping,
    args: &Map<String, Json>,
    headers: &mut Vec<(String, String)>,
) -> Result<Parts, RequestError> {
    let data = Json::Object(args.clone());
    let url = if tool.url.has_actions() {
        tool.url
            .render(&data, Missing::NoValue)
            .map_err(RequestError::UrlTemplate)?
    } else {
        tool.url.source().to_string()
    };
    let mut excluded: Vec<String> = placeholders(tool.url.source());
    for t in mapping.header_params.values() {
        excluded.extend(placeholders(t.source()));
    }
    excluded.extend(mapping.exclude.iter().cloned());
    excluded.extend(mapping.query_params.iter().cloned());
    let mut query: BTreeMap<String, String> = mapping
        .query_params
        .iter()
        .filter_map(|k| Some((k.clone(), query_value(args.get(k)?))))
        .collect();
    query.extend(
        mapping
            .static_query
            .iter()
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    let body = if is_body_method(&tool.method) {
        let mut body: Map<String, Json> = args
            .iter()
            .filter(|(k, _)| !excluded.contains(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        body.extend(mapping.static_body.clone());
        match (&mapping.body_mapping, body.is_empty()) {
            (_, true) => None,
            (Some(expr), false) => Some(
                jmespath_search(expr, &Json::Object(body)).map_err(RequestError::BodyMapping)?,
            ),
            (None, false) => Some(Json::Object(body)),
        }
    } else {
        None
    };
    for (name, template) in &mapping.header_params {
        let value = template.render(&data, Missing::NoValue).map_err(|error| {
            RequestError::HeaderTemplate {
                name: name.clone(),
                error,
            }
        })?;
        headers.push((name.clone(), value));
    }
    headers.extend(
        mapping
            .static_headers
            .iter()
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    Ok((url, query, body))
}

/// The `{{ .name }}` placeholders of a template: the arguments it uses up.
fn placeholders(source: &str) -> Vec<String> {
    // A fixed pattern that compiles.
    let Ok(re) = Regex::new(r"\{\{\s*\.(\w+)\s*\}\}") else {
        return Vec::new();
    };
    re.captures_iter(source).map(|c| c[1].to_string()).collect()
}

/// An argument as a query value: text as it is, a whole number without a point.
fn query_value(value: &Json) -> String {
    match value {
        Json::String(s) => s.clone(),
        Json::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => format!("{}", f as i64),
            Some(f) => go_float(f),
            None => n.to_string(),
        },
        Json::Bool(b) => b.to_string(),
        Json::Null => String::new(),
        other => other.to_string(),
    }
}
