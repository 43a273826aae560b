//! One file per subcommand: each turns parsed arguments into library calls and
//! decides what the user sees.

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
pub(crate) mod vars;
mod warnings;

use clap::CommandFactory;

use crate::cli::{Cli, CliError, Command, Exit, HookCommand, PromptCommand};

pub fn dispatch(cli: &Cli) -> Result<Exit, CliError> {
    match &cli.command {
        Command::Run(args) => run::run(cli, args),
        Command::InvokeTool(args) => invoke::run(cli, args),
        Command::Hook(HookCommand::Test(args)) => hook::test(cli, args),
        Command::Eval(args) => eval::run(cli, args),
        Command::Validate(args) => validate::run(cli, args),
        Command::Prompt(PromptCommand::Render(args)) => prompt::render(args),
        Command::Prompt(PromptCommand::Library(command)) => library::run(command),
        Command::Prompt(PromptCommand::Share(command)) => share::run(command),
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

/// `map[name]`, or a usage error that says what there is and which name was meant.
fn lookup<'a, T>(
    map: &'a indexmap::IndexMap<String, T>,
    name: &str,
    what: &str,
    place: &str,
) -> Result<&'a T, CliError> {
    map.get(name).ok_or_else(|| {
        let names: Vec<&str> = map.keys().map(String::as_str).collect();
        let hint = crate::doc::suggest(name, names.iter().copied());
        let have = if names.is_empty() {
            "none".to_string()
        } else {
            crate::doc::one_of(&names)
        };
        CliError::Usage(format!(
            "{place} has no {what} `{name}`{hint} (it has {have})"
        ))
    })
}

/// The text of a file, or of stdin for `-`.
fn read_text(source: &str) -> Result<String, CliError> {
    use std::io::Read;
    let mut text = String::new();
    let read = if source == "-" {
        std::io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::read_to_string(source).map(|t| text = t)
    };
    read.map_err(|err| CliError::Read {
        path: if source == "-" {
            "<stdin>".into()
        } else {
            source.into()
        },
        source: err,
    })?;
    Ok(text)
}

/// A JSON object given inline, as `@FILE`, or as `-` for stdin; `flag` and `what`
/// name it in errors.
fn read_json_object(given: &str, flag: &str, what: &str) -> Result<serde_json::Value, CliError> {
    let (text, origin) = match given.strip_prefix('@') {
        Some(file) => (read_text(file)?, file.to_string()),
        None if given == "-" => (read_text("-")?, "stdin".to_string()),
        None => (given.to_string(), flag.to_string()),
    };
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|err| CliError::Usage(format!("{origin}: {what} are not valid JSON: {err}")))?;
    if !value.is_object() {
        return Err(CliError::Usage(format!(
            "{origin}: {what} must be a JSON object, found {}",
            json_kind(&value)
        )));
    }
    Ok(value)
}

fn json_kind(value: &serde_json::Value) -> &'static str {
    use serde_json::Value as Json;
    match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// A report to FILE, or to stdout without one. A regular file is replaced atomically
/// (readers see the old file or the whole new one); links are written through and
/// devices written directly, as the shell's `>` would.
fn write_output(output: Option<&std::path::Path>, text: &str) -> Result<(), CliError> {
    match output {
        Some(path) => {
            crate::report::write_atomic(path, text.as_bytes()).map_err(|source| CliError::Write {
                path: path.to_path_buf(),
                source,
            })
        }
        None => crate::cli::write_stdout(text),
    }
}

/// The more serious of two outcomes, for commands that make several calls.
pub(crate) fn worse(a: Exit, b: Exit) -> Exit {
    let rank = |e: Exit| match e {
        Exit::Success => 0,
        Exit::Pending => 1,
        Exit::No => 2,
        Exit::ExtensionFailed => 3,
        Exit::BadInput => 4,
        Exit::Interrupted => 5,
    };
    if rank(b) > rank(a) { b } else { a }
}

/// Prints one decision per line (pretty when there is only one), explains each on
/// stderr, and returns the most serious exit code among them.
fn print_decisions<R: serde::Serialize>(
    reports: &[R],
    exit_of: impl Fn(&R) -> Exit,
    explain: impl Fn(&R),
) -> Result<Exit, CliError> {
    let mut exit = Exit::Success;
    for report in reports {
        let text = if reports.len() > 1 {
            serde_json::to_string(report)
        } else {
            serde_json::to_string_pretty(report)
        };
        crate::cli::write_stdout(&format!("{}\n", text.unwrap_or_default()))?;
        explain(report);
        exit = worse(exit, exit_of(report));
    }
    Ok(exit)
}
