//! Mock tools (`mode: mock`): answered from the binding itself, with no process.

use std::time::Instant;

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
/// that fails is a tool error, placed in the template.
pub fn call_mock(name: &str, tool: &MockTool, args: &Json) -> ToolReport {
    let started = Instant::now();
    let mut report = ToolReport::new(name, ToolMode::Mock);
    match answer(tool, args) {
        Ok(result) => report.succeeded(RawJson::from(&result)),
        Err(error) => report.answered_error(error),
    }
    report.duration_ms = started.elapsed().as_millis() as u64;
    report
}

fn answer(tool: &MockTool, args: &Json) -> Result<Json, String> {
    match &tool.answer {
        MockAnswer::Result(value) => Ok(value.clone()),
        MockAnswer::Default => Ok(wrapped(DEFAULT_RESULT.to_string())),
        MockAnswer::Template(template) => {
            // `null` decodes to an empty map in Go: every key is missing.
            let empty = Json::Object(Map::new());
            let args = match args {
                Json::Object(_) => args,
                Json::Null => &empty,
                _ => return Err("mock_template: the arguments are not a JSON object".into()),
            };
            let text = template
                .render(args, Missing::Zero)
                .map_err(|e| format!("mock_template: {e}"))?;
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
    fn a_failing_template_is_a_tool_error() {
        let report = call_mock("t", &template("{{ .a.b }}"), &json!({}));
        assert_eq!(report.status, super::super::ToolStatus::Error);
        assert_eq!(
            report.error.as_deref(),
            Some("mock_template: 1:4: nil pointer evaluating interface {}.b")
        );
    }
}
