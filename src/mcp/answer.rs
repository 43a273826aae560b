//! An MCP tool's answer in the shape every tool call has: structured content when the
//! tool gave it, else its text; `isError` makes it the tool's own error.

use serde_json::{Value as Json, json};

use crate::exec::RawJson;
use crate::tools::ToolReport;

/// Records `result` (a `tools/call` result, as JSON) on `report`.
pub(super) fn settle(report: &mut ToolReport, result: &Json) {
    let blocks = result["content"].as_array().map_or(&[][..], Vec::as_slice);
    let texts: Vec<&str> = blocks.iter().filter_map(|b| b["text"].as_str()).collect();
    let text = texts.join("\n");
    if result["isError"] == json!(true) {
        let error = if text.is_empty() {
            "the tool reported an error and gave no text".to_string()
        } else {
            text
        };
        report.answered_error(error);
        return;
    }
    let value = match result.get("structuredContent") {
        Some(structured) if !structured.is_null() => structured.clone(),
        // Images, audio and resources are passed on whole; text alone as text.
        _ if texts.len() == blocks.len() => Json::String(text),
        _ => Json::Array(blocks.to_vec()),
    };
    report.succeeded(RawJson::from(&value));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{ToolMode, ToolStatus};

    fn settled(result: Json) -> ToolReport {
        let mut report = ToolReport::new("mcp__demo__t", ToolMode::Mcp);
        settle(&mut report, &result);
        report
    }

    #[test]
    fn structured_content_wins_over_its_text_rendering() {
        let report = settled(json!({
            "content": [{"type": "text", "text": "{\"sum\": 3}"}],
            "structuredContent": {"sum": 3}
        }));
        assert_eq!(report.status, ToolStatus::Ok);
        assert_eq!(report.result.expect("result").to_string(), r#"{"sum":3}"#);
    }

    #[test]
    fn text_blocks_are_joined_and_is_error_is_the_tools_error() {
        let ok = settled(
            json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}),
        );
        assert_eq!(ok.result.expect("result").to_string(), r#""a\nb""#);
        let failed =
            settled(json!({"content": [{"type": "text", "text": "boom"}], "isError": true}));
        assert_eq!(failed.status, ToolStatus::Error);
        assert_eq!(failed.error.as_deref(), Some("boom"));
    }

    #[test]
    fn other_blocks_are_kept_whole() {
        let image = json!({"type": "image", "data": "AAAA", "mimeType": "image/png"});
        let report = settled(json!({"content": [image.clone()]}));
        assert_eq!(
            report.result.expect("result").to_string(),
            json!([image]).to_string()
        );
    }
}
