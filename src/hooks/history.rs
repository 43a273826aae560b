//! The conversation's messages, held once and shared: every payload, request and eval
//! input that shows the history holds the same list, so handing it on costs a
//! reference count, not a copy, however long the conversation is. Each message is
//! kept as its compact JSON text, a fraction of the memory of a parsed value; the
//! few readers that look inside one parse it then.

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value as Json;

/// The messages so far, in order. Cloning shares them; appending copies the list only
/// while an older view of it is still held somewhere, and then only its pointers:
/// each message's text is shared too, never copied.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History(Arc<Vec<Arc<str>>>);

/// A message back from the text [`History`] wrote; that text is always valid JSON.
fn parse(text: &str) -> Json {
    serde_json::from_str(text).unwrap_or_default()
}

impl History {
    pub fn push(&mut self, message: Json) {
        Arc::make_mut(&mut self.0).push(message.to_string().into());
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
        self.0.get(index).map(|text| parse(text))
    }

    /// Replaces message `index` (copying the list first if another view holds it).
    pub fn set(&mut self, index: usize, message: Json) {
        if let Some(slot) = Arc::make_mut(&mut self.0).get_mut(index) {
            *slot = message.to_string().into();
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
        self.0[from..].iter().map(|text| parse(text))
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
            iter.into_iter().map(|m| m.to_string().into()).collect(),
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
        assert!(
            Arc::ptr_eq(&view.0[0], &history.0[0]),
            "the copy shares the message"
        );
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
