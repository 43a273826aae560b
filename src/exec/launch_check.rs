//! What can be told, before anything starts, will fail when an extension starts
//! (`validate` reports it): a command that is not in `PATH` or not executable, or a
//! script handed to an interpreter that is not there.
//!
//! The script rule: when the command is a known interpreter (`python3`, `node`,
//! `bash`, ...), its first argument that does not start with `-` is the script, if it
//! looks like a file (it contains `/` or has an extension). An option that takes code
//! or a module instead (`-c`, `-m`, `-e`, ...) means there is no script to check.

use std::path::{Path, PathBuf};

use super::spawn::{find_in_path, is_executable};
use crate::config::{ExecSpec, McpEndpoint, RuntimeConfig};
use crate::doc::{Diagnostic, Diagnostics};

const INTERPRETERS: &[&str] = &[
    "python", "pypy", "node", "nodejs", "bun", "bash", "sh", "dash", "zsh", "ksh", "fish", "ruby",
    "perl", "php", "lua", "Rscript", "tsx", "ts-node",
];

/// Options after which an interpreter runs inline code or a module, not a script.
const CODE_OPTIONS: &[&str] = &["-c", "-m", "-e", "--eval", "-p", "--print", "-r", "-E"];

/// Every extension of `config` that cannot start as written.
pub(crate) fn launch_problems(config: &RuntimeConfig) -> Diagnostics {
    let mut out = Diagnostics::default();
    let Some(path) = &config.path else {
        return out;
    };
    let tools = config
        .tools
        .iter()
        .filter_map(|(name, tool)| Some((format!("spec.tools.{name}.exec"), tool.exec()?)));
    let evals = config
        .evals
        .iter()
        .map(|(name, eval)| (format!("spec.evals.{name}"), &eval.exec));
    let hooks = config
        .hooks
        .iter()
        .map(|(name, hook)| (format!("spec.hooks.{name}"), &hook.exec));
    let mcp_servers = config
        .mcp_servers
        .values()
        .filter_map(|server| match &server.endpoint {
            McpEndpoint::Stdio { exec, .. } => {
                Some((format!("spec.mcp_servers[{}]", server.name), exec))
            }
            McpEndpoint::Http { .. } => None,
        });
    for (what, exec) in tools.chain(evals).chain(hooks).chain(mcp_servers) {
        if let Some(message) = command_problem(exec, &what) {
            out.push(Diagnostic::error(path, exec.command_pos, message));
        }
        let Some(i) = script_arg(&exec.command, &exec.args) else {
            continue;
        };
        let script = exec.working_dir.join(&exec.args[i]);
        if !script.is_file() {
            let pos = exec
                .arg_positions
                .get(i)
                .copied()
                .unwrap_or(exec.command_pos);
            out.push(Diagnostic::error(
                path,
                pos,
                format!(
                    "{what}.args: script `{}` does not exist (looked for `{}`, from the extension's working directory)",
                    exec.args[i],
                    clean(&script).display()
                ),
            ));
        }
    }
    out
}

/// Why `exec.command` cannot be started, if it cannot. A path that does not exist is
/// already reported when the config is read.
fn command_problem(exec: &ExecSpec, what: &str) -> Option<String> {
    let command = &exec.command;
    if command.components().count() > 1 || command.is_absolute() {
        return (command.is_file() && !is_executable(command)).then(|| {
            format!(
                "{what}.command: `{}` is not executable (chmod +x it, or give its interpreter as the command)",
                command.display()
            )
        });
    }
    let name = command.to_string_lossy();
    (!on_path(&name)).then(|| format!("{what}.command: `{name}` is not found in PATH"))
}

/// The index of the script among `args`, when `command` is an interpreter given one.
fn script_arg(command: &Path, args: &[String]) -> Option<usize> {
    let name = command.file_name()?.to_str()?;
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if !INTERPRETERS.contains(&stem) {
        return None;
    }
    for (i, arg) in args.iter().enumerate() {
        if CODE_OPTIONS.contains(&arg.as_str()) {
            return None;
        }
        if arg.starts_with('-') {
            continue;
        }
        let looks_like_file = arg.contains('/')
            || Path::new(arg)
                .extension()
                .is_some_and(|ext| !ext.is_empty());
        return looks_like_file.then_some(i);
    }
    None
}

/// Whether a bare `name` is an executable file in the host's `PATH`, which the child
/// gets (or, with `env_mode: listed`, is found through).
fn on_path(name: &str) -> bool {
    std::env::var("PATH").is_ok_and(|path| find_in_path(Path::new(name), &path).is_some())
}

/// `path` without `.` steps, for messages.
fn clean(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(command: &str, args: &[&str]) -> Option<usize> {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        script_arg(Path::new(command), &args)
    }

    #[test]
    fn the_script_is_the_first_plain_argument_of_an_interpreter() {
        assert_eq!(script("python3", &["./tools/x.py"]), Some(0));
        assert_eq!(
            script("/usr/bin/python3.12", &["-u", "x.py", "--flag"]),
            Some(1)
        );
        assert_eq!(script("node", &["--no-warnings", "lib/run.js"]), Some(1));
        assert_eq!(script("bash", &["scripts/run"]), Some(0));
    }

    #[test]
    fn inline_code_modules_and_other_commands_have_no_script() {
        assert_eq!(script("python3", &["-m", "http.server"]), None);
        assert_eq!(script("bash", &["-c", "echo hi"]), None);
        assert_eq!(script("node", &["-e", "1"]), None);
        assert_eq!(script("./tool", &["data.json"]), None);
        assert_eq!(script("python3", &["-W", "ignore", "x.py"]), None);
    }
}
