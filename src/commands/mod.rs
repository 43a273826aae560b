//! One file per subcommand: each turns parsed arguments into library calls and
//! decides what the user sees.

mod invoke;
mod prompt;
mod validate;
mod vars;

use clap::CommandFactory;

use crate::cli::{Cli, CliError, Command, Exit, PromptCommand};

pub fn dispatch(cli: &Cli) -> Result<Exit, CliError> {
    match &cli.command {
        Command::InvokeTool(args) => invoke::run(cli, args),
        Command::Validate(args) => validate::run(cli, args),
        Command::Prompt(PromptCommand::Render(args)) => prompt::render(args),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "promptexec", &mut out);
            crate::cli::write_stdout(&String::from_utf8_lossy(&out))?;
            Ok(Exit::Success)
        }
    }
}
