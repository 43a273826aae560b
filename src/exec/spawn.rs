use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;

use tokio::process::Child;

use super::group::GroupGuard;
use super::registry::{SPAWN_ID_VAR, SpawnId, spawning};
use super::tether;
use crate::config::{EnvMode, ExecSpec};

/// Why a process could not be started. The text is what users read after
/// "could not start: ".
#[derive(Debug, Clone, thiserror::Error)]
pub enum SpawnError {
    #[error("working directory `{}` does not exist", .0.display())]
    NoWorkingDir(PathBuf),
    #[error("command `{}` not found: PATH is empty", .0.display())]
    PathEmpty(PathBuf),
    #[error("command `{}` not found in PATH", .0.display())]
    NotInPath(PathBuf),
    #[error("`{}` does not exist", .0.display())]
    NotFound(PathBuf),
    #[error("`{}` is not executable (permission denied)", .0.display())]
    NotExecutable(PathBuf),
    #[error("cannot start `{}`: {source}", program.display())]
    Io {
        program: PathBuf,
        // Shared so that a finished call stays cheap to clone.
        source: Arc<io::Error>,
    },
    /// Started, but without the pipes every call needs.
    #[error("the child's stdio is not piped")]
    NotPiped,
}

/// Starts a long-lived `spec` (a server tool, a JSON-RPC hook, an MCP server) with
/// exactly `env` plus a fresh `PROMPTEXEC_SPAWN_ID`, its stdio piped, in a process
/// group of its own, tethered to promptexec: the kernel kills it if promptexec dies,
/// even by SIGKILL (see [`super::tether`]; only when running as promptexec's own
/// binary, not when the library is used by another program). The guard kills the group, and the
/// orphans marked with that id, when dropped.
///
/// The death signal is sent when the thread that started the child ends, so a
/// long-lived child must be started on a thread that outlives it: a command's
/// runtime thread, or a suite's worker, which plays its scenarios on runtimes of
/// their own.
pub(crate) fn spawn(
    spec: &ExecSpec,
    env: Vec<(String, String)>,
) -> Result<(Child, Option<GroupGuard>), SpawnError> {
    start(spec, env, Lifetime::Long)
}

/// [`spawn`] for a one-shot call, which ends with its call: started directly, on the
/// fast spawn path, without the tether.
pub(crate) fn spawn_one_shot(
    spec: &ExecSpec,
    env: Vec<(String, String)>,
) -> Result<(Child, Option<GroupGuard>), SpawnError> {
    start(spec, env, Lifetime::OneShot)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Lifetime {
    OneShot,
    Long,
}

fn start(
    spec: &ExecSpec,
    mut env: Vec<(String, String)>,
    lifetime: Lifetime,
) -> Result<(Child, Option<GroupGuard>), SpawnError> {
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
    let id = SpawnId::next();
    env.retain(|(name, _)| name != SPAWN_ID_VAR);
    env.push((SPAWN_ID_VAR.to_string(), id.text.clone()));
    let tethered = lifetime == Lifetime::Long && tether::available();
    let mut command = if tethered {
        // The tethered start can always begin, so what would keep the program from
        // starting is found here, and named as the user wrote it.
        startable(&program, &spec.working_dir)?;
        let mut command = tokio::process::Command::new(tether::SELF_EXE);
        command.arg0(tether::ARGV0).args(tether::arguments(
            std::process::id(),
            &program,
            &spec.args,
        ));
        command
    } else {
        let mut command = tokio::process::Command::new(&program);
        command.args(&spec.args);
        command
    };
    command
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
    let spawning = spawning();
    let child = command.spawn().map_err(|err| spawn_error(program, err))?;
    let guard = child.id().map(|pid| {
        spawning.register(pid as i32);
        GroupGuard::new(pid as i32, id.text)
    });
    Ok((child, guard))
}

/// What starting `program` directly would have said before it ran: that it is
/// missing, or not an executable file. A relative path is taken from `working_dir`.
fn startable(program: &Path, working_dir: &Path) -> Result<(), SpawnError> {
    let full = working_dir.join(program);
    match std::fs::metadata(&full) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            Err(SpawnError::NotFound(program.to_path_buf()))
        }
        Ok(_) if !is_executable(&full) => Err(SpawnError::NotExecutable(program.to_path_buf())),
        _ => Ok(()),
    }
}

