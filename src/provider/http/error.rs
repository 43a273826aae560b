//! What can go wrong setting up an HTTP provider, and reading an answer back.

use std::path::PathBuf;

use serde_json::Value as Json;

use super::endpoint::HTTP_TYPES;

/// Why a provider cannot be set up from its config: the provider, then the problem.
/// It never holds a key.
#[derive(Debug, thiserror::Error)]
#[error("provider `{provider}`: {problem}")]
pub struct SetupError {
    pub provider: String,
    #[source]
    pub problem: SetupProblem,
}

/// A problem with a provider's config or environment.
#[derive(Debug, thiserror::Error)]
pub enum SetupProblem {
    #[error("type `{kind}` is not an HTTP provider (those are {})", HTTP_TYPES.join(", "))]
    NotHttp { kind: String },
    #[error("no model is set")]
    NoModel,
    #[error("base_url `{base}` is not an http or https URL")]
    BadBaseUrl { base: String },
    #[error("refusing to send its key over plain http to {host}; use https")]
    KeyOverPlainHttp { host: String },
    #[error(transparent)]
    Credential(#[from] CredentialError),
    #[error(transparent)]
    Header(#[from] HeaderError),
    #[error("cannot set up an HTTP client: {0}")]
    Client(#[source] reqwest::Error),
}

/// Why a provider's key cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum CredentialError {
    #[error("api_key is empty")]
    EmptyKey,
    #[error("credential_env `{name}` is not set")]
    EnvUnset { name: String },
    #[error("credential_env `{name}` is empty")]
    EnvEmpty { name: String },
    #[error("cannot read credential_file `{}`: {source}", path.display())]
    FileUnreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("credential_file `{}` is empty", path.display())]
    FileEmpty { path: PathBuf },
    #[error(
        "no API key: `{var}` is not set (or name one with credential_env, credential_file or api_key)"
    )]
    NoKey { var: &'static str },
}

/// A header a request cannot carry. Messages name a header, never its value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    #[error("the API key holds characters a header cannot carry")]
    Key,
    #[error("headers: `{name}` is not a valid header name")]
    Name { name: String },
    #[error("headers: the value of `{name}` holds characters a header cannot carry")]
    Value { name: String },
}

/// Why a response (whole or streamed) gives no answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(super) enum AnswerError {
    /// The API's own error message, quoted.
    #[error("{0}")]
    Api(String),
    #[error("the answer has no `choices[0].message`")]
    NoMessage,
    #[error("the answer has no `content`")]
    NoContent,
    #[error("a tool call has no function name: {0}")]
    UnnamedCall(Json),
    #[error("a tool_use block has no name: {0}")]
    UnnamedToolUse(Json),
    /// `data` is already quoted.
    #[error("a stream event is not JSON: {data}")]
    EventNotJson { data: String },
    #[error("the stream ended before the answer was complete")]
    Incomplete,
    #[error("a streamed tool call (id `{id}`) has no function name")]
    UnnamedStreamedCall { id: String },
    #[error("a streamed tool_use block (id `{id}`) has no name")]
    UnnamedStreamedToolUse { id: String },
}
