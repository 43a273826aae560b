//! `prompt add|list|search|show|history|lock|unlock|rm|rate|audit`: the prompt library
//! from the shell.

use std::path::PathBuf;
use std::time::SystemTime;

use crate::cli::args::{AuditCommand, LibraryArgs, LibraryCommand, ListSort};
use crate::cli::{CliError, Console, Exit, UsageError};
use crate::library::{ListOrder, load_template_set};
use crate::report::LibraryAnswer;

use crate::commands::common::library::{open, refused, say, who};

/// Runs one library command: asks the library, then shows its answer.
pub(in crate::commands) fn run(
    command: &LibraryCommand,
    console: &mut Console,
) -> Result<Exit, CliError> {
    match command {
        LibraryCommand::Add { files, library } => add(files, library, console),
        LibraryCommand::List {
            tags,
            sort: ListSort::Rank,
            library,
        } => {
            let ranked = open(library)?.list_ranked(tags).map_err(refused)?;
            say(console, library.format, &LibraryAnswer::Ranked(&ranked))
        }
        LibraryCommand::List {
            tags,
            sort,
            library,
        } => {
            let order = match sort {
                ListSort::Recent => ListOrder::Recent,
                ListSort::Id | ListSort::Rank => ListOrder::Id,
            };
            let prompts = open(library)?.list_in(tags, order).map_err(refused)?;
            say(console, library.format, &LibraryAnswer::Listed(&prompts))
        }
        LibraryCommand::Search {
            query,
            tags,
            library,
        } => {
            let hits = open(library)?.search(query, tags).map_err(refused)?;
            let found = LibraryAnswer::Found { query, hits: &hits };
            say(console, library.format, &found)
        }
        LibraryCommand::Show {
            id,
            version,
            library,
        } => {
            let prompt = open(library)?.get(id, *version).map_err(refused)?;
            say(console, library.format, &LibraryAnswer::Shown(&prompt))
        }
        LibraryCommand::History { id, library } => {
            let versions = open(library)?.history(id).map_err(refused)?;
            say(console, library.format, &LibraryAnswer::History(&versions))
        }
        LibraryCommand::Lock { id, library } | LibraryCommand::Unlock { id, library } => {
            let locked = matches!(command, LibraryCommand::Lock { .. });
            open(library)?.set_locked(id, locked).map_err(refused)?;
            say(
                console,
                library.format,
                &LibraryAnswer::Locked { id, locked },
            )
        }
        LibraryCommand::Rm { id, library } => {
            open(library)?.remove(id).map_err(refused)?;
            say(console, library.format, &LibraryAnswer::Removed { id })
        }
        LibraryCommand::Rate {
            id,
            score,
            version,
            comment,
            library,
        } => rate(id, *version, *score, comment.as_deref(), library, console),
        LibraryCommand::Audit {
            verify: Some(AuditCommand::Verify { library }),
            ..
        } => verify_audit(library, console),
        LibraryCommand::Audit {
            verify: None,
            id,
            since,
            library,
        } => audit(id.as_deref(), since.as_deref(), library, console),
    }
}

/// `prompt add`: one file answers with its prompt, as it always has; several files or
/// a directory with the list of them, in the order added.
fn add(files: &[PathBuf], library: &LibraryArgs, console: &mut Console) -> Result<Exit, CliError> {
    let set = load_template_set(files)?;
    console.diagnostics(&set.warnings);
    let stored = open(library)?
        .add_changes(&set.templates, &who(library))
        .map_err(refused)?;
    let one = stored.len() == 1 && files.len() == 1 && !files[0].is_dir();
    let added = LibraryAnswer::Added {
        prompts: &stored,
        one,
    };
    say(console, library.format, &added)
}

/// `prompt rate`: the rating is recorded, and the version rated answers with its
/// average.
fn rate(
    id: &str,
    version: Option<u64>,
    score: f64,
    comment: Option<&str>,
    library: &LibraryArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let mut lib = open(library)?;
    let version = lib
        .rate(id, version, score, comment, &who(library))
        .map_err(refused)?;
    let prompt = lib.get(id, Some(version)).map_err(refused)?;
    let rated = LibraryAnswer::Rated {
        id,
        score,
        prompt: &prompt,
    };
    say(console, library.format, &rated)
}

/// `prompt audit verify`: a broken chain is a definite no.
fn verify_audit(library: &LibraryArgs, console: &mut Console) -> Result<Exit, CliError> {
    let checked = open(library)?.verify_audit().map_err(refused)?;
    let answer = LibraryAnswer::Verified(checked.as_ref());
    say(console, library.format, &answer)?;
    Ok(if checked.is_ok() {
        Exit::Success
    } else {
        Exit::No
    })
}

/// `prompt audit`: the renders recorded, of one prompt or all, since a time.
fn audit(
    id: Option<&str>,
    since: Option<&str>,
    library: &LibraryArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let since = since.map(parse_since).transpose()?;
    let records = open(library)?.audit(id, since).map_err(refused)?;
    say(console, library.format, &LibraryAnswer::Audit(&records))
}

fn parse_since(text: &str) -> Result<SystemTime, CliError> {
    humantime::parse_rfc3339_weak(text).map_err(|e| {
        UsageError::not_a(
            "--since",
            Some(text),
            format!("is not an RFC 3339 time: {e}"),
        )
        .into()
    })
}
