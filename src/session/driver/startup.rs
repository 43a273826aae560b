//! The MCP servers of a session, started before its first turn, and the stop that an
//! interrupt (the run's cancel token) puts to every step of a turn.

use crate::session::{ExtensionKind, Phase, SessionEvent};
use crate::tool_caller::ToolCaller;

use super::{Session, TurnEnd};

/// Why a turn ended when the run was cancelled: an interrupt.
const INTERRUPTED: &str = "interrupted";

impl Session<'_> {
    /// The end of the turn when the run was cancelled (Ctrl-C, SIGTERM, SIGHUP):
    /// nothing more starts, no hook, no model call, no tool call, no server.
    pub(super) fn cancelled(&self) -> Option<TurnEnd> {
        self.cancel.is_cancelled().then(|| TurnEnd::Failed {
            reason: INTERRUPTED.into(),
        })
    }

    /// Starts the MCP servers the prompt names; their tools join the tool set.
    pub(super) async fn start_mcp(&mut self) -> Result<(), TurnEnd> {
        if self.mcp.is_empty() {
            return Ok(());
        }
        let started = match self.mcp.start().await {
            Ok(started) => started,
            Err(failure) => {
                self.emit(SessionEvent::ExtensionFailed {
                    turn: self.turn,
                    kind: ExtensionKind::McpServer,
                    name: failure.server().to_string(),
                    phase: Phase::TOOL,
                    reason: failure.detail(),
                    stderr_tail: failure.stderr_tail().to_string(),
                });
                return Err(TurnEnd::Failed {
                    reason: failure.to_string(),
                });
            }
        };
        // A tool the prompt names but the server lists unusably is the server's
        // failure, not a silent gap in what the model is offered.
        for (server, tool) in started.rejected {
            self.emit(SessionEvent::ExtensionFailed {
                turn: self.turn,
                kind: ExtensionKind::McpServer,
                name: server,
                phase: Phase::TOOL,
                reason: format!(
                    "lists tool `{}`, which cannot be offered: {}",
                    tool.tool, tool.reason
                ),
                stderr_tail: String::new(),
            });
        }
        for entry in started.unmatched {
            tracing::warn!(
                "prompt `{}` offers `{entry}`, which matches no tool of its MCP servers",
                self.prompt.id
            );
        }
        for (tool, server) in self.mcp.tools() {
            let caller = ToolCaller::mcp(&tool.name, &tool.tool, server);
            self.tools.insert(tool.name.clone(), caller);
        }
        Ok(())
    }
}
