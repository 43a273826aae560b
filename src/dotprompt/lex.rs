//! Splitting a template into text and tags, then applying Handlebars' whitespace
//! rules: `~` strips the whitespace beside a tag, and a block, `else`, comment or
//! partial tag alone on its line takes that whole line with it.

use super::{SyntaxError, SyntaxErrorKind};

/// One tag between `{{` and `}}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Tag {
    pub kind: TagKind,
    /// The tag's words, without braces, sigil and `~`.
    pub inner: String,
    /// Byte offset of the tag's first word in the template.
    pub inner_at: usize,
    /// Byte offset of the opening `{{`.
    pub at: usize,
    strip_before: bool,
    strip_after: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TagKind {
    /// `{{x}}`, `{{{x}}}`, `{{&x}}`.
    Value,
    /// `{{#x}}`.
    Open,
    /// `{{^x}}`: a block shown when `x` is falsy.
    OpenInverse,
    /// `{{/x}}`.
    Close,
    /// `{{else}}`, `{{else if x}}`, `{{^}}`.
    Else,
    /// `{{! }}`, `{{!-- --}}`.
    Comment,
    /// `{{> name}}`.
    Partial,
}

impl TagKind {
    /// Tags that take their whole line when they stand alone on it.
    fn may_stand_alone(self) -> bool {
        !matches!(self, TagKind::Value)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Token {
    Text(String),
    Tag(Tag),
}

/// The template's tokens, whitespace rules applied.
pub(super) fn tokens(text: &str) -> Result<Vec<Token>, SyntaxError> {
    let raw = scan(text)?;
    Ok(apply_whitespace(raw))
}

const OPEN: &str = "{{";

fn scan(text: &str) -> Result<Vec<Token>, SyntaxError> {
    let mut out = Vec::new();
    let mut literal = String::new();
    let mut rest = 0;
    while let Some(found) = text[rest..].find(OPEN) {
        let open = rest + found;
        literal.push_str(&text[rest..open]);
        // `\{{` is a literal `{{`.
        if literal.ends_with('\\') && !literal.ends_with("\\\\") {
            literal.pop();
            literal.push_str(OPEN);
            rest = open + OPEN.len();
            continue;
        }
        let (tag, end) = read_tag(text, open)?;
        if !literal.is_empty() {
            out.push(Token::Text(std::mem::take(&mut literal)));
        }
        out.push(Token::Tag(tag));
        rest = end;
    }
    literal.push_str(&text[rest..]);
    if !literal.is_empty() {
        out.push(Token::Text(literal));
    }
    Ok(out)
}

/// Reads the tag whose `{{` is at `open`; returns it and the offset after its `}}`.
fn read_tag(text: &str, open: usize) -> Result<(Tag, usize), SyntaxError> {
    let unclosed = || SyntaxError::new(open, SyntaxErrorKind::Unclosed);
    let mut at = open + OPEN.len();
    let triple = text[at..].starts_with('{');
    if triple {
        at += 1;
    }
    let strip_before = text[at..].starts_with('~');
    if strip_before {
        at += 1;
    }
    if text[at..].starts_with("!--") {
        let body = at + 3;
        let close = text[body..].find("--").and_then(|i| {
            let after = body + i + 2;
            let tail = &text[after..];
            let tilde = tail.starts_with('~');
            let tail = if tilde { &tail[1..] } else { tail };
            tail.starts_with("}}")
                .then_some((body + i, after + usize::from(tilde) + 2, tilde))
        });
        let close = match close {
            Some(c) => c,
            None => find_comment_end(text, body).ok_or_else(unclosed)?,
        };
        return Ok((comment(open, body, strip_before, close), close.1));
    }
    if text[at..].starts_with('!') {
        let body = at + 1;
        let end = text[body..].find("}}").ok_or_else(unclosed)? + body;
        let tilde = text[..end].ends_with('~') && end > body;
        let inner_end = if tilde { end - 1 } else { end };
        let close = (inner_end, end + 2, tilde);
        return Ok((comment(open, body, strip_before, close), end + 2));
    }
    let (kind, sigil) = match text[at..].chars().next() {
        Some('#') => (TagKind::Open, 1),
        Some('^') => (TagKind::OpenInverse, 1),
        Some('/') => (TagKind::Close, 1),
        Some('>') => (TagKind::Partial, 1),
        Some('&') => (TagKind::Value, 1),
        _ => (TagKind::Value, 0),
    };
    let words = at + sigil;
    let close = find_close(text, words).ok_or_else(unclosed)?;
    let (mut inner_end, mut end) = (close, close + 2);
    if triple {
        if !text[end..].starts_with('}') {
            return Err(SyntaxError::new(open, SyntaxErrorKind::TripleUnclosed));
        }
        end += 1;
    }
    let strip_after = text[..inner_end].ends_with('~') && inner_end > words;
    if strip_after {
        inner_end -= 1;
    }
    let raw = &text[words..inner_end];
    let leading = raw.len() - raw.trim_start().len();
    let mut inner = raw.trim().to_string();
    let mut kind = kind;
    if kind == TagKind::OpenInverse && inner.is_empty() {
        kind = TagKind::Else;
    } else if kind == TagKind::Value && (inner == "else" || inner.starts_with("else ")) {
        kind = TagKind::Else;
        inner = inner["else".len()..].trim().to_string();
    }
    let tag = Tag {
        kind,
        inner,
        inner_at: words + leading,
        at: open,
        strip_before,
        strip_after,
    };
    Ok((tag, end))
}

/// A `{{!-- …` comment closed by a plain `}}` when no `--}}` follows.
fn find_comment_end(text: &str, body: usize) -> Option<(usize, usize, bool)> {
    let end = text[body..].find("}}")? + body;
    Some((end, end + 2, false))
}

fn comment(open: usize, body: usize, strip_before: bool, close: (usize, usize, bool)) -> Tag {
    Tag {
        kind: TagKind::Comment,
        inner: String::new(),
        inner_at: body,
        at: open,
        strip_before,
        strip_after: close.2,
    }
}

/// The offset of the `}}` closing a tag whose words start at `from`; `}}` inside a
/// quoted string does not close it.
fn find_close(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = from;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'}' && bytes.get(i + 1) == Some(&b'}') => return Some(i),
            None => {}
        }
        i += 1;
    }
    None
}

