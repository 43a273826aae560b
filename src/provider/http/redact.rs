//! Keeping a provider's secrets out of every text it produces: its key, and the
//! values of its configured `headers`, which are often tokens as well.

use std::fmt;

use indexmap::IndexMap;

use super::credential::ApiKey;

/// A key shorter than this is no real key, and hiding it would garble ordinary words.
const MIN_KEY: usize = 4;
/// Header values shorter than this (`1`, `beta`) are left alone for the same reason.
const MIN_HEADER_VALUE: usize = 8;

/// The texts to hide. Its `Debug` shows none of them.
#[derive(Default)]
pub(super) struct Secrets(Vec<String>);

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secrets({} hidden)", self.0.len())
    }
}

impl Secrets {
    /// The key, and every header value of 8 characters or more; for a value such as
    /// `Bearer TOKEN`, the token alone too, as a server may echo just that.
    pub fn new(key: Option<&ApiKey>, headers: &IndexMap<String, String>) -> Secrets {
        let mut texts: Vec<String> = key
            .map(|k| k.expose().to_string())
            .filter(|k| k.len() >= MIN_KEY)
            .into_iter()
            .collect();
        for value in headers.values() {
            let value = value.trim();
            let token = value.rsplit(char::is_whitespace).next().unwrap_or_default();
            for text in [value, token] {
                if text.chars().count() >= MIN_HEADER_VALUE && !texts.iter().any(|t| t == text) {
                    texts.push(text.to_string());
                }
            }
        }
        // Longest first: a value that holds another is hidden whole.
        texts.sort_by_key(|t| std::cmp::Reverse(t.len()));
        Secrets(texts)
    }

    /// `text` with every secret replaced by `***`: a last defence for error texts
    /// that quote what a server sent back.
    pub fn redact(&self, text: &str) -> String {
        self.0
            .iter()
            .fold(text.to_string(), |text, secret| text.replace(secret, "***"))
    }
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
    fn the_key_is_hidden_and_never_shown() {
        let key = ApiKey::for_tests("sk-secret-123");
        let secrets = Secrets::new(Some(&key), &IndexMap::new());
        assert_eq!(
            secrets.redact("Incorrect API key provided: sk-secret-123."),
            "Incorrect API key provided: ***."
        );
        assert_eq!(format!("{secrets:?}"), "Secrets(1 hidden)");
        let short = Secrets::new(Some(&ApiKey::for_tests("abc")), &IndexMap::new());
        assert_eq!(short.redact("abc def"), "abc def");
    }

    #[test]
    fn header_values_of_eight_characters_or_more_are_hidden() {
        let secrets = Secrets::new(
            None,
            &headers(&[
                ("X-Gateway-Token", "gw-token-77"),
                ("Authorization", "Bearer tok-abcdefgh"),
                ("OpenAI-Beta", "tools"),
                ("X-Short", "1234567"),
            ]),
        );
        assert_eq!(
            secrets.redact("denied: gw-token-77 / Bearer tok-abcdefgh / tok-abcdefgh"),
            "denied: *** / *** / ***"
        );
        assert_eq!(
            secrets.redact("tools 1234567 are fine"),
            "tools 1234567 are fine"
        );
    }
}
