//! The command line: arguments, logging, dispatch, and turning every outcome into a
//! documented exit code.

pub(crate) mod args;
mod error;
mod exit;
mod logging;
pub(crate) mod output;
pub(crate) mod style;

pub use args::{Cli, ColorWhen, Command, HookCommand, PromptCommand};
pub use error::CliError;
pub use exit::Exit;
pub use output::{print_diagnostics, write_stdout};

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::Parser;

/// Runs promptexec with the process's arguments and returns its exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage(err),
    };
    logging::init(cli.verbose, cli.quiet, cli.color);
    output::set_quiet(cli.quiet);
    style::set_enabled(cli.color.enabled(std::io::stderr().is_terminal()));
    let exit = match crate::commands::dispatch(&cli) {
        Ok(exit) => exit,
        Err(err) => {
            err.report();
            err.exit()
        }
    };
    exit.into()
}

/// clap's own messages: help and version go to stdout with success, mistakes to stderr
/// with the usage exit code.
fn usage(err: clap::Error) -> ExitCode {
    let _ = err.print();
    if err.use_stderr() {
        Exit::BadInput.into()
    } else {
        Exit::Success.into()
    }
}
