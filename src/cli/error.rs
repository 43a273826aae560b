use std::io;
use std::path::PathBuf;

use crate::doc::{Diagnostics, Rejected};

use super::{Console, Exit};

/// Every way a command can fail, each mapped to one exit code.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// Files or inputs with problems; the diagnostics say where.
    #[error("invalid input")]
    Invalid(Diagnostics),
    /// Arguments that make sense to clap but not to the command.
    #[error("{0}")]
    Usage(String),
    #[error("cannot read {}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot write output")]
    Output(#[source] io::Error),
    #[error("cannot write {}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("cannot start the async runtime")]
    Runtime(#[source] io::Error),
    #[error(transparent)]
    Library(#[from] crate::library::LibraryError),
    /// A signature, trust or freshness check said no.
    #[error("refused")]
    Refused(#[from] crate::library::ShareError),
    #[error("interrupted")]
    Interrupted,
}

impl From<Rejected> for CliError {
    fn from(rejected: Rejected) -> Self {
        CliError::Invalid(rejected.0)
    }
}

/// A refusal the library had every right to make is a definite no; anything else
/// is a problem with what was asked of it.
fn library_exit(err: &crate::library::LibraryError) -> Exit {
    use crate::library::LibraryError as E;
    match err {
        E::Locked(_) | E::Replayed => Exit::No,
        E::Open { .. }
        | E::CreateDir { .. }
        | E::TooNew { .. }
        | E::NotFound(_)
        | E::NoVersion { .. }
        | E::BadRating(_)
        | E::Sql(_) => Exit::BadInput,
    }
}

impl CliError {
    pub(crate) fn exit(&self) -> Exit {
        match self {
            CliError::Invalid(_)
            | CliError::Usage(_)
            | CliError::Read { .. }
            | CliError::Output(_)
            | CliError::Write { .. }
            | CliError::Runtime(_) => Exit::BadInput,
            CliError::Library(err) => library_exit(err),
            CliError::Refused(_) => Exit::No,
            CliError::Interrupted => Exit::Interrupted,
        }
    }

    /// Prints the error on stderr: diagnostics one per line, anything else with its
    /// chain of causes.
    pub(crate) fn report(&self, console: &mut Console) {
        match self {
            CliError::Invalid(diagnostics) => console.diagnostics(diagnostics),
            CliError::Output(err) if err.kind() == io::ErrorKind::BrokenPipe => {}
            CliError::Interrupted => {}
            other => {
                let mut message = format!("error: {other}");
                let mut source = std::error::Error::source(other);
                while let Some(cause) = source {
                    message.push_str(&format!(": {cause}"));
                    source = cause.source();
                }
                // A cause may quote what a server or an extension wrote.
                console.error(&super::style::peer(&message, true));
            }
        }
    }
}
