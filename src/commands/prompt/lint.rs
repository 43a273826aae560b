//! `prompt lint`: library prompts, template files or a folder of them, checked
//! against the lint rules. Exit 1 on an error-level finding, 0 otherwise, 2 when a
//! template, the config or the library cannot be read.

use std::path::Path;

use crate::cli::args::{LibraryArgs, LibraryFormat, LintArgs, LintFormat};
use crate::cli::{CliError, Console, Exit, UsageError};
use crate::library::lint::{self, Finding, Partials, Subject};
use crate::library::template_files_in;
use crate::report::{lint_human, lint_json, lint_sarif};
use crate::sarif::Level;

use crate::commands::common::emit::pretty;
use crate::commands::common::library::{lint_rules, open, refused};

pub(in crate::commands) fn run(args: &LintArgs, console: &mut Console) -> Result<Exit, CliError> {
    let config = lint_rules(args.rules.as_deref(), console)?;
    let mut subjects = Vec::new();
    for path in &args.files {
        subjects.push(read(path)?);
    }
    if let Some(dir) = &args.dir {
        let found = template_files_in(dir)?;
        if found.is_empty() {
            return Err(UsageError::Nothing(format!(
                "no template files (*.prompt, *.json) under {}",
                dir.display()
            ))
            .into());
        }
        for path in found {
            subjects.push(read(&path)?);
        }
    }
    let from_files = !args.files.is_empty() || args.dir.is_some();
    let mut partials = Partials::default();
    // Library prompts are linted when named (or when no file is given), and are the
    // partials of the files too when a library is named.
    if !args.ids.is_empty() || !from_files || args.library.is_some() {
        let library = open(&LibraryArgs {
            library: args.library.clone(),
            agent: None,
            format: LibraryFormat::Human,
        })?;
        let latest: Vec<Subject> = library
            .list(&[])
            .map_err(refused)?
            .iter()
            .map(|p| lint::from_library(&p.id, p.version, &p.content))
            .collect();
        latest.iter().for_each(|s| partials.add_subject(s));
        if !args.ids.is_empty() {
            for id in &args.ids {
                let stored = library.get(id, None).map_err(refused)?;
                subjects.push(lint::from_library(id, stored.version, &stored.content));
            }
        } else if !from_files {
            subjects.extend(latest);
        }
    }
    for subject in &subjects {
        partials.add_subject(subject);
    }
    let findings: Vec<Finding> = subjects
        .iter()
        .flat_map(|subject| lint::lint(subject, &partials, &config))
        .collect();
    let text = match args.format {
        LintFormat::Human => lint_human(&findings, subjects.len()),
        LintFormat::Json => pretty(&lint_json(&findings, subjects.len())),
        LintFormat::Sarif => pretty(&lint_sarif(&findings)),
    };
    console.out(&text)?;
    Ok(match findings.iter().any(|f| f.level == Level::Error) {
        true => Exit::No,
        false => Exit::Success,
    })
}

fn read(path: &Path) -> Result<Subject, CliError> {
    lint::read_file(path).map_err(|source| CliError::Read {
        path: path.to_path_buf(),
        source,
    })
}
