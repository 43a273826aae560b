use serde_json::Value as Json;

use super::{AssistantMessage, Rule};
use crate::hooks::History;

/// One model answer and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub message: AssistantMessage,
    pub rule: Rule,
    /// Which rule of the script answered, in words, for traces and transcripts.
    pub answered_by: String,
}

/// A model: messages and the tools on offer in, an assistant message out.
pub trait Provider {
    fn complete(&mut self, messages: &History, tools: &[Json]) -> Completion;
}
