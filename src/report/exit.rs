//! The exit codes every command shares. Records compute theirs, so the type lives
//! here, below the command line that turns it into the process's exit code.

use std::process::ExitCode;

/// The exit codes every command shares; scripts depend on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exit {
    /// The call answered, the hook allowed, the evals passed.
    Success,
    /// A definite "no": a tool error, a denial, a failed eval or assertion.
    No,
    /// Bad input: usage, config, pack, template, arguments.
    BadInput,
    /// An extension crashed, timed out, or answered with invalid output.
    ExtensionFailed,
    /// A tool is waiting on a person's decision.
    Pending,
    /// Interrupted by Ctrl-C or SIGTERM.
    Interrupted,
}

impl Exit {
    pub(crate) fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::No => 1,
            Exit::BadInput => 2,
            Exit::ExtensionFailed => 3,
            Exit::Pending => 4,
            Exit::Interrupted => 130,
        }
    }

    /// The exit a code stands for; a code no exit has counts as an extension
    /// failure, never as success.
    pub(crate) fn from_code(code: u8) -> Self {
        match code {
            0 => Exit::Success,
            1 => Exit::No,
            2 => Exit::BadInput,
            4 => Exit::Pending,
            130 => Exit::Interrupted,
            _ => Exit::ExtensionFailed,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.code())
    }
}
