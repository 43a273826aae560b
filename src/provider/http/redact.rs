//! Keeping a provider's secrets out of every text promptexec writes: its key, and
//! the values of its configured `headers`, which are often tokens as well, join the
//! process-wide set of [`crate::secret`].

use indexmap::IndexMap;

use super::credential::ApiKey;

/// Registers the key (from 4 characters) and every header value (from 8; for a value
/// such as `Bearer TOKEN`, the token alone too, as a server may echo just that).
pub(super) fn register(key: Option<&ApiKey>, headers: &IndexMap<String, String>) {
    if let Some(key) = key {
        crate::secret::register_key(key.expose());
    }
    headers
        .values()
        .for_each(|value| crate::secret::register_header(value));
}

/// `text` (an error that may quote what a server sent back) with every secret
/// hidden and every control character escaped, ready for any output.
pub(super) fn shown(text: &str) -> String {
    crate::peer_text::peer(&crate::secret::redact(text), true).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> IndexMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_key_is_hidden_and_a_short_one_is_not_registered() {
        register(
            Some(&ApiKey::for_tests("sk-redact-test-123")),
            &IndexMap::new(),
        );
        assert_eq!(
            shown("Incorrect API key provided: sk-redact-test-123."),
            "Incorrect API key provided: ***."
        );
        register(Some(&ApiKey::for_tests("q7z")), &IndexMap::new());
        assert_eq!(shown("q7z def"), "q7z def");
    }

    #[test]
    fn header_values_of_eight_characters_or_more_are_hidden() {
        register(
            None,
            &headers(&[
                ("X-Gateway-Token", "gw-redact-77"),
                ("Authorization", "Bearer tok-redact-abcdefgh"),
                ("OpenAI-Beta", "tools"),
                ("X-Short", "7654321"),
            ]),
        );
        assert_eq!(
            shown("denied: gw-redact-77 / Bearer tok-redact-abcdefgh / tok-redact-abcdefgh"),
            "denied: *** / *** / ***"
        );
        assert_eq!(shown("tools 7654321 are fine"), "tools 7654321 are fine");
    }

    #[test]
    fn control_characters_in_an_error_body_are_escaped() {
        assert_eq!(
            shown("bad\x1b[2J request\nsecond line"),
            "bad\\u{1b}[2J request\nsecond line"
        );
    }
}
