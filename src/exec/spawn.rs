use std::ffi::OsStr;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::process::Child;

use super::group::GroupGuard;
use crate::config::{EnvMode, ExecSpec};

/// Starts `spec` with exactly `env`, its stdio piped, in a process group of its own.
/// The guard kills the group when dropped.
pub fn spawn(
    spec: &ExecSpec,
    env: Vec<(String, String)>,
) -> Result<(Child, Option<GroupGuard>), String> {
    // With `env_mode: listed` the child may get no PATH; a bare command is then found
    // through promptexec's own, as PromptKit finds it.
    let path_var = env
        .iter()
        .find(|(n, _)| n == "PATH")
        .map(|(_, v)| v.clone())
        .or_else(|| match spec.env_mode {
            EnvMode::Listed => std::env::var("PATH").ok(),
            EnvMode::Base => None,
        });
    let program = resolve_program(spec, path_var.as_deref())?;
    let mut command = tokio::process::Command::new(&program);
    command
        .args(&spec.args)
        .env_clear()
        .envs(env)
        .current_dir(&spec.working_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own group, so kills reach grandchildren; set without pre_exec, which
        // keeps the fast posix_spawn path.
        .process_group(0)
        .kill_on_drop(true);
    let child = command
        .spawn()
        .map_err(|err| spawn_reason(spec, &program, &err))?;
    let guard = child.id().map(|pid| GroupGuard::new(pid as i32));
    Ok((child, guard))
}

/// The program to start: a path as given, or a bare name found in the child's `PATH`.
fn resolve_program(spec: &ExecSpec, path_var: Option<&str>) -> Result<PathBuf, String> {
    if !spec.working_dir.is_dir() {
        return Err(format!(
            "working directory `{}` does not exist",
            spec.working_dir.display()
        ));
    }
    let command = &spec.command;
    if command.components().count() > 1 || command.is_absolute() {
        return Ok(command.clone());
    }
    let path_var = path_var.unwrap_or_default();
    if path_var.split(':').all(str::is_empty) {
        return Err(format!(
            "command `{}` not found: PATH is empty",
            command.display()
        ));
    }
    find_in_path(command, path_var)
        .ok_or_else(|| format!("command `{}` not found in PATH", command.display()))
}

/// The first executable file named `name` in the directories of `path_var`.
pub fn find_in_path(name: &Path, path_var: &str) -> Option<PathBuf> {
    path_var
        .split(':')
        .filter(|d| !d.is_empty())
        .map(|dir| Path::new(dir).join(name))
        .find(|candidate| is_executable(candidate))
}

/// A regular file with an execute bit.
pub fn is_executable(path: &Path) -> bool {
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn spawn_reason(spec: &ExecSpec, program: &Path, err: &io::Error) -> String {
    let shown = if program.as_os_str() == OsStr::new("") {
        spec.command.display().to_string()
    } else {
        program.display().to_string()
    };
    match err.kind() {
        io::ErrorKind::NotFound => format!("`{shown}` does not exist"),
        io::ErrorKind::PermissionDenied => {
            format!("`{shown}` is not executable (permission denied)")
        }
        _ => format!("cannot start `{shown}`: {err}"),
    }
}
