//! A rendered prompt placed into a list of chat messages the way an agent injects
//! one: as the system prompt, or before or after what the user says.
//!
//! The system prompt goes first, as PromptKit sends it: when the list already opens
//! with a system message, the prompt is put before that message's content, the two
//! separated by a blank line; otherwise it becomes a new first system message.

use std::path::Path;

use serde_json::{Map, Value as Json, json};

use crate::doc::{Diagnostic, Diagnostics, Node, Value, parse_json};
use crate::dotprompt::Message;

/// Where the rendered prompt goes (`--as`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// The system prompt.
    System,
    /// Before the first user message's content.
    Prefix,
    /// After the last user message's content.
    Suffix,
}

/// A list of chat messages read from a file: a JSON list, or an object whose
/// `messages` is one. The object's other keys are kept.
#[derive(Debug, Clone)]
pub struct ChatMessages {
    messages: Vec<Json>,
    /// The object the list was in, when it was in one.
    wrapper: Option<Map<String, Json>>,
}

impl ChatMessages {
    /// No messages yet.
    pub fn empty() -> Self {
        Self {
            messages: Vec::new(),
            wrapper: None,
        }
    }

    /// Reads `text`; `path` names it in messages. Each message is an object with a
    /// string `role` and a `content` that is a string or a list of parts.
    pub fn parse(path: &Path, text: &str) -> Result<Self, Diagnostics> {
        let root = parse_json(path, text).map_err(Diagnostics::from)?;
        let (list, wrapper) = match &root.value {
            Value::Seq(_) => (&root, None),
            Value::Map(entries) => match entries.iter().find(|(k, _)| k.name == "messages") {
                Some((_, list)) => match root.to_json() {
                    Json::Object(map) => (list, Some(map)),
                    _ => (list, None),
                },
                None => {
                    return Err(at(path, &root, "expected a `messages` list in this object"));
                }
            },
            _ => {
                return Err(at(
                    path,
                    &root,
                    format!(
                        "expected a list of chat messages (or an object with `messages`), found {}",
                        root.kind()
                    ),
                ));
            }
        };
        let Value::Seq(items) = &list.value else {
            return Err(at(
                path,
                list,
                format!("`messages` must be a list, found {}", list.kind()),
            ));
        };
        let mut problems = Diagnostics::default();
        for item in items {
            if let Some(why) = refuse_message(item) {
                problems.push(Diagnostic::error(path, item.pos, why));
            }
        }
        if problems.has_errors() {
            return Err(problems);
        }
        Ok(Self {
            messages: items.iter().map(Node::to_json).collect(),
            wrapper,
        })
    }

    /// Places the rendered messages: those of the `system` role always join the
    /// system prompt; the texts of the others, in order and separated by blank
    /// lines, go where `placement` says (with `System`, into the system prompt too).
    /// Each text is placed without the line breaks it starts or ends with.
    pub fn inject(&mut self, rendered: &[Message], placement: Placement) {
        let texts = |system: bool| -> Vec<&str> {
            rendered
                .iter()
                .filter(|m| (m.role == "system") == system)
                .map(|m| m.text.trim_matches('\n'))
                .collect()
        };
        let (system, rest) = if placement == Placement::System {
            (
                rendered.iter().map(|m| m.text.trim_matches('\n')).collect(),
                vec![],
            )
        } else {
            (texts(true), texts(false))
        };
        if !system.is_empty() {
            self.system_prompt(&system.join("\n\n"));
        }
        if rest.is_empty() {
            return;
        }
        let text = rest.join("\n\n");
        let target = match placement {
            Placement::Prefix => self.messages.iter().position(is_user),
            _ => self.messages.iter().rposition(is_user),
        };
        match target {
            Some(i) => join_content(&mut self.messages[i], &text, placement == Placement::Prefix),
            None => self.messages.push(json!({"role": "user", "content": text})),
        }
    }

    /// `text` before the first system message's content, or as a new first message.
    fn system_prompt(&mut self, text: &str) {
        match self.messages.first_mut() {
            Some(first) if first.get("role").and_then(Json::as_str) == Some("system") => {
                join_content(first, text, true);
            }
            _ => self
                .messages
                .insert(0, json!({"role": "system", "content": text})),
        }
    }

    /// The messages in the shape they were read in.
    pub fn to_json(&self) -> Json {
        let list = Json::Array(self.messages.clone());
        match &self.wrapper {
            Some(map) => {
                let mut map = map.clone();
                map.insert("messages".into(), list);
                Json::Object(map)
            }
            None => list,
        }
    }
}

