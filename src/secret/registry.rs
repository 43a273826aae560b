//! A set of secrets and the one scan that hides them, for whole texts and for
//! streams that arrive in pieces.

use std::borrow::Cow;
use std::fmt;

/// What a secret is replaced by.
pub(crate) const MASK: &str = "***";
/// A key shorter than this is no real key, and hiding it would garble ordinary words.
pub(crate) const MIN_KEY: usize = 4;
/// Other values (headers, `env` values) shorter than this (`1`, `beta`, `true`,
/// `debug`) are left alone for the same reason.
pub(crate) const MIN_VALUE: usize = 8;

/// Secrets, each in every form a writer may give it. Its `Debug` shows none of them.
#[derive(Clone)]
pub(crate) struct Registry {
    /// The texts as registered.
    secrets: Vec<String>,
    /// Every form of every secret, longest first: a secret that holds another is
    /// hidden whole.
    forms: Vec<Vec<u8>>,
    /// The bytes some form starts with: every other byte is passed over at once.
    starts: [bool; 256],
}

impl Default for Registry {
    fn default() -> Self {
        Self {
            secrets: Vec::new(),
            forms: Vec::new(),
            starts: [false; 256],
        }
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Registry({} hidden)", self.secrets.len())
    }
}

impl Registry {
    /// Adds `secret` as it is (no minimum length here: the callers decide that).
    pub(crate) fn add(&mut self, secret: &str) {
        if secret.is_empty() || self.holds(secret) {
            return;
        }
        self.secrets.push(secret.to_string());
        for form in forms(secret) {
            if !self.forms.iter().any(|f| f == form.as_bytes()) {
                self.starts[usize::from(form.as_bytes()[0])] = true;
                self.forms.push(form.into_bytes());
            }
        }
        self.forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
    }

    pub(crate) fn holds(&self, secret: &str) -> bool {
        self.secrets.iter().any(|s| s == secret)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// `text` with every secret replaced by `***`.
    pub(crate) fn redact<'t>(&self, text: &'t str) -> Cow<'t, str> {
        if self.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = Vec::new();
        let (_, hidden) = self.scan(text.as_bytes(), true, &mut out);
        if !hidden {
            return Cow::Borrowed(text);
        }
        // A secret is whole UTF-8 and so is the mask: what is left is whole UTF-8.
        Cow::Owned(
            String::from_utf8(out)
                .unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned()),
        )
    }

    /// Appends `bytes` to `out` with every secret replaced, leftmost first and the
    /// longest where several start at one place. Unless `at_end`, it stops before
    /// an end that could be the start of a secret still arriving; returns how many
    /// bytes it took, and whether it hid anything.
    pub(crate) fn scan(&self, bytes: &[u8], at_end: bool, out: &mut Vec<u8>) -> (usize, bool) {
        let mut at = 0;
        let mut copied = 0;
        let mut hidden = false;
        while at < bytes.len() {
            if !self.starts[usize::from(bytes[at])] {
                at += 1;
                continue;
            }
            let rest = &bytes[at..];
            if !at_end
                && self
                    .forms
                    .iter()
                    .any(|f| f.len() > rest.len() && f.starts_with(rest))
            {
                break;
            }
            match self.forms.iter().find(|f| rest.starts_with(f)) {
                Some(form) => {
                    out.extend_from_slice(&bytes[copied..at]);
                    out.extend_from_slice(MASK.as_bytes());
                    at += form.len();
                    copied = at;
                    hidden = true;
                }
                None => at += 1,
            }
        }
        out.extend_from_slice(&bytes[copied..at]);
        (at, hidden)
    }
}

/// `secret` as written, inside a JSON string, inside a JSON string that holds JSON,
/// and in XML text or attributes.
fn forms(secret: &str) -> Vec<String> {
    let json = json_escaped(secret);
    let twice = json_escaped(&json);
    let xml_text = xml_escaped(secret, false);
    let xml_attribute = xml_escaped(secret, true);
    let mut forms = vec![secret.to_string()];
    for form in [json, twice, xml_text, xml_attribute] {
        if !forms.contains(&form) {
            forms.push(form);
        }
    }
    forms
}

fn json_escaped(text: &str) -> String {
    let quoted = serde_json::Value::String(text.to_string()).to_string();
    quoted[1..quoted.len() - 1].to_string()
}

fn xml_escaped(text: &str, quotes: bool) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' if quotes => escaped.push_str("&quot;"),
            '\'' if quotes => escaped.push_str("&apos;"),
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry(secrets: &[&str]) -> Registry {
        let mut registry = Registry::default();
        for secret in secrets {
            registry.add(secret);
        }
        registry
    }

    #[test]
    fn every_occurrence_is_hidden_and_the_registry_shows_none() {
        let r = registry(&["sk-secret-123"]);
        assert_eq!(
            r.redact("key sk-secret-123, again sk-secret-123."),
            "key ***, again ***."
        );
        assert!(matches!(r.redact("nothing here"), Cow::Borrowed(_)));
        assert_eq!(format!("{r:?}"), "Registry(1 hidden)");
    }

    #[test]
    fn the_longest_secret_starting_at_a_place_is_hidden_whole() {
        let r = registry(&["tok-abcdefgh", "Bearer tok-abcdefgh"]);
        assert_eq!(
            r.redact("a: Bearer tok-abcdefgh b: tok-abcdefgh"),
            "a: *** b: ***"
        );
    }

    #[test]
    fn json_and_xml_forms_are_hidden_too() {
        let r = registry(&["pa\"ss\\word<&>"]);
        let once = serde_json::json!({"k": "pa\"ss\\word<&>"}).to_string();
        assert_eq!(r.redact(&once), r#"{"k":"***"}"#);
        let twice = serde_json::json!({"args": once}).to_string();
        assert_eq!(r.redact(&twice), r#"{"args":"{\"k\":\"***\"}"}"#);
        assert_eq!(
            r.redact("<failure message=\"pa&quot;ss\\word&lt;&amp;&gt;\"/>"),
            "<failure message=\"***\"/>"
        );
        assert_eq!(r.redact("<t>pa\"ss\\word&lt;&amp;&gt;</t>"), "<t>***</t>");
    }

    #[test]
    fn a_stream_holds_back_only_what_may_start_a_secret() {
        let r = registry(&["sk-secret-123"]);
        let mut out = Vec::new();
        // The end `sk-se` may be the start of the key: held back.
        let (used, _) = r.scan(b"one sk-se", false, &mut out);
        assert_eq!((used, out.as_slice()), (4, b"one ".as_slice()));
        // Ordinary text ending in a letter the key starts with is not the key's start
        // once more has come; at the end, everything goes.
        let mut out = Vec::new();
        let (used, hidden) = r.scan(b"sk-secret-123 ask", true, &mut out);
        assert_eq!((used, hidden), (17, true));
        assert_eq!(out, b"*** ask");
    }

    #[test]
    fn a_secret_split_across_writes_is_still_hidden() {
        let r = registry(&["sk-secret-123", "sk-s"]);
        let text = b"say sk-secret-123 and sk-s!";
        for split in 0..text.len() {
            let mut out = Vec::new();
            let mut held = text[..split].to_vec();
            let (used, _) = r.scan(&held, false, &mut out);
            held.drain(..used);
            held.extend_from_slice(&text[split..]);
            r.scan(&held, true, &mut out);
            assert_eq!(
                String::from_utf8(out).expect("utf-8"),
                "say *** and ***!",
                "split at {split}"
            );
        }
    }
}
