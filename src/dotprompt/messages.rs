//! A render's parts (text, role changes, the history's place) folded into chat
//! messages the way dotprompt does it.

use serde::Serialize;

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Message {
    pub role: String,
    pub text: String,
}

impl Message {
    pub fn new(role: &str, text: impl Into<String>) -> Self {
        Message {
            role: role.to_string(),
            text: text.into(),
        }
    }
}

/// What a template rendered to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rendered {
    pub messages: Vec<Message>,
}

impl Rendered {
    /// The messages' text, one after another: the whole rendering when the template
    /// names no roles.
    pub fn text(&self) -> String {
        self.messages.iter().map(|m| m.text.as_str()).collect()
    }
}

/// What the renderer emits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Part {
    Text(String),
    Role(String),
    History,
}

/// Messages from parts: text goes to the current role (`user` at first); a role
/// change starts a new message unless the current one is still empty; the history
/// goes where `{{history}}` stands (the text after it is the model's), else before
/// the last message when that is the user's, else at the end. Text that is only
/// whitespace between two markers is dropped, as are empty messages.
pub(super) fn assemble(parts: Vec<Part>, history: &[Message]) -> Rendered {
    let mut messages: Vec<Message> = Vec::new();
    let mut current = Message::new("user", "");
    let mut placed_history = false;
    for part in parts {
        match part {
            Part::Text(text) if text.trim().is_empty() => {}
            Part::Text(text) => current.text.push_str(&text),
            Part::Role(role) if current.text.trim().is_empty() => current.role = role,
            Part::Role(role) => {
                messages.push(std::mem::replace(&mut current, Message::new(&role, "")))
            }
            Part::History => {
                messages.push(std::mem::replace(&mut current, Message::new("model", "")));
                messages.extend(history.iter().cloned());
                placed_history = true;
            }
        }
    }
    messages.push(current);
    messages.retain(|m| !m.text.is_empty());
    if !placed_history && !history.is_empty() {
        let at = match messages.last() {
            Some(last) if last.role == "user" => messages.len() - 1,
            _ => messages.len(),
        };
        messages.splice(at..at, history.iter().cloned());
    }
    Rendered { messages }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Part {
        Part::Text(s.into())
    }

    #[test]
    fn roles_split_messages_and_blank_pieces_vanish() {
        let parts = vec![
            Part::Role("system".into()),
            text("be brief\n"),
            text(""),
            Part::Role("user".into()),
            text("  \n"),
            Part::Role("model".into()),
            text("ok"),
        ];
        let rendered = assemble(parts, &[]);
        assert_eq!(
            rendered.messages,
            [
                Message::new("system", "be brief\n"),
                Message::new("model", "ok")
            ]
        );
    }

    #[test]
    fn history_goes_before_the_last_user_message_unless_placed() {
        let history = [Message::new("user", "hi"), Message::new("model", "hello")];
        let rendered = assemble(
            vec![
                Part::Role("system".into()),
                text("s"),
                Part::Role("user".into()),
                text("q"),
            ],
            &history,
        );
        let roles: Vec<_> = rendered.messages.iter().map(|m| m.role.as_str()).collect();
        assert_eq!(roles, ["system", "user", "model", "user"]);
        let placed = assemble(vec![text("s"), Part::History, text("after")], &history);
        let roles: Vec<_> = placed.messages.iter().map(|m| m.role.as_str()).collect();
        assert_eq!(roles, ["user", "user", "model", "model"]);
    }
}
