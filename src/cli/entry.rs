//! Where the program starts: parse the arguments, set up logging and colour, run
//! the command, turn its outcome into an exit code.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use super::{Cli, Console, Exit, Settings, logging, output, style};

/// Runs promptexec with these arguments (the first is the program's name) on the
/// process's stdout and stderr, and returns its exit code.
pub(crate) fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    // Before anything is spawned, so that every detached descendant comes back here.
    crate::exec::become_subreaper();
    let code = match Cli::try_parse_from(args) {
        Ok(cli) => execute(cli, &mut Console::stdio()).into(),
        Err(err) => usage(err),
    };
    // Every command has returned, interrupted or not: what its extensions left goes.
    crate::exec::kill_remaining_children();
    code
}

/// Like [`run`], with the command's output written to `console`; clap's help and
/// usage messages go there too, uncoloured.
#[cfg(test)]
pub(crate) fn run_with<I, T>(args: I, console: &mut Console) -> Exit
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    match Cli::try_parse_from(args) {
        Ok(cli) => execute(cli, console),
        Err(err) => {
            let text = err.render().to_string();
            if err.use_stderr() {
                console.error(text.trim_end_matches('\n'));
                Exit::BadInput
            } else {
                let _ = console.out(&text);
                Exit::Success
            }
        }
    }
}

/// The whole command tree, for completions.
pub(crate) fn command_tree() -> clap::Command {
    Cli::command()
}

/// Sets up logging and colour once, then hands the command its settings.
fn execute(cli: Cli, console: &mut Console) -> Exit {
    logging::init(cli.verbose, cli.quiet, cli.color);
    output::set_quiet(cli.quiet);
    style::set_enabled(cli.color.enabled(std::io::stderr().is_terminal()));
    let settings = Settings {
        config: cli.config,
        verbose: cli.verbose,
        quiet: cli.quiet,
    };
    match crate::commands::dispatch(cli.command, &settings, console) {
        Ok(exit) => exit,
        Err(err) => {
            err.report(console);
            err.exit()
        }
    }
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
