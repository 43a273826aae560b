//! A saved conversation read whole, to judge it rather than replay it: PromptArena's
//! run output (a `Messages` list) or a session recording (`events`, each message
//! either a `message` event with `message`, or a `message.created` event with
//! `data`). Keys are matched in any letter case, as PromptKit's decoder matches them;
//! a problem is reported as `FILE:LINE:COL: message`.

use std::path::Path;

use super::json_object::Object;
use crate::doc::{Diagnostic, Diagnostics};

/// One message of a saved conversation: its role and its text.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedMessage {
    pub role: String,
    pub content: String,
}

/// Reads the conversation saved at `path`, in file order.
pub fn saved_conversation(path: &Path) -> Result<Vec<SavedMessage>, Diagnostics> {
    let text = std::fs::read_to_string(path).map_err(|err| {
        Diagnostics::from(Diagnostic::whole_file(
            path,
            format!("cannot read file: {err}"),
        ))
    })?;
    read(path, &text).map_err(Diagnostics::from)
}

fn read(path: &Path, text: &str) -> Result<Vec<SavedMessage>, Diagnostic> {
    let top = Object::whole(path, text, "a saved conversation (a JSON object)")?;
    if top.has("messages") {
        return top
            .objects("messages", "a message object")?
            .iter()
            .map(message)
            .collect();
    }
    if !top.has("events") {
        return Err(Diagnostic::whole_file(
            path,
            "not a saved conversation: expected `Messages` (a PromptArena run output) or `events` (a session recording)",
        ));
    }
    let mut out = Vec::new();
    for event in top.objects("events", "an event object")? {
        let kind: String = event.require("type")?;
        let field = match kind.as_str() {
            "message" => "message",
            "message.created" => "data",
            _ => continue,
        };
        match event.object(field, "a message object")? {
            Some(data) => out.push(message(&data)?),
            None => return Err(event.missing(field)),
        }
    }
    Ok(out)
}

/// A message's role and text: its `content`, else the text of its `parts`.
fn message(data: &Object<'_>) -> Result<SavedMessage, Diagnostic> {
    let role: String = data.require("role")?;
    let mut content: String = data.get("content")?.unwrap_or_default();
    if content.is_empty() {
        for part in data.objects("parts", "a part object")? {
            content.push_str(&part.get::<String>("text")?.unwrap_or_default());
        }
    }
    Ok(SavedMessage { role, content })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roles(text: &str) -> Vec<(String, String)> {
        read(Path::new("saved.json"), text)
            .expect("reads")
            .into_iter()
            .map(|m| (m.role, m.content))
            .collect()
    }

    #[test]
    fn a_run_output_and_a_session_recording_read_alike() {
        let output = r#"{"Messages": [{"role": "user", "content": "hi"}, {"Role": "assistant", "parts": [{"type": "text", "text": "hello"}]}]}"#;
        let session = r#"{"events": [{"type": "message", "message": {"role": "user", "content": "hi"}}, {"type": "tool.called"}, {"type": "message.created", "data": {"Role": "assistant", "Content": "hello"}}]}"#;
        let want = vec![
            ("user".to_string(), "hi".to_string()),
            ("assistant".to_string(), "hello".to_string()),
        ];
        assert_eq!(roles(output), want);
        assert_eq!(roles(session), want);
    }

    #[test]
    fn a_message_without_a_role_is_placed() {
        let problem = read(
            Path::new("saved.json"),
            "{\"events\": [\n  {\"type\": \"message\", \"message\": {\"content\": \"hi\"}}]}",
        )
        .expect_err("refused");
        assert!(
            problem.to_string().starts_with("saved.json:2:"),
            "{problem}"
        );
        assert!(problem.to_string().contains("`role`"), "{problem}");
    }
}
