use futures::future::LocalBoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use super::AssistantMessage;
use crate::conversation::{History, ToolChoice};

/// One model call as the session makes it: where in the conversation, and what the
/// model is shown.
#[derive(Debug, Clone, Copy)]
pub struct ModelCall<'a> {
    /// 1-based user turn, and model call within it.
    pub turn: u32,
    pub round: u32,
    pub system_prompt: &'a str,
    /// The model asked for: the provider's, unless a hook changed the request's.
    pub model: &'a str,
    /// The prompt's `tool_policy.tool_choice` (with `none`, `tools` is empty).
    pub tool_choice: ToolChoice,
    /// The conversation so far, in the hook payload shape (`conversation::message`).
    pub messages: &'a History,
    /// The tools on offer, `{"type": "function", "function": {name, description, parameters}}`.
    pub tools: &'a [Json],
    /// Ask for the answer as a stream of events (HTTP providers only).
    pub stream: bool,
}

/// Tokens one model call used, and what they cost when the provider has `pricing`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

/// What went over the wire for one HTTP model call, for recordings: never a header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    /// The request body as sent.
    pub request: Json,
    /// The response body as received: the JSON document, or for a stream the list of
    /// its events' `data` (each parsed as JSON when it is).
    pub response: Json,
    /// How many attempts the call took (1 when no retry was needed).
    pub attempts: u32,
}

/// One model answer and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub message: AssistantMessage,
    /// Which rule of a script, recording or which API answered, in words, for traces
    /// and transcripts.
    pub answered_by: String,
    pub usage: Option<Usage>,
    /// Set by HTTP providers; what a recording keeps.
    pub exchange: Option<Exchange>,
    /// What was wrong with the answer that did not stop it being used (cut at the
    /// token limit, filtered), each a `model_finding` in the reports.
    pub findings: Vec<String>,
}

/// Why a model call gave no answer. The run stops with exit 3.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// The provider could not be reached or gave no usable answer, after retries.
    #[error("provider `{provider}`: {detail}")]
    Provider { provider: String, detail: String },
    /// A replayed call found no recorded exchange that matches; `detail` shows the
    /// difference from the nearest one.
    #[error("replay of {recording}: {detail}")]
    Replay { recording: String, detail: String },
}

/// A model: messages and the tools on offer in, an assistant message out.
pub trait Provider {
    fn complete<'a>(
        &'a mut self,
        call: ModelCall<'a>,
    ) -> LocalBoxFuture<'a, Result<Completion, ModelError>>;

    /// Asked when a conversation has run its course: what it should have used and did
    /// not (a replay's recorded calls no call asked for).
    fn leftover(&self) -> Option<ModelError> {
        None
    }
}

/// A boxed provider is one: the run picks its provider when it starts.
impl<P: Provider + ?Sized> Provider for Box<P> {
    fn complete<'a>(
        &'a mut self,
        call: ModelCall<'a>,
    ) -> LocalBoxFuture<'a, Result<Completion, ModelError>> {
        (**self).complete(call)
    }

    fn leftover(&self) -> Option<ModelError> {
        (**self).leftover()
    }
}
