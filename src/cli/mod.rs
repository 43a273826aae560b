//! The command line: arguments, settings, logging, the console and errors, each
//! error mapped to a documented exit code. Running a command is `commands`' job.

pub(crate) mod args;
mod entry;
mod error;
mod logging;
pub(crate) mod output;
mod settings;
pub(crate) mod style;

pub(crate) use crate::report::Exit;
pub(crate) use args::{Cli, ColorWhen, Command, HookCommand, PromptCommand};
#[cfg(test)]
pub(crate) use entry::clap_says_to;
pub(crate) use entry::{clap_says, command_tree, parse, set_up};
pub(crate) use error::{CliError, Unknown, UsageError};
pub(crate) use output::Console;
pub(crate) use settings::Settings;
