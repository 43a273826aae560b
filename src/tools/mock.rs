//! Mock tools (`mode: mock`): answered from the binding itself, with no process.

use std::time::Instant;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value as Json};

use crate::config::{MockAnswer, MockTool};
use crate::exec::RawJson;
use crate::go_template::Missing;

use super::{ToolMode, ToolReport};

/// PromptKit's answer for a mock tool that gives neither a result nor a template.
const DEFAULT_RESULT: &str = "mock response";

/// Answers one call of mock tool `name`: its `mock_result`, or its `mock_template`
/// rendered against `args` (the output is the result when it parses as JSON, with
/// object keys in order as Go writes them, else `{"result": OUTPUT}`). A template
/// that fails is a tool error, placed in the template. Its `mock_parts` come back
/// beside the result, each media `file_path` read (from the working directory) into
/// base64 `data`; a file that cannot be read makes the call an error.
pub fn call_mock(name: &str, tool: &MockTool, args: &Json) -> ToolReport {
    let started = Instant::now();
    let mut report = ToolReport::new(name, ToolMode::Mock);
    let answered = answer(tool, args).and_then(|result| {
        let parts = resolve_parts(tool.parts.as_ref()).map_err(|e| MockError::Parts {
            tool: name.to_string(),
            reason: Box::new(e),
        })?;
        Ok((result, parts))
    });
    match answered {
        Ok((result, parts)) => {
            report.succeeded(RawJson::from(&result));
            report.parts = parts;
        }
        Err(error) => report.answered_error(error.to_string()),
    }
    report.duration_ms = started.elapsed().as_millis() as u64;
    report
}

/// Why a mock call could not be answered.
#[derive(Debug, thiserror::Error)]
enum MockError {
    #[error("mock_template: the arguments are not a JSON object")]
    NotAnObject,
    #[error("mock_template: {0}")]
    Template(String),
    #[error("failed to resolve mock_parts for tool {tool}: {reason}")]
    Parts {
        tool: String,
        reason: Box<MockError>,
    },
    #[error("failed to read file {path}: {source}")]
    File {
        path: String,
        source: std::io::Error,
    },
}

/// The parts as written, except that a media part naming a non-empty `file_path`
/// carries the file's bytes as base64 `data` instead; URLs and data given stay as
/// they are.
fn resolve_parts(parts: Option<&Json>) -> Result<Vec<Json>, MockError> {
    let Some(Json::Array(parts)) = parts else {
        return Ok(Vec::new());
    };
    parts
        .iter()
        .map(|part| {
            let mut part = part.clone();
            let path = match part.pointer("/media/file_path") {
                Some(Json::String(path)) if !path.is_empty() => path.clone(),
                _ => return Ok(part),
            };
            let bytes = std::fs::read(&path).map_err(|source| MockError::File { path, source })?;
            if let Some(Json::Object(media)) = part.get_mut("media") {
                media.remove("file_path");
                media.insert("data".into(), Json::String(STANDARD.encode(&bytes)));
            }
            Ok(part)
        })
        .collect()
}

fn answer(tool: &MockTool, args: &Json) -> Result<Json, MockError> {
    match &tool.answer {
        MockAnswer::Result(value) => Ok(value.clone()),
        MockAnswer::Default => Ok(wrapped(DEFAULT_RESULT.to_string())),
        MockAnswer::Template(template) => {
            // `null` decodes to an empty map in Go: every key is missing.
            let empty = Json::Object(Map::new());
            let args = match args {
                Json::Object(_) => args,
                Json::Null => &empty,
                _ => return Err(MockError::NotAnObject),
            };
            let text = template
                .render(args, Missing::Zero)
                .map_err(|e| MockError::Template(e.to_string()))?;
            Ok(match serde_json::from_str::<Json>(&text) {
                Ok(value) => sorted(value),
                Err(_) => wrapped(text),
            })
        }
    }
}

/// `{"result": text}`: how PromptKit passes on an answer that is not JSON.
pub(crate) fn wrapped(text: String) -> Json {
    let mut map = Map::new();
    map.insert("result".into(), Json::String(text));
    Json::Object(map)
}

