//! `--server` and `--exec`: a program no config names, started from a command line
//! in the current directory with the base environment.

use std::path::Path;

use indexmap::IndexMap;

use crate::cli::{CliError, UsageError};
use crate::config::{EnvMode, ExecSpec, McpEndpoint, McpServer, McpToolFilter, RuntimeMode};
use crate::doc::Pos;

use crate::commands::common::load::current_dir;

/// How to start the program `command_line` (split as a shell would split it).
pub(super) fn exec_spec(
    command_line: &str,
    flag: &str,
    runtime: RuntimeMode,
) -> Result<ExecSpec, CliError> {
    let words = shlex::split(command_line)
        .ok_or_else(|| UsageError::bad_value(flag, Some(command_line), "unbalanced quotes"))?;
    let Some((command, args)) = words.split_first() else {
        return Err(UsageError::bad_value(flag, None, "the command is empty").into());
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

/// An MCP server over stdio, named after its program (`python3 server.py` is
/// `server`), as a config would name it.
pub(super) fn mcp_server(command_line: &str) -> Result<McpServer, CliError> {
    let exec = exec_spec(command_line, "--server", RuntimeMode::Server)?;
    Ok(McpServer {
        name: program_name(&exec),
        endpoint: McpEndpoint::Stdio {
            exec,
            env: IndexMap::new(),
        },
        timeout: None,
        tool_filter: McpToolFilter::default(),
        pos: Pos::default(),
    })
}

/// The stem of the script an interpreter is given (the first argument that looks like
/// a file), else of the command, in the letters a server name may use.
fn program_name(exec: &ExecSpec) -> String {
    let command = exec.command.display().to_string();
    let program = exec
        .args
        .iter()
        .find(|a| !a.starts_with('-') && (a.contains('/') || a.contains('.')))
        .unwrap_or(&command);
    let stem = Path::new(program)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let name = name.trim_matches('_').replace("__", "_");
    if name.is_empty() {
        "server".into()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_is_named_after_its_script_or_program() {
        let name = |line: &str| {
            program_name(&exec_spec(line, "--server", RuntimeMode::Server).expect("spec"))
        };
        assert_eq!(name("python3 server.py"), "server");
        assert_eq!(name("/opt/bin/mcp_test_server --log x"), "mcp_test_server");
        assert_eq!(
            name("npx -y @modelcontextprotocol/server-filesystem /tmp"),
            "server-filesystem"
        );
        assert_eq!(name("'./my tool.sh'"), "my_tool");
    }
}
