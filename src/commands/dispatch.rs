//! Where the program starts: read the command line, run the command it names, turn
//! its outcome into an exit code.

use std::ffi::OsString;
use std::process::ExitCode;

use crate::cli::{CliError, Command, Console, Exit, HookCommand, PromptCommand, Settings};
use crate::config::HookKind;

use super::common::watch::{Watchable, watch};

/// Runs promptexec with these arguments (the first is the program's name) on the
/// process's stdout and stderr, and returns its exit code.
pub(crate) fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    // Before anything is spawned, so that every detached descendant comes back here.
    crate::exec::become_subreaper();
    let exit = match crate::cli::parse(args) {
        Ok(cli) => execute(cli, &mut Console::stdio()),
        Err(err) => crate::cli::clap_says(&err),
    };
    // Every command has returned, interrupted or not: what its extensions left goes.
    crate::exec::kill_remaining_children();
    exit.into()
}

/// Like [`run`], with the command's output written to `console`; clap's help and
/// usage messages go there too, uncoloured.
#[cfg(test)]
pub(crate) fn run_with<I, T>(args: I, console: &mut Console) -> Exit
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    match crate::cli::parse(args) {
        Ok(cli) => execute(cli, console),
        Err(err) => crate::cli::clap_says_to(&err, console),
    }
}

/// Sets up the global options once, then runs the command; an error is reported on
/// the console and becomes its exit code.
fn execute(cli: crate::cli::Cli, console: &mut Console) -> Exit {
    let (command, settings) = crate::cli::set_up(cli);
    match dispatch(command, &settings, console) {
        Ok(exit) => exit,
        Err(err) => {
            err.report(console);
            err.exit()
        }
    }
}

/// One run of a command `--watch` runs again.
fn again(settings: &Settings, command: Watchable, console: &mut Console) -> Result<Exit, CliError> {
    match command {
        Watchable::Run(args) => super::run::run(settings, *args, console),
        Watchable::Test(args) => super::test::run(settings, &args, console),
        Watchable::Check(args) => super::check::run(settings, &args, console),
    }
}

/// Runs one command.
fn dispatch(
    mut command: Command,
    settings: &Settings,
    console: &mut Console,
) -> Result<Exit, CliError> {
    command.settle()?;
    match command {
        Command::Run(args) if args.watch.watch => {
            watch(settings, Watchable::Run(args), console, again)
        }
        Command::Test(args) if args.watch.watch => {
            watch(settings, Watchable::Test(args), console, again)
        }
        Command::Check(args) if args.watch.watch => {
            watch(settings, Watchable::Check(args), console, again)
        }
        Command::Run(args) => super::run::run(settings, *args, console),
        Command::InvokeTool(args) => super::invoke::run(settings, &args, console),
        Command::Hook(HookCommand::Test(args)) => {
            // Exec and JSON-RPC hooks are tested differently; the config says which.
            let config = crate::commands::common::load::config(settings, console)?;
            let hook = crate::commands::common::load::lookup(
                &config.hooks,
                &args.name,
                "hook",
                "the config",
            )?;
            match &hook.kind {
                HookKind::Server(server) => {
                    super::hook::rpc::test(hook, server, &args, &config, console)
                }
                _ => super::hook::exec::test(hook, &args, &config, console),
            }
        }
        Command::Test(args) => super::test::run(settings, &args, console),
        Command::List(args) => super::list::run(settings, &args, console),
        Command::Tools(args) => super::tools::run(settings, &args, console),
        Command::Eval(args) => super::eval::run(settings, &args, console),
        Command::Validate(args) => super::validate::run(settings, &args, console),
        Command::Check(args) => super::check::run(settings, &args, console),
        Command::Lock(args) => super::lock::run(settings, &args, console),
        Command::Diff(args) => super::diff::run(&args, console),
        Command::Report(command) => super::report::run(&command, console),
        Command::Prompt(PromptCommand::Render(args)) => {
            super::prompt::render::render(&args, console)
        }
        Command::Prompt(PromptCommand::Library(command)) => {
            super::prompt::library::run(&command, console)
        }
        Command::Prompt(PromptCommand::Share(command)) => {
            super::prompt::share::run(&command, console)
        }
        Command::Prompt(PromptCommand::Files(command)) => {
            super::prompt::files::run(&command, console)
        }
        Command::Prompt(PromptCommand::Lint(args)) => super::prompt::lint::run(&args, console),
        Command::Prompt(PromptCommand::Stats(args)) => super::prompt::stats::run(&args, console),
        Command::Prompt(PromptCommand::Chain(command)) => {
            super::prompt::chain::run(settings, &command, console)
        }
        Command::Init(args) => super::init::run(&args, console),
        Command::Ui(args) => super::ui::run(&args, console),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            let mut tree = crate::cli::command_tree();
            clap_complete::generate(shell, &mut tree, "promptexec", &mut out);
            console.out(&String::from_utf8_lossy(&out))?;
            Ok(Exit::Success)
        }
    }
}
