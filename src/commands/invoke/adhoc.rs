//! `--server` and `--exec`: a program no config names, started from a command line
//! in the current directory with the base environment.

use indexmap::IndexMap;

use crate::cli::CliError;
use crate::config::{EnvMode, ExecSpec, McpEndpoint, McpServer, McpToolFilter, RuntimeMode};
use crate::doc::Pos;

use super::super::load::current_dir;

/// How to start the program `command_line` (split as a shell would split it).
pub fn exec_spec(
    command_line: &str,
    flag: &str,
    runtime: RuntimeMode,
) -> Result<ExecSpec, CliError> {
    let words = shlex::split(command_line)
        .ok_or_else(|| CliError::Usage(format!("{flag} `{command_line}`: unbalanced quotes")))?;
    let Some((command, args)) = words.split_first() else {
        return Err(CliError::Usage(format!("{flag}: the command is empty")));
    };
    Ok(ExecSpec {
        command: command.into(),
        args: args.to_vec(),
        env: Vec::new(),
        timeout: None,
        working_dir: current_dir(),
        max_output_bytes: None,
        runtime,
        max_in_flight: None,
        command_pos: Pos::default(),
        arg_positions: Vec::new(),
        env_mode: EnvMode::Base,
    })
}

/// An MCP server over stdio, named by its command line in messages.
pub fn mcp_server(command_line: &str) -> Result<McpServer, CliError> {
    let exec = exec_spec(command_line, "--server", RuntimeMode::Server)?;
    Ok(McpServer {
        name: command_line.to_string(),
        endpoint: McpEndpoint::Stdio {
            exec,
            env: IndexMap::new(),
        },
        timeout: None,
        tool_filter: McpToolFilter::default(),
        pos: Pos::default(),
    })
}
