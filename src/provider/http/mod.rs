//! Real models over HTTP: OpenAI chat completions (OpenAI, vLLM, Ollama) and
//! Anthropic's Messages API, whole or streamed.

mod answer;
mod api;
mod api_error;
mod claude;
mod claude_stream;
mod credential;
mod endpoint;
mod error;
mod headers;
mod openai;
mod openai_stream;
mod provider;
mod rate;
mod redact;
mod retry;
mod sse;
mod tls;
mod transport;

#[cfg(test)]
mod live_tests;

pub use endpoint::{HTTP_TYPES, plays};
pub use error::{SetupError, SetupProblem};
pub use provider::{HttpProvider, is_loopback};
pub use tls::{client_builder as http_client_builder, ensure_crypto_provider};