/// Object keys in byte order, at every depth (Go re-encodes a decoded map so).
fn sorted(value: Json) -> Json {
    match value {
        Json::Object(map) => {
            let mut entries: Vec<(String, Json)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Json::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Json::Array(items) => Json::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go_template::Template;
    use serde_json::json;

    fn mock(answer: MockAnswer) -> MockTool {
        MockTool {
            answer,
            parts: None,
            timeout: None,
        }
    }

    fn template(src: &str) -> MockTool {
        mock(MockAnswer::Template(Template::parse(src).expect("parses")))
    }

    fn result(report: &ToolReport) -> Json {
        serde_json::to_value(report.result.as_ref().expect("a result")).expect("json")
    }

    #[test]
    fn a_static_result_is_the_answer() {
        let report = call_mock("t", &mock(MockAnswer::Result(json!({"a": 1}))), &json!({}));
        assert_eq!(report.status, super::super::ToolStatus::Ok);
        assert_eq!(result(&report), json!({"a": 1}));
        assert_eq!(report.mode, ToolMode::Mock);
    }

    #[test]
    fn nothing_given_answers_as_promptkit_does() {
        let report = call_mock("t", &mock(MockAnswer::Default), &json!({}));
        assert_eq!(result(&report), json!({"result": "mock response"}));
    }

    #[test]
    fn template_output_is_json_when_it_parses_else_text() {
        let t = template(r#"{"z": "{{ .id }}", "a": [{"y": 1, "b": 2}]}"#);
        let report = call_mock("t", &t, &json!({"id": "X"}));
        let text = serde_json::to_string(report.result.as_ref().expect("a result")).expect("json");
        assert_eq!(text, r#"{"a":[{"b":2,"y":1}],"z":"X"}"#);
        let t = template("Hello {{ .name }}");
        assert_eq!(
            result(&call_mock("t", &t, &json!({"name": "Ann"}))),
            json!({"result": "Hello Ann"})
        );
    }

    #[test]
    fn null_arguments_are_an_empty_map() {
        let t = template("[{{ .a }}]");
        assert_eq!(
            result(&call_mock("t", &t, &Json::Null)),
            json!({"result": "[<no value>]"})
        );
        let report = call_mock("t", &t, &json!([1]));
        assert_eq!(
            report.error.as_deref(),
            Some("mock_template: the arguments are not a JSON object")
        );
    }

    #[test]
    fn mock_parts_come_back_with_files_read_into_data() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let file = dir.path().join("chart.png");
        std::fs::write(&file, b"foobar").expect("written");
        let mut tool = mock(MockAnswer::Result(json!({"a": 1})));
        tool.parts = Some(json!([
            {"type": "text", "text": "a chart"},
            {"type": "image", "media": {"file_path": file.to_str(), "mime_type": "image/png", "width": 8}},
            {"type": "image", "media": {"url": "https://example.com/x.png", "mime_type": "image/png"}},
        ]));
        let report = call_mock("t", &tool, &json!({}));
        assert_eq!(result(&report), json!({"a": 1}));
        assert_eq!(
            report.parts,
            vec![
                json!({"type": "text", "text": "a chart"}),
                json!({"type": "image", "media": {"mime_type": "image/png", "width": 8, "data": "Zm9vYmFy"}}),
                json!({"type": "image", "media": {"url": "https://example.com/x.png", "mime_type": "image/png"}}),
            ]
        );
        tool.parts = Some(json!([{"type": "image", "media": {"file_path": "/no/such/file.png"}}]));
        let report = call_mock("t", &tool, &json!({}));
        assert_eq!(report.status, super::super::ToolStatus::Error);
        let error = report.error.expect("an error");
        assert!(
            error.starts_with(
                "failed to resolve mock_parts for tool t: failed to read file /no/such/file.png"
            ),
            "{error}"
        );
    }

    #[test]
    fn a_failing_template_is_a_tool_error() {
        let report = call_mock("t", &template("{{ .a.b }}"), &json!({}));
        assert_eq!(report.status, super::super::ToolStatus::Error);
        assert_eq!(
            report.error.as_deref(),
            Some("mock_template: 1:4: nil pointer evaluating interface {}.b")
        );
    }
}
