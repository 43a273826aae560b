//! A suite's scenario files: found where they are given (or beside the pack), read
//! strictly, every problem in every file reported at once.

use std::path::{Path, PathBuf};

use crate::cli::{CliError, Console, UsageError};
use crate::doc::{Diagnostic, Diagnostics, one_of};
use crate::suite::{self, Scenario};

use crate::commands::common::warnings::LoadWarnings;

pub(in crate::commands) mod arena;
pub(in crate::commands) mod plan;

/// The scenarios in the files and folders `given`, else in the `scenarios/` folder
/// beside `pack`; `None` when nothing was given and that folder does not exist.
/// Ids must be unique.
pub(in crate::commands) fn read(
    pack: &Path,
    given: &[PathBuf],
    warnings: &mut LoadWarnings,
    console: &mut Console,
) -> Result<Option<Vec<Scenario>>, CliError> {
    let paths = if given.is_empty() {
        let folder = suite::default_folder(pack);
        if !folder.is_dir() {
            return Ok(None);
        }
        vec![folder]
    } else {
        given.to_vec()
    };
    let files =
        suite::scenario_files(&paths).map_err(|(path, source)| CliError::Read { path, source })?;
    if files.is_empty() {
        return Err(none_in(&paths[0]));
    }
    let (scenarios, found) = load_all(&files);
    warnings.sort(&found, console)?;
    Ok(Some(scenarios))
}

/// Every scenario of `files` that loads, and every warning and error found in them
/// (ids must be unique among them).
pub(in crate::commands) fn load_all(files: &[PathBuf]) -> (Vec<Scenario>, Diagnostics) {
    let mut found = Diagnostics::default();
    let mut scenarios: Vec<Scenario> = Vec::new();
    for file in files {
        match suite::load_scenario(file) {
            Ok(loaded) => {
                found.extend(loaded.warnings);
                let scenario = loaded.value;
                if let Some(first) = scenarios.iter().find(|s| s.id == scenario.id) {
                    found.push(Diagnostic::error(
                        &scenario.path,
                        scenario.pos,
                        format!(
                            "scenario id `{}` is also the id of {}; ids must be unique in a suite",
                            scenario.id,
                            first.path.display()
                        ),
                    ));
                }
                scenarios.push(scenario);
            }
            Err(rejected) => found.extend(rejected.0),
        }
    }
    (scenarios, found)
}

/// A `--filter` that picks no scenario is a mistake (a typo, most likely), not an
/// empty part of the suite.
pub(in crate::commands) fn check_filters(
    scenarios: &[Scenario],
    filters: &[String],
) -> Result<(), CliError> {
    let Some(idle) = filters
        .iter()
        .find(|f| !scenarios.iter().any(|s| suite::matches(s, f)))
    else {
        return Ok(());
    };
    let ids: Vec<&str> = scenarios.iter().map(|s| s.id.as_str()).collect();
    Err(UsageError::NoMatch(format!(
        "--filter {idle} matches no scenario (the suite has {}){}",
        one_of(&ids),
        crate::doc::suggest(idle, ids.iter().copied())
    ))
    .into())
}

/// What a suite with nothing to play says.
pub(in crate::commands) fn none_in(place: &Path) -> CliError {
    UsageError::Nothing(format!(
        "no scenarios to play in {}: give scenario files or folders of `*.scenario.yaml` files, or --message TEXT to play one conversation",
        place.display()
    ))
    .into()
}
