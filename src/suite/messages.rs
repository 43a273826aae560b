//! The user messages a conversation plays, one turn each.

/// Texts one after another in one string. Ten thousand turns are two allocations
/// instead of ten thousand, and the small strings the argument parser left behind
/// are freed before the run starts, so its memory can be used again.
#[derive(Debug, Default)]
pub(crate) struct UserMessages {
    text: String,
    /// Where each text ends in `text`.
    ends: Vec<usize>,
}

impl UserMessages {
    pub(crate) fn of<'t>(texts: impl Iterator<Item = &'t str> + Clone) -> Self {
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

    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
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