/// The program to start: a path as given (a relative one is taken from the working
/// directory, where the child starts), or a bare name found in the child's `PATH`.
fn resolve_program(spec: &ExecSpec, path_var: Option<&str>) -> Result<PathBuf, SpawnError> {
    if !spec.working_dir.is_dir() {
        return Err(SpawnError::NoWorkingDir(spec.working_dir.clone()));
    }
    let command = &spec.command;
    if command.components().count() > 1 || command.is_absolute() {
        return Ok(command.clone());
    }
    let path_var = path_var.unwrap_or_default();
    if path_var.split(':').all(str::is_empty) {
        return Err(SpawnError::PathEmpty(command.clone()));
    }
    find_in_path(command, path_var).ok_or_else(|| SpawnError::NotInPath(command.clone()))
}

/// The first executable file named `name` in the directories of `path_var`. Empty
/// entries are skipped rather than read as the current directory.
pub fn find_in_path(name: &Path, path_var: &str) -> Option<PathBuf> {
    let dirs: Vec<&str> = path_var.split(':').filter(|d| !d.is_empty()).collect();
    // A directory name with a `:` cannot be in PATH in the first place.
    let dirs: OsString = std::env::join_paths(dirs).ok()?;
    which::which_in_global(name, Some(dirs)).ok()?.next()
}

/// A regular file the current user may execute; a relative path is taken from the
/// current directory.
pub fn is_executable(path: &Path) -> bool {
    std::path::absolute(path).is_ok_and(|path| which::which_global(path).is_ok())
}

fn spawn_error(program: PathBuf, err: io::Error) -> SpawnError {
    match err.kind() {
        io::ErrorKind::NotFound => SpawnError::NotFound(program),
        io::ErrorKind::PermissionDenied => SpawnError::NotExecutable(program),
        _ => SpawnError::Io {
            program,
            source: Arc::new(err),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn file(dir: &Path, name: &str, mode: u32) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).expect("chmod");
        path
    }

    #[test]
    fn the_first_executable_in_path_order_wins_and_empty_entries_are_skipped() {
        let (a, b) = (
            tempfile::tempdir().expect("dir"),
            tempfile::tempdir().expect("dir"),
        );
        file(a.path(), "tool", 0o644);
        let second = file(b.path(), "tool", 0o755);
        let path = format!("::{}::{}:", a.path().display(), b.path().display());
        assert_eq!(find_in_path(Path::new("tool"), &path), Some(second));
        assert_eq!(find_in_path(Path::new("absent"), &path), None);
        assert_eq!(find_in_path(Path::new("tool"), ":::"), None);
    }

    #[test]
    fn only_files_with_an_execute_bit_are_executable() {
        let dir = tempfile::tempdir().expect("dir");
        assert!(is_executable(&file(dir.path(), "yes", 0o700)));
        assert!(!is_executable(&file(dir.path(), "no", 0o600)));
        assert!(!is_executable(dir.path()), "a directory is not");
        assert!(!is_executable(&dir.path().join("missing")));
    }

    #[test]
    fn spawn_errors_read_as_before() {
        let shown = |e: SpawnError| e.to_string();
        assert_eq!(
            shown(SpawnError::NotInPath("nope".into())),
            "command `nope` not found in PATH"
        );
        assert_eq!(
            shown(SpawnError::PathEmpty("python3".into())),
            "command `python3` not found: PATH is empty"
        );
        assert_eq!(
            shown(spawn_error(
                "/x/t.sh".into(),
                io::Error::from(io::ErrorKind::PermissionDenied)
            )),
            "`/x/t.sh` is not executable (permission denied)"
        );
        assert_eq!(
            shown(spawn_error(
                "/x/t.sh".into(),
                io::Error::from(io::ErrorKind::NotFound)
            )),
            "`/x/t.sh` does not exist"
        );
    }
}
