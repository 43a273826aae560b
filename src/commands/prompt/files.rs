//! `prompt export-dir|import-dir|status`: the library as a folder of `.prompt` files.

use std::path::Path;

use crate::cli::args::{FilesCommand, LibraryArgs};
use crate::cli::{CliError, Console, Exit};
use crate::library::{FolderState, compare, file_name_for, read_folder, to_prompt_file};
use crate::report::FolderAnswer;

use crate::commands::common::library::{open, refused, say, who};

pub(in crate::commands) fn run(
    command: &FilesCommand,
    console: &mut Console,
) -> Result<Exit, CliError> {
    match command {
        FilesCommand::ExportDir { dir, library } => export(dir, library, console),
        FilesCommand::ImportDir {
            dir,
            check,
            library,
        } => import(dir, *check, library, console),
        FilesCommand::Status { dir, library } => {
            let (folder, warnings) = read_folder(dir)?;
            console.diagnostics(&warnings);
            let stored = open(library)?.list(&[]).map_err(refused)?;
            let statuses = compare(&folder, &stored);
            say(console, library.format, &FolderAnswer::Status(&statuses))
        }
    }
}

/// Writes each prompt's file, leaving alone files whose bytes would not change.
fn export(dir: &Path, library: &LibraryArgs, console: &mut Console) -> Result<Exit, CliError> {
    let prompts = open(library)?.list(&[]).map_err(refused)?;
    std::fs::create_dir_all(dir).map_err(|source| CliError::Write {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut written = Vec::new();
    for prompt in &prompts {
        let name = file_name_for(&prompt.id);
        let path = dir.join(&name);
        let text = to_prompt_file(&prompt.content);
        if std::fs::read(&path).is_ok_and(|old| old == text.as_bytes()) {
            continue;
        }
        crate::atomic_file::write_atomic(&path, text.as_bytes())
            .map_err(|source| CliError::Write { path, source })?;
        written.push(name);
    }
    let unchanged = prompts.len() - written.len();
    say(
        console,
        library.format,
        &FolderAnswer::Exported {
            written: &written,
            unchanged,
        },
    )
}

/// Stores the new and changed prompts of a folder in one transaction; `check`
/// stores nothing and fails when something would change.
fn import(
    dir: &Path,
    check: bool,
    library: &LibraryArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let (folder, warnings) = read_folder(dir)?;
    console.diagnostics(&warnings);
    let mut lib = open(library)?;
    let stored = lib.list(&[]).map_err(refused)?;
    let statuses = compare(&folder, &stored);
    let changes: Vec<serde_json::Value> = folder
        .iter()
        .zip(&statuses)
        .filter(|(_, s)| matches!(s.state, FolderState::New | FolderState::Modified))
        .map(|(p, _)| p.template.clone())
        .collect();
    if !check && !changes.is_empty() {
        lib.add_many(&changes, &who(library)).map_err(refused)?;
    }
    say(
        console,
        library.format,
        &FolderAnswer::Imported {
            statuses: &statuses,
            check,
        },
    )?;
    Ok(if check && !changes.is_empty() {
        Exit::No
    } else {
        Exit::Success
    })
}
