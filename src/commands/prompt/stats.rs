//! `prompt stats`: usage, pass rate, rating and rank per prompt version.

use std::time::SystemTime;

use crate::cli::args::StatsArgs;
use crate::cli::{CliError, Console, Exit};
use crate::report::StatsAnswer;

use crate::commands::common::library::{open, refused, say};

pub(in crate::commands) fn run(args: &StatsArgs, console: &mut Console) -> Result<Exit, CliError> {
    let now = args.now.unwrap_or_else(SystemTime::now);
    let stats = open(&args.library)?
        .stats(args.id.as_deref(), now)
        .map_err(refused)?;
    say(console, args.library.format, &StatsAnswer(&stats))
}
