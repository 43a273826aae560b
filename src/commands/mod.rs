//! One file per subcommand: each turns parsed arguments into library calls and
//! decides what the user sees.

mod hook;
mod invoke;
mod prompt;
mod validate;
mod vars;

use clap::CommandFactory;

use crate::cli::{Cli, CliError, Command, Exit, HookCommand, PromptCommand};

pub fn dispatch(cli: &Cli) -> Result<Exit, CliError> {
    match &cli.command {
        Command::InvokeTool(args) => invoke::run(cli, args),
        Command::Hook(HookCommand::Test(args)) => hook::test(cli, args),
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

/// Runs `work` on a current-thread runtime: calls wait on I/O, and it starts faster.
fn with_runtime<F, Fut, T>(work: F) -> Result<T, CliError>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Result<T, CliError>>,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(CliError::Runtime)?;
    runtime.block_on(work())
}

/// Ctrl-C or SIGTERM.
async fn interrupted() {
    let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(s) => s,
        Err(_) => return std::future::pending().await,
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}
