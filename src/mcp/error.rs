use std::time::Duration;

/// Why an MCP server could not be used at all: it would not start, shake hands or
/// list its tools, or it kept crashing. What it wrote on stderr is kept apart, for
/// the report to show once.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpFailure {
    #[error("MCP server `{server}` could not start: {reason}")]
    CouldNotStart { server: String, reason: String },
    #[error("MCP server `{server}` did not answer `initialize` within {} ms", after.as_millis())]
    InitializeTimedOut {
        server: String,
        after: Duration,
        stderr_tail: String,
    },
    #[error("MCP server `{server}` failed its `initialize`: {reason}")]
    InitializeFailed {
        server: String,
        reason: String,
        stderr_tail: String,
    },
    #[error("MCP server `{server}` could not list its {what}: {reason}")]
    Listing {
        server: String,
        what: &'static str,
        reason: String,
        stderr_tail: String,
    },
    #[error("MCP server `{server}` stopped {stops} times within {} s; it is not started again", window.as_secs())]
    Broken {
        server: String,
        stops: usize,
        window: Duration,
    },
}

impl McpFailure {
    /// The server that failed.
    pub fn server(&self) -> &str {
        match self {
            McpFailure::CouldNotStart { server, .. }
            | McpFailure::InitializeTimedOut { server, .. }
            | McpFailure::InitializeFailed { server, .. }
            | McpFailure::Listing { server, .. }
            | McpFailure::Broken { server, .. } => server,
        }
    }

    /// What the server wrote on stderr before it failed, when it is known.
    pub fn stderr_tail(&self) -> &str {
        match self {
            McpFailure::InitializeTimedOut { stderr_tail, .. }
            | McpFailure::InitializeFailed { stderr_tail, .. }
            | McpFailure::Listing { stderr_tail, .. } => stderr_tail,
            McpFailure::CouldNotStart { .. } | McpFailure::Broken { .. } => "",
        }
    }
}
