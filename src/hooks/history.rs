//! The conversation's messages, held once and shared: every payload, request and eval
//! input that shows the history holds the same list, so handing it on costs a
//! reference count, not a copy, however long the conversation is.

use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value as Json;

/// The messages so far, in order. Cloning shares them; appending copies the list only
/// while an older view of it is still held somewhere.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History(Arc<Vec<Json>>);

impl History {
    pub fn push(&mut self, message: Json) {
        Arc::make_mut(&mut self.0).push(message);
    }

    /// The messages to change in place (copied first if another view holds them).
    pub fn make_mut(&mut self) -> &mut Vec<Json> {
        Arc::make_mut(&mut self.0)
    }

    /// The first `len` messages; shared when that is all of them.
    pub fn prefix(&self, len: usize) -> History {
        if len >= self.0.len() {
            return self.clone();
        }
        self.0[..len].iter().cloned().collect()
    }
}

impl Deref for History {
    type Target = [Json];

    fn deref(&self) -> &[Json] {
        &self.0
    }
}

impl From<Vec<Json>> for History {
    fn from(messages: Vec<Json>) -> Self {
        Self(Arc::new(messages))
    }
}

impl FromIterator<Json> for History {
    fn from_iter<I: IntoIterator<Item = Json>>(iter: I) -> Self {
        Self(Arc::new(iter.into_iter().collect()))
    }
}

/// A list of messages on the wire, as it always was.
impl Serialize for History {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.as_slice().serialize(serializer)
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
        assert!(std::ptr::eq(view.as_ptr(), history.as_ptr()));
        history.push(json!({"role": "assistant"}));
        assert_eq!((view.len(), history.len()), (1, 2));
        assert_eq!(history.prefix(1).as_ref(), view.as_ref());
        assert!(std::ptr::eq(history.prefix(9).as_ptr(), history.as_ptr()));
    }

    #[test]
    fn it_reads_and_writes_as_a_plain_list() {
        let history: History = serde_json::from_str(r#"[{"role":"user"}]"#).expect("a list");
        assert_eq!(
            serde_json::to_string(&history).expect("writes"),
            r#"[{"role":"user"}]"#
        );
    }
}
