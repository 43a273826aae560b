//! Warnings found while loading a run's inputs (config, pack, mock file, scenario
//! choice): shown once, kept for the report, and fatal under `--strict`.

use crate::cli::{CliError, Console, Settings};
use crate::config::{self, RuntimeConfig};
use crate::doc::{Diagnostic, Diagnostics, Loaded, Rejected};
use crate::report::strict_verdict;

use crate::commands::common::load::{config_path, no_config};

/// Without `--strict` each warning is printed as soon as it is found, as before;
/// with it they are held, and any one stops the command before anything starts.
#[derive(Debug)]
pub(in crate::commands) struct LoadWarnings {
    strict: bool,
    found: Diagnostics,
}

impl LoadWarnings {
    pub(in crate::commands) fn new(strict: bool) -> Self {
        Self {
            strict,
            found: Diagnostics::default(),
        }
    }

    /// The pack at `path`, when one is given, its warnings kept.
    pub(in crate::commands) fn pack(
        &mut self,
        path: Option<&std::path::Path>,
        console: &mut Console,
    ) -> Result<Option<crate::pack::Pack>, CliError> {
        path.map(|path| self.keep(crate::pack::load(path), console))
            .transpose()
    }

    /// The loaded value, its warnings kept; a rejected file is bad input, shown with
    /// the warnings held so far.
    pub(in crate::commands) fn keep<T>(
        &mut self,
        loaded: Result<Loaded<T>, Rejected>,
        console: &mut Console,
    ) -> Result<T, CliError> {
        match loaded {
            Ok(loaded) => {
                for warning in loaded.warnings.iter() {
                    self.add(warning.clone(), console);
                }
                Ok(loaded.value)
            }
            Err(rejected) => {
                let mut all = if self.strict {
                    std::mem::take(&mut self.found)
                } else {
                    Diagnostics::default()
                };
                all.extend(rejected.0);
                Err(CliError::Invalid(all))
            }
        }
    }

    /// The warnings among `found` kept, as [`Self::add`] keeps them; its errors, if
    /// any, are bad input.
    pub(in crate::commands) fn sort(
        &mut self,
        found: &Diagnostics,
        console: &mut Console,
    ) -> Result<(), CliError> {
        let mut problems = Diagnostics::default();
        for diagnostic in found.iter() {
            if diagnostic.is_error() {
                problems.push(diagnostic.clone());
            } else {
                self.add(diagnostic.clone(), console);
            }
        }
        if problems.has_errors() {
            return Err(CliError::Invalid(problems));
        }
        Ok(())
    }

    pub(in crate::commands) fn add(&mut self, warning: Diagnostic, console: &mut Console) {
        if !self.strict {
            console.diagnostics(&warning.clone().into());
        }
        self.found.push(warning);
    }

    /// The config given or found, like every command reads it, keeping its warnings.
    pub(in crate::commands) fn config(
        &mut self,
        settings: &Settings,
        console: &mut Console,
    ) -> Result<RuntimeConfig, CliError> {
        let path = config_path(settings).ok_or_else(no_config)?;
        self.keep(config::load(&path, false), console)
    }

    /// The config given or found, else an empty one (no providers: the bare mock
    /// plays; no bindings), as `run` plays a pack without a config.
    pub(in crate::commands) fn config_or_empty(
        &mut self,
        settings: &Settings,
        console: &mut Console,
    ) -> Result<RuntimeConfig, CliError> {
        match config_path(settings) {
            Some(path) => self.keep(config::load(&path, false), console),
            None => Ok(RuntimeConfig {
                base_dir: crate::commands::common::load::current_dir(),
                ..RuntimeConfig::default()
            }),
        }
    }

    /// Every warning, for the report; under `--strict` any warning is bad input.
    pub(in crate::commands) fn settle(self) -> Result<Diagnostics, CliError> {
        if self.strict && self.found.warning_count() > 0 {
            let mut fatal = self.found;
            fatal.push(strict_verdict(fatal.warning_count()));
            return Err(CliError::Invalid(fatal));
        }
        Ok(self.found)
    }
}
