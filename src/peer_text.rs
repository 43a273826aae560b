//! Text that a peer wrote (an MCP server, a model, a provider, an extension's stderr)
//! made safe to show at a terminal, whichever layer shows it.

use std::borrow::Cow;

/// Text a peer wrote (an MCP server's names, descriptions and errors, a model's
/// answer, a provider's error body) made safe to print: every control character
/// (C0, DEL, C1, so ESC and its sequences) and every character that reorders text
/// (the bidirectional controls) is written as an escape, `\u{1b}`. Newlines and
/// tabs are escaped too, unless `prose` (text of several lines). Our own colour is
/// added after, and stays.
pub(crate) fn peer(text: &str, prose: bool) -> Cow<'_, str> {
    let unsafe_char = |c: char| {
        (c.is_control() && !(prose && matches!(c, '\n' | '\t')))
            || matches!(c, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut safe = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            safe.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            safe.push(c);
        }
    }
    Cow::Owned(safe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peer_text_has_its_control_characters_escaped() {
        assert_eq!(
            peer("a\x1b]0;title\x07b\x1b[2J\u{9b}c\x7f", false),
            "a\\u{1b}]0;title\\u{7}b\\u{1b}[2J\\u{9b}c\\u{7f}"
        );
        assert_eq!(peer("one\ntwo\tthree", false), "one\\u{a}two\\u{9}three");
        assert_eq!(peer("one\ntwo\tthree\r", true), "one\ntwo\tthree\\u{d}");
        assert_eq!(peer("abc\u{202e}fed", true), "abc\\u{202e}fed");
        assert!(matches!(peer("plain – text ✓", false), Cow::Borrowed(_)));
    }
}
