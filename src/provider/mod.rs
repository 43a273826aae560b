//! Model providers: the `Provider` trait and the scripted mock, which plays
//! PromptKit's mock-responses YAML, answering each call of a scenario by its number.

mod completion;
mod http;
mod mock;
pub mod recording;
mod scripted;
mod select;

pub use completion::{Completion, Exchange, ModelCall, ModelError, Provider, Usage};
pub use http::{
    HTTP_TYPES, HttpProvider, SetupError, SetupProblem, ensure_crypto_provider,
    http_client_builder, is_loopback, plays as http_plays,
};
pub use mock::{MockScript, MockTurn, Rule, Scenario, ScriptedCall, load_mock};
pub use recording::{
    MatchMode, ProviderInfo, RecordedSession, Recorder, Recording, Replayer, SessionTape,
};
pub use scripted::{AssistantMessage, ScriptedProvider, ToolCall};
pub(crate) use select::{
    Answers, ModelPlan, SelectError, choose, live, live_answers, mock_answers, replay_answers,
};
