//! One file per subcommand, each in the same shape: load its inputs and build a plan
//! (nothing started), execute the plan into a record, report the record through the
//! console it is given. Commands share only the modules below the commands list;
//! they never call each other.

mod ask;
mod eval;
mod hook;
mod hook_rpc;
mod invoke;
mod launch_check;
mod library;
mod prompt;
mod run;
mod share;
mod validate;

mod emit;
mod exit;
mod hook_report;
mod hook_samples;
mod load;
mod runtime;
mod store;
mod warnings;

use crate::cli::{CliError, Command, Console, Exit, HookCommand, PromptCommand, Settings};
use crate::config::HookKind;

/// Runs one command.
pub fn dispatch(
    command: &Command,
    settings: &Settings,
    console: &mut Console,
) -> Result<Exit, CliError> {
    match command {
        Command::Run(args) => run::run(settings, args, console),
        Command::InvokeTool(args) => invoke::run(settings, args, console),
        Command::Hook(HookCommand::Test(args)) => {
            // Exec and JSON-RPC hooks are tested differently; the config says which.
            let config = load::config(settings, console)?;
            let hook = load::lookup(&config.hooks, &args.name, "hook", "the config")?;
            match &hook.kind {
                HookKind::Server(server) => hook_rpc::test(hook, server, args, &config, console),
                _ => hook::test(hook, args, &config, console),
            }
        }
        Command::Eval(args) => eval::run(settings, args, console),
        Command::Validate(args) => validate::run(settings, args, console),
        Command::Prompt(PromptCommand::Render(args)) => prompt::render(args, console),
        Command::Prompt(PromptCommand::Library(command)) => library::run(command, console),
        Command::Prompt(PromptCommand::Share(command)) => share::run(command, console),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            let mut tree = crate::cli::command_tree();
            clap_complete::generate(*shell, &mut tree, "promptexec", &mut out);
            console.out(&String::from_utf8_lossy(&out))?;
            Ok(Exit::Success)
        }
    }
}
