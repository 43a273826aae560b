//! What an exec extension runs, and the hashes of the files it runs.
//!
//! The rule: the program is hashed when it is a path (it has a `/`; the config
//! resolves it against its own folder); a bare name looked up in `PATH` (`python3`,
//! `node`) is not. Each argument is hashed when, resolved against the extension's
//! working directory (the config's folder unless `working_dir` says otherwise) as
//! the child would resolve it, it names an existing regular file. Paths inside the
//! config's folder are written relative to it, so the lock is the same on every
//! checkout; others are written as they are.

use std::path::{Path, PathBuf};

use crate::config::{ExecSpec, McpEndpoint, RuntimeConfig};

use crate::library::sha256_hex;

use super::ExecEntry;

/// The extension's command and the hashes of the files it runs.
pub(super) fn exec_entry(exec: &ExecSpec, base_dir: &Path) -> ExecEntry {
    let files = files_run(exec)
        .into_iter()
        .filter_map(|path| Some((shown(&path, base_dir), file_hash(&path)?)))
        .collect();
    let mut command = vec![shown(&exec.command, base_dir)];
    command.extend(exec.args.iter().cloned());
    ExecEntry { command, files }
}

/// The files an extension runs: its program when it is a path, and each argument
/// that names a regular file.
fn files_run(exec: &ExecSpec) -> Vec<PathBuf> {
    let program = (exec.command.components().count() > 1).then(|| exec.command.clone());
    program
        .into_iter()
        .chain(exec.args.iter().map(|arg| exec.working_dir.join(arg)))
        .filter(|path| path.is_file())
        .collect()
}

/// The files every exec extension of `config` runs (tools, hooks, evals, MCP
/// servers started as programs), each once.
pub(crate) fn extension_files(config: &RuntimeConfig) -> Vec<PathBuf> {
    let tools = config.tools.values().filter_map(|binding| binding.exec());
    let hooks = config.hooks.values().map(|hook| &hook.exec);
    let evals = config.evals.values().map(|eval| &eval.exec);
    let servers = config
        .mcp_servers
        .values()
        .filter_map(|server| match &server.endpoint {
            McpEndpoint::Stdio { exec, .. } => Some(exec),
            McpEndpoint::Http { .. } => None,
        });
    let mut files: Vec<PathBuf> = tools
        .chain(hooks)
        .chain(evals)
        .chain(servers)
        .flat_map(files_run)
        .collect();
    files.sort();
    files.dedup();
    files
}

/// The SHA-256 of a regular file's bytes; `None` for anything else.
fn file_hash(path: &Path) -> Option<String> {
    if !path.is_file() {
        return None;
    }
    std::fs::read(path).ok().map(|bytes| sha256_hex(&bytes))
}

/// `path` relative to `base_dir` when inside it (without `.` steps), else as it is.
fn shown(path: &Path, base_dir: &Path) -> String {
    let clean: PathBuf = path
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    let base: PathBuf = base_dir
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    clean
        .strip_prefix(&base)
        .map_or_else(|_| clean.clone(), Path::to_path_buf)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_and_its_interpreter_are_told_apart() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("tool.py"), "print(1)\n").expect("write");
        let mut exec = ExecSpec::plain("python3", dir.path());
        exec.args = vec!["-u".into(), "tool.py".into()];
        let entry = exec_entry(&exec, dir.path());
        assert_eq!(entry.command, ["python3", "-u", "tool.py"]);
        assert_eq!(entry.files.keys().collect::<Vec<_>>(), ["tool.py"]);
        assert_eq!(
            entry.files["tool.py"],
            sha256_hex(b"print(1)\n"),
            "the hash is of the file's bytes"
        );
    }

    #[test]
    fn a_program_given_as_a_path_is_hashed() {
        let dir = tempfile::tempdir().expect("temp dir");
        let script = dir.path().join("bin").join("run.sh");
        std::fs::create_dir(dir.path().join("bin")).expect("mkdir");
        std::fs::write(&script, "#!/bin/sh\n").expect("write");
        let exec = ExecSpec::plain(&script, dir.path());
        let entry = exec_entry(&exec, dir.path());
        assert_eq!(entry.command, ["bin/run.sh"]);
        assert!(entry.files.contains_key("bin/run.sh"));
    }
}
