//! The command line read once: parse the arguments, set up logging, quiet and colour
//! from the global options, and say what clap itself has to say. Running the command
//! is the caller's (the commands sit above the command line).

use std::ffi::OsString;
use std::io::IsTerminal;

use clap::{CommandFactory, Parser};

use super::{Cli, Command, Exit, Settings, logging, output, style};

/// The parsed command line, or clap's own message (help, version or a mistake).
pub(crate) fn parse<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    Cli::try_parse_from(args)
}

/// The whole command tree, for completions.
pub(crate) fn command_tree() -> clap::Command {
    Cli::command()
}

/// Sets up logging, `-q` and colour once, and returns the command with the settings
/// it acts on.
pub(crate) fn set_up(cli: Cli) -> (Command, Settings) {
    logging::init(cli.verbose, cli.quiet, cli.color);
    output::set_quiet(cli.quiet);
    style::set_enabled(cli.color.enabled(std::io::stderr().is_terminal()));
    let settings = Settings {
        config: cli.config,
        verbose: cli.verbose,
    };
    (cli.command, settings)
}

/// clap's own messages: help and version go to stdout with success, mistakes to stderr
/// with the usage exit code.
pub(crate) fn clap_says(err: &clap::Error) -> Exit {
    let _ = err.print();
    if err.use_stderr() {
        Exit::BadInput
    } else {
        Exit::Success
    }
}

/// Like [`clap_says`], written to `console` uncoloured.
#[cfg(test)]
pub(crate) fn clap_says_to(err: &clap::Error, console: &mut super::Console) -> Exit {
    let text = err.render().to_string();
    if err.use_stderr() {
        console.error(text.trim_end_matches('\n'));
        Exit::BadInput
    } else {
        let _ = console.out(&text);
        Exit::Success
    }
}
