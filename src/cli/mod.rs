//! The command line: arguments, logging, dispatch, and turning every outcome into a
//! documented exit code.

pub(crate) mod args;
mod entry;
mod error;
mod exit;
#[cfg(test)]
mod in_process;
mod logging;
pub(crate) mod output;
mod settings;
pub(crate) mod style;

pub use args::{BadVar, Cli, ColorWhen, Command, HookCommand, PromptCommand};
pub use entry::{command_tree, run, run_with};
pub use error::CliError;
pub use exit::Exit;
pub use output::Console;
pub use settings::Settings;
