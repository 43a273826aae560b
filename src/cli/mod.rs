//! The command line: arguments, logging, dispatch, and turning every outcome into a
//! documented exit code.

pub(crate) mod args;
mod entry;
mod error;
#[cfg(test)]
#[cfg(test)]
mod in_process;
mod logging;
pub(crate) mod output;
mod settings;
pub(crate) mod style;

pub(crate) use crate::report::Exit;
pub(crate) use args::{Cli, ColorWhen, Command, HookCommand, PromptCommand};
pub(crate) use entry::{command_tree, run};
pub(crate) use error::{CliError, Unknown, UsageError};
pub(crate) use output::Console;
pub(crate) use settings::Settings;
