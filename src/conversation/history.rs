//! The conversation's messages, held once and shared: every payload, request and eval
//! input that shows the history holds the same list, so handing it on costs a
//! reference count, not a copy, however long the conversation is. A plain text
//! message (role, content, and the same text in `parts`) is kept as its role and
//! text; any other as its compact JSON text, a fraction of the memory of a parsed
//! value. The few readers that look inside one get it back as JSON then.

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value as Json;

/// The messages so far, in order. Cloning shares them; appending copies the list only
/// while an older view of it is still held somewhere, and then only its pointers:
/// each message's text is shared too, never copied.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History(Arc<Vec<Stored>>);

/// One message as [`History`] keeps it.
#[derive(Debug, Clone, PartialEq)]
enum Stored {
    /// Exactly `messages::message(role, text)`, which most messages are.
    Text(Role, Arc<str>),
    /// Anything else, as compact JSON text.
    Json(Arc<str>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    const ALL: [Role; 3] = [Role::System, Role::User, Role::Assistant];

    fn name(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

impl Stored {
    fn new(message: &Json) -> Stored {
        match plain_text(message) {
            Some((role, text)) => Stored::Text(role, text.into()),
            None => Stored::Json(message.to_string().into()),
        }
    }

    fn to_json(&self) -> Json {
        match self {
            Stored::Text(role, text) => super::messages::message(role.name(), text),
            // Text this type wrote, so always valid JSON.
            Stored::Json(text) => serde_json::from_str(text).unwrap_or_default(),
        }
    }
}

/// The role and text of a message that is exactly `messages::message(role, text)`,
/// keys in that order, so that it reads back the same.
fn plain_text(message: &Json) -> Option<(Role, &str)> {
    let fields = message.as_object()?;
    let mut entries = fields.iter();
    let (Some(("role", role)), Some(("content", content)), Some(("parts", parts)), None) = (
        entries.next().map(|(k, v)| (k.as_str(), v)),
        entries.next().map(|(k, v)| (k.as_str(), v)),
        entries.next().map(|(k, v)| (k.as_str(), v)),
        entries.next(),
    ) else {
        return None;
    };
    let role = Role::ALL
        .into_iter()
        .find(|r| role.as_str() == Some(r.name()))?;
    let text = content.as_str()?;
    let [part] = parts.as_array()?.as_slice() else {
        return None;
    };
    let part = part.as_object()?;
    let same = part.len() == 2
        && part.keys().eq(["type", "text"])
        && part["type"] == "text"
        && part["text"].as_str() == Some(text);
    same.then_some((role, text))
}

impl History {
    pub fn push(&mut self, message: Json) {
        Arc::make_mut(&mut self.0).push(Stored::new(&message));
    }

    /// Room for `additional` more messages.
    pub fn reserve(&mut self, additional: usize) {
        Arc::make_mut(&mut self.0).reserve(additional);
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn get(&self, index: usize) -> Option<Json> {
        self.0.get(index).map(Stored::to_json)
    }

    /// Replaces message `index` (copying the list first if another view holds it).
    pub fn set(&mut self, index: usize, message: Json) {
        if let Some(slot) = Arc::make_mut(&mut self.0).get_mut(index) {
            *slot = Stored::new(&message);
        }
    }

    /// Every message, parsed as it is reached.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = Json> + ExactSizeIterator + '_ {
        self.since(0)
    }

    /// The messages from `index` on, parsed as they are reached; none past the end.
    pub fn since(
        &self,
        index: usize,
    ) -> impl DoubleEndedIterator<Item = Json> + ExactSizeIterator + '_ {
        let from = index.min(self.0.len());
        self.0[from..].iter().map(Stored::to_json)
    }

    pub fn to_vec(&self) -> Vec<Json> {
        self.iter().collect()
    }

    /// The first `len` messages; shared when that is all of them.
    pub fn prefix(&self, len: usize) -> History {
        if len >= self.0.len() {
            return self.clone();
        }
        History(Arc::new(self.0[..len].to_vec()))
    }
}

impl From<Vec<Json>> for History {
    fn from(messages: Vec<Json>) -> Self {
        messages.into_iter().collect()
    }
}

impl FromIterator<Json> for History {
    fn from_iter<I: IntoIterator<Item = Json>>(iter: I) -> Self {
        Self(Arc::new(
            iter.into_iter().map(|m| Stored::new(&m)).collect(),
        ))
    }
}

/// A list of messages on the wire, as it always was.
impl Serialize for History {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for History {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<Json>::deserialize(deserializer).map(History::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn clones_share_the_messages_until_one_appends() {
        let mut history: History = vec![json!({"role": "user"})].into();
        let view = history.clone();
        assert!(Arc::ptr_eq(&view.0, &history.0));
        history.push(json!({"role": "assistant", "n": 1.5}));
        assert_eq!((view.len(), history.len()), (1, 2));
        assert_eq!(history.prefix(1), view);
        assert!(Arc::ptr_eq(&history.prefix(9).0, &history.0));
        assert_eq!(history.get(1), Some(json!({"role": "assistant", "n": 1.5})));
        assert_eq!(history.since(1).count(), 1);
        assert_eq!(history.since(7).count(), 0);
        history.set(0, json!({"role": "user", "content": "x"}));
        assert_eq!(
            view.get(0),
            Some(json!({"role": "user"})),
            "the view keeps its own"
        );
    }

    #[test]
    fn appending_while_a_view_is_held_copies_no_message_text() {
        let mut history: History = vec![json!({"role": "user", "content": "hi"})].into();
        let view = history.clone();
        history.push(json!({"role": "assistant"}));
        assert!(!Arc::ptr_eq(&view.0, &history.0), "the list was copied");
        let (Stored::Json(held), Stored::Json(copied)) = (&view.0[0], &history.0[0]) else {
            panic!("a message with no parts is kept as JSON text")
        };
        assert!(Arc::ptr_eq(held, copied), "the copy shares the message");
    }

    #[test]
    fn plain_text_messages_are_kept_as_their_text_and_read_back_the_same() {
        let plain = super::super::messages::message("user", "hi \"there\"");
        let history: History = vec![plain.clone()].into();
        assert!(
            matches!(&history.0[0], Stored::Text(Role::User, text) if &**text == "hi \"there\"")
        );
        assert_eq!(history.get(0), Some(plain.clone()));
        assert_eq!(
            serde_json::to_string(&history).expect("writes"),
            format!("[{plain}]")
        );
    }

    #[test]
    fn other_messages_keep_their_exact_json() {
        let others = [
            // parts that say something else
            json!({"role": "user", "content": "hi", "parts": [{"type": "text", "text": "ho"}]}),
            // keys in another order
            json!({"content": "hi", "role": "user", "parts": [{"type": "text", "text": "hi"}]}),
            json!({"role": "user", "content": "hi", "parts": [{"text": "hi", "type": "text"}]}),
            // a role that is not one of the three, and extra fields
            json!({"role": "tool", "content": "hi", "parts": [{"type": "text", "text": "hi"}]}),
            json!({"role": "user", "content": "hi", "parts": [{"type": "text", "text": "hi"}], "x": 1}),
            json!({"role": "user", "content": "hi", "parts": [{"type": "text", "text": "hi", "x": 1}]}),
            json!({"role": "user", "content": "hi", "parts": []}),
        ];
        let history: History = others.to_vec().into();
        for (i, message) in others.iter().enumerate() {
            assert!(matches!(history.0[i], Stored::Json(_)), "{message}");
            assert_eq!(
                history.get(i).map(|m| m.to_string()),
                Some(message.to_string()),
                "read back in the same order"
            );
        }
    }

    #[test]
    fn it_reads_and_writes_as_a_plain_list() {
        let text = r#"[{"role":"user","content":"hi","parts":[{"type":"text","text":"hi"}]}]"#;
        let history: History = serde_json::from_str(text).expect("a list");
        assert_eq!(serde_json::to_string(&history).expect("writes"), text);
        let value: Json = serde_json::from_str(text).expect("JSON");
        assert_eq!(
            serde_json::to_string_pretty(&history).expect("writes"),
            serde_json::to_string_pretty(&value).expect("writes")
        );
    }
}
