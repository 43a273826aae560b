//! What providers and MCP servers reached over HTTP share: the URL, which must not
//! carry a user or password, and extra headers, whose values are never shown.

use indexmap::IndexMap;

use crate::doc::{Node, Value};

use super::document::Resolver;

impl Resolver<'_> {
    /// An `http://` or `https://` URL, as written. `key_via` names the keys that
    /// should carry a credential instead of the URL.
    pub(super) fn http_url(&mut self, node: &Node, what: &str, key_via: &str) -> Option<String> {
        let url = self.cx.string(node, what)?;
        let rest = url
            .strip_prefix("http://")
            .or_else(|| url.strip_prefix("https://"));
        let authority = rest.map(|rest| rest.split('/').next().unwrap_or_default());
        if authority.is_some_and(|authority| authority.contains('@')) {
            // Never echoed: the user and password are a secret like any key.
            self.cx.error(
                node.pos,
                format!("{what}: a user or password in the URL is not accepted (URLs are shown in logs and errors); give the key with {key_via}"),
            );
            return None;
        }
        match rest {
            Some(rest)
                if !rest.trim_matches('/').is_empty() && !rest.contains(char::is_whitespace) =>
            {
                Some(url)
            }
            _ => {
                self.cx.error(
                    node.pos,
                    format!("{what}: expected an `http://` or `https://` URL, found `{url}`"),
                );
                None
            }
        }
    }

    /// Extra request headers. Values are never shown: one may carry a key.
    pub(super) fn headers(&mut self, node: &Node, what: &str) -> Option<IndexMap<String, String>> {
        let what = format!("{what}.headers");
        let Value::Map(entries) = &node.value else {
            self.cx.map(node, &what);
            return None;
        };
        let mut headers: IndexMap<String, String> = IndexMap::new();
        let mut lowered: Vec<String> = Vec::new();
        for (key, value) in entries {
            let at = format!("{what}.{}", key.name);
            if !is_header_name(&key.name) {
                self.cx.error(
                    key.pos,
                    format!("{what}: `{}` is not a valid header name (letters, digits and `!#$%&'*+-.^_`|~`)", key.name),
                );
                continue;
            }
            let lower = key.name.to_ascii_lowercase();
            if lowered.contains(&lower) {
                self.cx.error(
                    key.pos,
                    format!("{at}: given twice (header names ignore case)"),
                );
                continue;
            }
            lowered.push(lower);
            let Some(text) = self.secret_string(value, &at) else {
                continue;
            };
            if text.contains(['\r', '\n']) {
                self.cx
                    .error(value.pos, format!("{at}: a header value cannot span lines"));
                continue;
            }
            headers.insert(key.name.clone(), text);
        }
        Some(headers)
    }
}

/// An HTTP header name: one or more token characters (RFC 9110).
fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}
