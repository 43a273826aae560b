//! Byte scans over text already known to be one valid JSON value: fast because they
//! need not check the syntax, which the text's reader already did.

use std::ops::Range;

use super::syntax::ContainerEnds;
use super::words::{self, HEAD};

/// Where the members called `names` of the object at `from` in `text` hold their
/// values; `None` when the value there is not an object. When a name appears twice
/// the last one counts, and names written with escapes are compared as decoded, as
/// in a parsed tree. Containers whose ends are noted in `ends` are stepped over.
pub(super) fn member_spans<const N: usize>(
    text: &str,
    from: usize,
    ends: &ContainerEnds,
    names: [&str; N],
) -> Option<[Option<Range<usize>>; N]> {
    let bytes = text.as_bytes();
    let mut at = skip_space(bytes, from);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    let mut found = [const { None }; N];
    at = skip_space(bytes, at + 1);
    if bytes.get(at) == Some(&b'}') {
        return Some(found);
    }
    loop {
        let (index, key_end) = member_name(text, at, &names)?;
        at = skip_space(bytes, key_end + 1);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        let start = skip_space(bytes, at + 1);
        let end = value_end(bytes, start, ends)?;
        if let Some(i) = index {
            found[i] = Some(start..end);
        }
        at = skip_space(bytes, end);
        match bytes.get(at)? {
            b',' => at = skip_space(bytes, at + 1),
            b'}' => return Some(found),
            _ => return None,
        }
    }
}

/// Which of `names` the member name whose opening quote is at `at` is, and where
/// its closing quote is. A name without escapes, the common case, is compared as it
/// is written; the others as decoded, as in a parsed tree.
fn member_name(text: &str, at: usize, names: &[&str]) -> Option<(Option<usize>, usize)> {
    let bytes = text.as_bytes();
    let first = at + 1 + quote_or_backslash(bytes.get(at + 1..)?)?;
    if bytes[first] == b'"' {
        let name = &bytes[at + 1..first];
        return Some((names.iter().position(|n| n.as_bytes() == name), first));
    }
    let end = string_end(bytes, first)?;
    let decoded = serde_json::from_str::<String>(&text[at..=end]).ok();
    let index = decoded.and_then(|name| names.iter().position(|n| *n == name));
    Some((index, end))
}

fn skip_space(text: &[u8], mut at: usize) -> usize {
    while matches!(text.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// One past the last byte of the value that starts at `at`.
fn value_end(text: &[u8], at: usize, ends: &ContainerEnds) -> Option<usize> {
    match text.get(at)? {
        b'"' => Some(string_end(text, at + 1)? + 1),
        b'{' | b'[' => ends.end_of(at).or_else(|| container_end(text, at)),
        _ => {
            let len = text[at..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(text.len() - at);
            Some(at + len)
        }
    }
}

/// One past the bracket that closes the object or array opened at `at`.
fn container_end(text: &[u8], mut at: usize) -> Option<usize> {
    let mut depth = 0usize;
    loop {
        match text.get(at)? {
            b'"' => at = string_end(text, at + 1)?,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            _ => {}
        }
        at += 1;
    }
}

/// The closing quote of the string whose contents start at `at`.
fn string_end(text: &[u8], mut at: usize) -> Option<usize> {
    loop {
        at += quote_or_backslash(text.get(at..)?)?;
        if text[at] == b'"' {
            return Some(at);
        }
        at += 2;
    }
}

/// Where the first `"` or `\` of `bytes` is. Most strings in JSON are short: their
/// first bytes are looked at a word at a time, and only the rest a vector at a time.
fn quote_or_backslash(bytes: &[u8]) -> Option<usize> {
    words::first_marked(bytes, words::quote_or_backslash)
        .or_else(|| memchr::memchr2(b'"', b'\\', bytes.get(HEAD..)?).map(|at| at + HEAD))
}
