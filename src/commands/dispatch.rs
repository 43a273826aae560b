//! Which command runs, given the parsed command line.

use crate::cli::{CliError, Command, Console, Exit, HookCommand, PromptCommand, Settings};
use crate::config::HookKind;

/// Runs one command.
pub(crate) fn dispatch(
    command: Command,
    settings: &Settings,
    console: &mut Console,
) -> Result<Exit, CliError> {
    match command {
        // With no message to play, `run` plays the pack's suite of scenarios.
        Command::Run(args) if args.messages.is_empty() && args.messages_from.is_none() => {
            super::suite::run(settings, &args, console)
        }
        Command::Run(args) => super::run::run(settings, *args, console),
        Command::InvokeTool(args) => super::invoke::run(settings, &args, console),
        Command::Hook(HookCommand::Test(args)) => {
            // Exec and JSON-RPC hooks are tested differently; the config says which.
            let config = super::load::config(settings, console)?;
            let hook = super::load::lookup(&config.hooks, &args.name, "hook", "the config")?;
            match &hook.kind {
                HookKind::Server(server) => {
                    super::hook_rpc::test(hook, server, &args, &config, console)
                }
                _ => super::hook::test(hook, &args, &config, console),
            }
        }
        Command::Test(args) => super::test::run(settings, &args, console),
        Command::List(args) => super::list::run(settings, &args, console),
        Command::Tools(args) => super::tools::run(settings, &args, console),
        Command::Eval(args) => super::eval::run(settings, &args, console),
        Command::Validate(args) => super::validate::run(settings, &args, console),
        Command::Check(args) => super::check::run(settings, &args, console),
        Command::Prompt(PromptCommand::Render(args)) => super::prompt::render(&args, console),
        Command::Prompt(PromptCommand::Library(command)) => super::library::run(&command, console),
        Command::Prompt(PromptCommand::Share(command)) => super::share::run(&command, console),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            let mut tree = crate::cli::command_tree();
            clap_complete::generate(shell, &mut tree, "promptexec", &mut out);
            console.out(&String::from_utf8_lossy(&out))?;
            Ok(Exit::Success)
        }
    }
}
