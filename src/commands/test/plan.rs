//! The case files a command line names, read and planned before any process starts.
//! A problem anywhere is exit 2 with every problem of every file, each at its place.

use std::path::{Path, PathBuf};

use tokio_util::sync::CancellationToken;

use crate::cli::args::TestArgs;
use crate::cli::{CliError, Console, Settings, UsageError};
use crate::doc::{Diagnostics, Rejected};
use crate::suite::cases::{self, CasesPlan, PlannedFile, case_files, plan_files};

use crate::commands::common::load;
use crate::commands::common::runtime::default_jobs;

/// Reads the config and every case file (those under the current folder when no
/// path is given), and plans every selected case.
pub(super) fn plan(
    settings: &Settings,
    args: &TestArgs,
    console: &mut Console,
) -> Result<CasesPlan, CliError> {
    let config = load::config(settings, console)?;
    let mut problems = Diagnostics::default();
    let mut loaded = Vec::new();
    for path in files(&args.paths, &mut problems) {
        match cases::load(&path) {
            Ok(file) => {
                problems.extend(file.warnings);
                loaded.push(file.value);
            }
            Err(Rejected(found)) => problems.extend(found),
        }
    }
    let mut files = plan_files(&loaded, &config, &mut problems);
    if problems.has_errors() {
        return Err(CliError::Invalid(problems));
    }
    console.diagnostics(&problems);
    select(&mut files, args.filter.as_deref())?;
    Ok(CasesPlan {
        files,
        jobs: args.jobs.map_or_else(default_jobs, |n| n as usize),
        fail_fast: args.fail_fast,
        update_snapshots: args.update_snapshots,
        stop: CancellationToken::new(),
    })
}

/// The case files `paths` name; with none, those under the current folder, named
/// from there (`tools.cases.yaml`, not `./tools.cases.yaml`).
fn files(paths: &[PathBuf], problems: &mut Diagnostics) -> Vec<PathBuf> {
    if !paths.is_empty() {
        return case_files(paths, problems);
    }
    let here = Path::new(".");
    case_files(&[here.to_path_buf()], problems)
        .into_iter()
        .map(|file| {
            file.strip_prefix(here)
                .map(Path::to_path_buf)
                .unwrap_or(file)
        })
        .collect()
}

/// Keeps the cases whose name contains `filter`, and the files that still have some;
/// running nothing at all is a mistake worth saying.
fn select(files: &mut Vec<PlannedFile>, filter: Option<&str>) -> Result<(), UsageError> {
    if let Some(text) = filter {
        for file in files.iter_mut() {
            file.cases.retain(|case| case.name.contains(text));
        }
    }
    files.retain(|file| !file.cases.is_empty());
    if !files.is_empty() {
        return Ok(());
    }
    Err(match filter {
        Some(text) => UsageError::NoMatch(format!("no case name contains `{text}`")),
        None => UsageError::Nothing("the case files hold no cases".into()),
    })
}
