//! What an exec extension runs, and the hashes of the files it runs.
//!
//! The rule: the program is hashed when it is a path (it has a `/`; the config
//! resolves it against its own folder); a bare name looked up in `PATH` (`python3`,
//! `node`) is not. Each argument is hashed when, resolved against the extension's
//! working directory (the config's folder unless `working_dir` says otherwise) as
//! the child would resolve it, it names an existing regular file. Paths inside the
//! config's folder are written relative to it, so the lock is the same on every
//! checkout; others are written as they are.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::config::ExecSpec;

use crate::library::sha256_hex;

use super::ExecEntry;

/// The extension's command and the hashes of the files it runs.
pub(super) fn exec_entry(exec: &ExecSpec, base_dir: &Path) -> ExecEntry {
    let mut files = BTreeMap::new();
    let program = shown(&exec.command, base_dir);
    if exec.command.components().count() > 1
        && let Some(hash) = file_hash(&exec.command)
    {
        files.insert(program.clone(), hash);
    }
    let mut command = vec![program];
    for arg in &exec.args {
        let path = exec.working_dir.join(arg);
        if let Some(hash) = file_hash(&path) {
            files.insert(shown(&path, base_dir), hash);
        }
        command.push(arg.clone());
    }
    ExecEntry { command, files }
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
