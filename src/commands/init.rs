//! `promptexec init [DIR]`: a minimal project that `run` and `test` pass at once. The
//! files are in the binary; none is written over an existing one, and each is
//! written whole or not at all.

use std::path::{Path, PathBuf};

use crate::atomic_file::write_atomic;
use crate::cli::args::InitArgs;
use crate::cli::{CliError, Console, Exit, UsageError};

/// Where each file goes in the project, and what it holds.
const FILES: &[(&str, &str)] = &[
    (
        "runtimeconfig.yaml",
        include_str!("init/runtimeconfig.yaml"),
    ),
    ("greeter.pack.json", include_str!("init/greeter.pack.json")),
    (
        "mock-responses.yaml",
        include_str!("init/mock-responses.yaml"),
    ),
    ("tools/greet.py", include_str!("init/greet.py")),
    ("hooks/no_secrets.py", include_str!("init/no_secrets.py")),
    (
        "scenarios/greet-ada.scenario.yaml",
        include_str!("init/greet-ada.scenario.yaml"),
    ),
    (
        "greeter.cases.yaml",
        include_str!("init/greeter.cases.yaml"),
    ),
    (
        ".github/workflows/promptexec.yml",
        include_str!("init/workflow.yml"),
    ),
    ("README.md", include_str!("init/README.md")),
];

pub(super) fn run(args: &InitArgs, console: &mut Console) -> Result<Exit, CliError> {
    let base = args.dir.clone().unwrap_or_default();
    let targets: Vec<(PathBuf, &str)> = FILES
        .iter()
        .map(|(path, text)| (base.join(path), *text))
        .collect();
    refuse_existing(&targets)?;
    for (path, text) in &targets {
        write(path, text)?;
        console.note(&format!("wrote {}", path.display()));
    }
    next_steps(args.dir.as_deref(), console);
    Ok(Exit::Success)
}

/// Nothing is written when any file is already there.
fn refuse_existing(targets: &[(PathBuf, &str)]) -> Result<(), UsageError> {
    match targets
        .iter()
        .find(|(path, _)| path.symlink_metadata().is_ok())
    {
        Some((path, _)) => Err(UsageError::conflict(
            path.display().to_string(),
            "already exists; init writes over no file, so it wrote nothing",
        )),
        None => Ok(()),
    }
}

fn write(path: &Path, text: &str) -> Result<(), CliError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| CliError::Write {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    write_atomic(path, text.as_bytes()).map_err(|source| CliError::Write {
        path: path.to_path_buf(),
        source,
    })
}

fn next_steps(dir: Option<&Path>, console: &mut Console) {
    console.note("next:");
    if let Some(dir) = dir {
        console.note(&format!("  cd {}", dir.display()));
    }
    console.note("  promptexec run greeter.pack.json");
    console.note("  promptexec test");
}
