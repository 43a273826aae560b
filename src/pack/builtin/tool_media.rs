//! Checks on the media a tool returned beside its result (its content parts, such
//! as a mock tool's `mock_parts`): that a call returned a part of some kind, and
//! that one of its media parts has some MIME type.

use serde_json::{Value as Json, json};

use super::{Judge, ParamError, Params, verdict};
use crate::conversation::{EvalInput, ToolCallRecord};

const TOOL: &[&str] = &["tool", "tool_name"];

/// The judged calls of `tool` (of any tool when none is named).
fn calls_of<'i>(
    input: &'i EvalInput,
    tool: Option<&'i str>,
) -> impl Iterator<Item = &'i ToolCallRecord> {
    input
        .tool_calls
        .iter()
        .filter(move |c| tool.is_none_or(|t| c.name == t))
}

/// The first call of `tool` with a part that `wanted` accepts.
fn first_with<'i>(
    input: &'i EvalInput,
    tool: Option<&'i str>,
    wanted: impl Fn(&Json) -> bool,
) -> Option<&'i ToolCallRecord> {
    calls_of(input, tool).find(|c| c.parts.iter().any(&wanted))
}

/// A part's field as text, when it is text.
fn text_at<'j>(part: &'j Json, pointer: &str) -> Option<&'j str> {
    part.pointer(pointer).and_then(Json::as_str)
}

/// `tool_result_has_media`: a call of `tool` (any tool when none is named)
/// returned a part whose type is `media_type` (`image`, `audio`, `video`,
/// `document`; compared without regard to case).
pub(super) fn has_media(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[TOOL, &["media_type"]])?;
    let tool = p.string(TOOL)?;
    let media_type = p.required_string(&["media_type"])?;
    Ok(Box::new(move |input| {
        let found = first_with(input, tool.as_deref(), |part| {
            text_at(part, "/type").is_some_and(|t| t.eq_ignore_ascii_case(&media_type))
        });
        let name = found.map(|c| c.name.as_str()).or(tool.as_deref());
        Ok(verdict(
            found.is_some(),
            format!(
                "tool `{}` returned a part of type `{media_type}`",
                name.unwrap_or_default()
            ),
            format!("no tool result has a part of type `{media_type}`"),
            json!({"tool": name, "media_type": media_type, "found": found.is_some()}),
        ))
    }))
}

/// `tool_result_media_type`: a call of `tool` (any tool when none is named)
/// returned a part other than text whose `media.mime_type` is `mime_type`
/// (compared without regard to case).
pub(super) fn media_type(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[TOOL, &["mime_type"]])?;
    let tool = p.string(TOOL)?;
    let mime_type = p.required_string(&["mime_type"])?;
    Ok(Box::new(move |input| {
        let found = first_with(input, tool.as_deref(), |part| {
            text_at(part, "/type") != Some("text")
                && text_at(part, "/media/mime_type")
                    .is_some_and(|m| m.eq_ignore_ascii_case(&mime_type))
        });
        let name = found.map(|c| c.name.as_str()).or(tool.as_deref());
        Ok(verdict(
            found.is_some(),
            format!(
                "tool `{}` returned media of MIME type `{mime_type}`",
                name.unwrap_or_default()
            ),
            format!("no tool result has media of MIME type `{mime_type}`"),
            json!({"tool": name, "mime_type": mime_type, "found": found.is_some()}),
        ))
    }))
}
