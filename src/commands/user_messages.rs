//! The user messages `run` plays, from `--message` flags or a `--messages-from` file.

use std::path::Path;

use crate::cli::CliError;

use super::load::read_text;

/// Texts one after another in one string. Ten thousand turns are two allocations
/// instead of ten thousand, and the small strings the argument parser left behind
/// are freed before the run starts, so its memory can be used again.
#[derive(Debug, Default)]
pub(super) struct UserMessages {
    text: String,
    /// Where each text ends in `text`.
    ends: Vec<usize>,
}

impl UserMessages {
    /// Each `--message` (`flags`), or each line of the `--messages-from` source
    /// (`from`) that is not blank.
    pub(super) fn load(flags: Vec<String>, from: Option<&Path>) -> Result<Self, CliError> {
        let Some(source) = from else {
            return Ok(Self::of(flags.iter().map(String::as_str)));
        };
        let text = read_text(source)?;
        let messages = Self::of(text.lines().filter(|line| !line.trim().is_empty()));
        if messages.len() == 0 {
            let name = if source == Path::new("-") {
                "stdin".into()
            } else {
                source.display().to_string()
            };
            return Err(CliError::Usage(format!(
                "--messages-from {name}: no messages (each line that is not blank is one turn)"
            )));
        }
        Ok(messages)
    }

    pub(super) fn of<'t>(texts: impl Iterator<Item = &'t str> + Clone) -> Self {
        let mut messages = Self {
            text: String::with_capacity(texts.clone().map(str::len).sum()),
            ends: Vec::with_capacity(texts.clone().count()),
        };
        for text in texts {
            messages.text.push_str(text);
            messages.ends.push(messages.text.len());
        }
        messages
    }

    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &str> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .map(|(start, &end)| &self.text[start..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_back_each_text_as_it_was_given() {
        let given = ["first", "", "  spaced  ", "é and \u{1F600}", "last"];
        let messages = UserMessages::of(given.iter().copied());
        assert_eq!(messages.len(), given.len());
        assert_eq!(messages.iter().collect::<Vec<_>>(), given);
        assert_eq!(messages.text.capacity(), messages.text.len());
    }

    #[test]
    fn none_is_empty() {
        let messages = UserMessages::of(std::iter::empty());
        assert_eq!(messages.len(), 0);
        assert_eq!(messages.iter().count(), 0);
    }
}