fn at(path: &Path, node: &Node, message: impl Into<String>) -> Diagnostics {
    Diagnostic::error(path, node.pos, message).into()
}

/// Why `node` is not a chat message.
fn refuse_message(node: &Node) -> Option<String> {
    let Value::Map(entries) = &node.value else {
        return Some(format!(
            "a chat message is an object with `role` and `content`, found {}",
            node.kind()
        ));
    };
    let field = |name: &str| entries.iter().find(|(k, _)| k.name == name).map(|(_, n)| n);
    match field("role") {
        Some(role) if role.as_str().is_some() => {}
        Some(role) => return Some(format!("`role` must be a string, found {}", role.kind())),
        None => return Some("this message has no `role`".into()),
    }
    match field("content") {
        None
        | Some(Node {
            value: Value::Str(_) | Value::Seq(_) | Value::Null,
            ..
        }) => None,
        Some(other) => Some(format!(
            "`content` must be a string or a list of parts, found {}",
            other.kind()
        )),
    }
}

fn is_user(message: &Json) -> bool {
    message.get("role").and_then(Json::as_str) == Some("user")
}

/// `text` joined to the message's content, before it or after it, with a blank line
/// between; a content of parts gets a text part of its own.
fn join_content(message: &mut Json, text: &str, before: bool) {
    let Some(object) = message.as_object_mut() else {
        return;
    };
    let content = object.entry("content").or_insert(Json::Null);
    match content {
        Json::String(old) if !old.is_empty() => {
            *old = if before {
                format!("{text}\n\n{old}")
            } else {
                format!("{old}\n\n{text}")
            };
        }
        Json::Array(parts) => {
            let part = json!({"type": "text", "text": text});
            if before {
                parts.insert(0, part);
            } else {
                parts.push(part);
            }
        }
        _ => *content = Json::String(text.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> ChatMessages {
        ChatMessages::parse(Path::new("m.json"), text).expect("reads")
    }

    fn plain(text: &str) -> Vec<Message> {
        vec![Message::new("user", text)]
    }

    #[test]
    fn the_system_prompt_goes_before_an_existing_one_or_first() {
        let mut with =
            read(r#"[{"role":"system","content":"Old."},{"role":"user","content":"Hi"}]"#);
        with.inject(&plain("New."), Placement::System);
        assert_eq!(
            with.to_json(),
            json!([{"role":"system","content":"New.\n\nOld."},{"role":"user","content":"Hi"}])
        );
        let mut without = read(r#"{"model":"m","messages":[{"role":"user","content":"Hi"}]}"#);
        without.inject(&plain("New."), Placement::System);
        assert_eq!(
            without.to_json(),
            json!({"model":"m","messages":[{"role":"system","content":"New."},{"role":"user","content":"Hi"}]})
        );
    }

    #[test]
    fn prefix_and_suffix_join_the_first_and_last_user_messages() {
        let text = r#"[{"role":"user","content":"A"},{"role":"assistant","content":"B"},{"role":"user","content":[{"type":"text","text":"C"}]}]"#;
        let mut pre = read(text);
        pre.inject(&plain("P"), Placement::Prefix);
        assert_eq!(pre.to_json()[0]["content"], "P\n\nA");
        let mut post = read(text);
        post.inject(&plain("S"), Placement::Suffix);
        assert_eq!(
            post.to_json()[2]["content"],
            json!([{"type":"text","text":"C"},{"type":"text","text":"S"}])
        );
        let mut empty = ChatMessages::empty();
        empty.inject(&plain("S"), Placement::Suffix);
        assert_eq!(empty.to_json(), json!([{"role":"user","content":"S"}]));
    }

    #[test]
    fn roles_of_a_rendered_prompt_keep_system_text_in_the_system_prompt() {
        let rendered = vec![
            Message::new("system", "Rules."),
            Message::new("user", "Context."),
        ];
        let mut msgs = read(r#"[{"role":"user","content":"Q"}]"#);
        msgs.inject(&rendered, Placement::Prefix);
        assert_eq!(
            msgs.to_json(),
            json!([{"role":"system","content":"Rules."},{"role":"user","content":"Context.\n\nQ"}])
        );
    }

    #[test]
    fn a_message_that_is_not_one_is_refused_where_it_stands() {
        let err = ChatMessages::parse(Path::new("m.json"), "[\n  {\"content\": \"x\"}\n]")
            .expect_err("refused");
        let said = err.to_string();
        assert!(said.contains("2:3") && said.contains("no `role`"), "{said}");
        assert!(ChatMessages::parse(Path::new("m.json"), "{\"a\": 1}").is_err());
    }
}