/// Which part of each text token survives: `keep[i] = (start, end)` byte range.
fn apply_whitespace(tokens: Vec<Token>) -> Vec<Token> {
    let mut keep: Vec<(usize, usize)> = tokens
        .iter()
        .map(|t| match t {
            Token::Text(s) => (0, s.len()),
            Token::Tag(_) => (0, 0),
        })
        .collect();
    let text_at = |i: Option<usize>| -> Option<&str> {
        i.and_then(|i| match tokens.get(i) {
            Some(Token::Text(s)) => Some(s.as_str()),
            _ => None,
        })
    };
    for (i, token) in tokens.iter().enumerate() {
        let Token::Tag(tag) = token else { continue };
        let before = i.checked_sub(1);
        let after = i + 1;
        if tag.strip_before
            && let Some(s) = text_at(before)
        {
            let end = s.trim_end().len();
            let b = before.unwrap_or_default();
            keep[b].1 = keep[b].1.min(end);
        }
        if tag.strip_after
            && let Some(s) = text_at(Some(after))
        {
            let start = s.len() - s.trim_start().len();
            keep[after].0 = keep[after].0.max(start);
        }
        if tag.kind.may_stand_alone()
            && let Some((line_start, line_end)) = standalone(&tokens, i)
        {
            if let (Some(b), Some(start)) = (before, line_start) {
                keep[b].1 = keep[b].1.min(start);
            }
            if let Some(end) = line_end {
                keep[after].0 = keep[after].0.max(end);
            }
        }
    }
    tokens
        .into_iter()
        .zip(keep)
        .filter_map(|(token, (start, end))| match token {
            Token::Text(_) if start >= end => None,
            Token::Text(mut s) => {
                s.truncate(end);
                s.drain(..start);
                Some(Token::Text(s))
            }
            tag => Some(tag),
        })
        .collect()
}

/// When the tag at `i` stands alone on its line: where the line begins in the text
/// before it (None: no text before) and where the next line begins in the text after
/// it (None: no text after).
fn standalone(tokens: &[Token], i: usize) -> Option<(Option<usize>, Option<usize>)> {
    let line_start = match i.checked_sub(1).map(|b| &tokens[b]) {
        None => None,
        Some(Token::Text(s)) => {
            let start = s.rfind('\n').map(|n| n + 1);
            let tail = &s[start.unwrap_or(0)..];
            // The line began in this text, or the text starts the template.
            if !is_blank(tail) || (start.is_none() && i != 1) {
                return None;
            }
            Some(start.unwrap_or(0))
        }
        Some(Token::Tag(_)) => return None,
    };
    let line_end = match tokens.get(i + 1) {
        None => None,
        Some(Token::Text(s)) => match s.find('\n') {
            Some(n) if is_blank(&s[..n]) => Some(n + 1),
            None if i + 2 == tokens.len() && is_blank(s) => Some(s.len()),
            _ => return None,
        },
        Some(Token::Tag(_)) => return None,
    };
    Some((line_start, line_end))
}

/// Spaces and tabs only (a `\r` before the line's `\n` counts as blank too).
fn is_blank(s: &str) -> bool {
    s.chars().all(|c| matches!(c, ' ' | '\t' | '\r'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(template: &str) -> Vec<String> {
        tokens(template)
            .expect("scans")
            .into_iter()
            .map(|t| match t {
                Token::Text(s) => format!("T:{s}"),
                Token::Tag(tag) => format!("{:?}:{}", tag.kind, tag.inner),
            })
            .collect()
    }

    #[test]
    fn a_block_tag_alone_on_its_line_takes_the_line() {
        assert_eq!(
            texts("a\n  {{#if x}}  \nb\n{{/if}}\nc"),
            ["T:a\n", "Open:if x", "T:b\n", "Close:if", "T:c"]
        );
    }

    #[test]
    fn value_tags_never_stand_alone() {
        assert_eq!(texts("{{x}}\n"), ["Value:x", "T:\n"]);
    }

    #[test]
    fn tildes_strip_whitespace_on_their_side() {
        assert_eq!(texts("a  {{~x~}} \n b"), ["T:a", "Value:x", "T:b"]);
    }

    #[test]
    fn else_forms_and_comments_are_recognised() {
        assert_eq!(
            texts("{{else}}{{else if y}}{{^}}{{! note }}{{!-- a }} b --}}"),
            ["Else:", "Else:if y", "Else:", "Comment:", "Comment:"]
        );
    }

    #[test]
    fn a_backslash_makes_braces_literal() {
        assert_eq!(texts(r"\{{x}}"), ["T:{{x}}"]);
    }

    #[test]
    fn quotes_may_hold_closing_braces() {
        assert_eq!(texts(r#"{{role "}}"}}"#), [r#"Value:role "}}""#]);
    }

    #[test]
    fn an_unclosed_tag_is_placed_at_its_braces() {
        let err = tokens("ok {{x").expect_err("unclosed");
        assert_eq!(err.offset, 3);
    }
}
