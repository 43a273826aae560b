use std::fmt;
use std::time::Duration;

/// Why an MCP server could not be used at all: it would not start, shake hands or
/// list its tools, or it kept crashing. What it wrote on stderr is kept apart, for
/// the report to show once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpFailure {
    CouldNotStart {
        server: String,
        reason: String,
    },
    InitializeTimedOut {
        server: String,
        after: Duration,
        stderr_tail: String,
    },
    InitializeFailed {
        server: String,
        reason: String,
        stderr_tail: String,
    },
    Listing {
        server: String,
        what: &'static str,
        reason: String,
        stderr_tail: String,
    },
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

    /// What went wrong, without naming the server (`did not answer …`).
    pub fn detail(&self) -> String {
        match self {
            McpFailure::CouldNotStart { reason, .. } => format!("could not start: {reason}"),
            McpFailure::InitializeTimedOut { after, .. } => format!(
                "did not answer `initialize` within {} ms",
                after.as_millis()
            ),
            McpFailure::InitializeFailed { reason, .. } => {
                format!("failed its `initialize`: {reason}")
            }
            McpFailure::Listing { what, reason, .. } => {
                format!("could not list its {what}: {reason}")
            }
            McpFailure::Broken { stops, window, .. } => format!(
                "stopped {stops} times within {} s; it is not started again",
                window.as_secs()
            ),
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

impl fmt::Display for McpFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MCP server `{}` {}", self.server(), self.detail())
    }
}

impl std::error::Error for McpFailure {}
