//! The user messages `run` plays, from `--message` flags or a `--messages-from` file.

use std::path::Path;

use crate::cli::{CliError, UsageError};
use crate::suite::UserMessages;

use crate::commands::common::load::read_text;

/// Each `--message` (`flags`), or each line of the `--messages-from` source
/// (`from`) that is not blank.
pub(super) fn load(flags: Vec<String>, from: Option<&Path>) -> Result<UserMessages, CliError> {
    let Some(source) = from else {
        return Ok(UserMessages::of(flags.iter().map(String::as_str)));
    };
    let text = read_text(source)?;
    let messages = UserMessages::of(text.lines().filter(|line| !line.trim().is_empty()));
    if messages.len() == 0 {
        let name = if source == Path::new("-") {
            "stdin".into()
        } else {
            source.display().to_string()
        };
        return Err(UsageError::Nothing(format!(
            "--messages-from {name}: no messages (each line that is not blank is one turn)"
        ))
        .into());
    }
    Ok(messages)
}
