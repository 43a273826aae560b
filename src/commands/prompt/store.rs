//! The prompt library as the library and sharing commands open and answer from it.

use crate::cli::args::{LibraryArgs, LibraryFormat};
use crate::cli::{CliError, Console, Exit};
use crate::library::{Library, LibraryError};
use crate::report::Answer;

/// The library named by `--library` or `PROMPTEXEC_LIBRARY`, else the per-user one.
pub(in crate::commands) fn open(args: &LibraryArgs) -> Result<Library, CliError> {
    let path = args.library.clone().unwrap_or_else(Library::default_path);
    Library::open(&path).map_err(refused)
}

/// Who acts: `--agent`, else the user.
pub(in crate::commands) fn who(args: &LibraryArgs) -> String {
    args.agent.clone().unwrap_or_else(|| {
        let user = std::env::var("USER")
            .or_else(|_| std::env::var("LOGNAME"))
            .unwrap_or_else(|_| "unknown".into());
        format!("user:{user}")
    })
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
