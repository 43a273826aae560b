//! The prompt library as the commands that use it (`prompt …`, `ui`) open it and
//! answer from it.

use std::path::Path;

use crate::cli::args::{LibraryArgs, LibraryFormat};
use crate::cli::{CliError, Console, Exit};
use crate::library::lint::Config as LintConfig;
use crate::library::{Library, LibraryError};
use crate::report::Answer;

/// The library named by `--library` or `PROMPTEXEC_LIBRARY`, else the per-user one.
pub(in crate::commands) fn open(args: &LibraryArgs) -> Result<Library, CliError> {
    let path = args.library.clone().unwrap_or_else(Library::default_path);
    Library::open(&path).map_err(refused)
}

/// Who acts: `--agent`, else the user.
pub(in crate::commands) fn who(args: &LibraryArgs) -> String {
    acting(args.agent.as_deref())
}

/// `agent` when given, else `user:$USER`.
pub(in crate::commands) fn acting(agent: Option<&str>) -> String {
    agent.map_or_else(
        || {
            let user = std::env::var("USER")
                .or_else(|_| std::env::var("LOGNAME"))
                .unwrap_or_else(|_| "unknown".into());
            format!("user:{user}")
        },
        str::to_owned,
    )
}

/// A refusal or failure of the library, as the user sees it.
pub(in crate::commands) fn refused(err: LibraryError) -> CliError {
    CliError::from(err)
}

/// A library command's answer on stdout, as JSON or as text.
pub(in crate::commands) fn say(
    console: &mut Console,
    format: LibraryFormat,
    answer: &impl Answer,
) -> Result<Exit, CliError> {
    let text = match format {
        LibraryFormat::Json => answer.json(),
        LibraryFormat::Human => answer.human(),
    };
    console.out(&format!("{}\n", text.trim_end()))?;
    Ok(Exit::Success)
}

/// The lint config read when none is named and it is present here.
const DEFAULT_RULES: &str = ".promptlint.yaml";

/// The lint rules of `path`, else of `.promptlint.yaml` here, else the defaults; the
/// file's warnings on stderr.
pub(in crate::commands) fn lint_rules(
    path: Option<&Path>,
    console: &mut Console,
) -> Result<LintConfig, CliError> {
    let path = match path {
        Some(path) => path,
        None if Path::new(DEFAULT_RULES).is_file() => Path::new(DEFAULT_RULES),
        None => return Ok(LintConfig::default()),
    };
    let loaded = LintConfig::load(path)?;
    console.diagnostics(&loaded.warnings);
    Ok(loaded.value)
}
