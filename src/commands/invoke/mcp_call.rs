//! `invoke-tool` on a tool of an MCP server: the server starts first, so its own
//! schema types `--arg` values and checks the arguments before the call is sent.

use crate::cli::args::InvokeArgs;
use crate::cli::{CliError, Unknown, UsageError};
use crate::config::McpServer;
use crate::exec::Outcome;
use crate::mcp::{McpClient, McpFailure, admitted};
use crate::tools::{ArgsSchema, ToolMode, ToolReport};

use super::{Plan, check_args, one_call_args};
use crate::commands::common::runtime::{interrupted, with_runtime};

/// Starts the server, finds the tool, checks the arguments, makes the call, and
/// stops the server in order.
pub(super) fn execute(
    plan: &Plan,
    server: &McpServer,
    tool: &str,
    args: &InvokeArgs,
) -> Result<ToolReport, CliError> {
    with_runtime(|| async {
        let client = McpClient::new(server);
        let call = async {
            let listing = match client.tools().await {
                Ok(listing) => listing,
                Err(failure) => return Ok(not_started(&plan.name, &failure)),
            };
            let found = match listing.lookup(tool) {
                Ok(found) => found,
                Err(Some(rejected)) => {
                    let reason = rejected.why(&server.name);
                    let outcome = Outcome::ServerFailed { reason };
                    return Ok(failed(&plan.name, outcome, String::new()));
                }
                Err(None) if !admitted(&server.tool_filter, &server.name, tool) => {
                    return Err(UsageError::Unusable(format!(
                        "MCP server `{}`: its tool_filter leaves out `{tool}`",
                        server.name
                    ))
                    .into());
                }
                Err(None) => {
                    let names = listing.tools.iter().map(|t| t.tool.as_str());
                    let place = format!("MCP server `{}`", server.name);
                    let kind = "tool".to_string();
                    return Err(UsageError::unknown(
                        tool,
                        names,
                        Unknown::OffersNo { place, kind },
                    )
                    .into());
                }
            };
            let tool_args = one_call_args(args, Some(&found.input_schema))?;
            check_args(
                &ArgsSchema::new(&found.input_schema),
                &plan.name,
                &tool_args,
                None,
            )?;
            Ok(client
                .call(tool, &plan.name, &tool_args, plan.timeout)
                .await)
        };
        let result = tokio::select! {
            result = call => result,
            () = interrupted() => {
                client.kill();
                Err(CliError::Interrupted)
            }
        };
        client.shutdown().await;
        result
    })
}

/// The report of a call that could not be made: the server did not come up.
fn not_started(name: &str, failure: &McpFailure) -> ToolReport {
    let reason = failure.to_string();
    failed(
        name,
        Outcome::CouldNotStart { reason },
        failure.stderr_tail().to_string(),
    )
}

/// The report of a call the server's own fault kept from being made.
fn failed(name: &str, outcome: Outcome, stderr_tail: String) -> ToolReport {
    let mut report = ToolReport::new(name, ToolMode::Mcp);
    report.settle(outcome);
    report.stderr_tail = stderr_tail;
    report
}
