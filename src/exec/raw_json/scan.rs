//! Byte scans over text already known to be one valid JSON value: fast because they
//! need not check the syntax, which the text's reader already did.

use std::ops::Range;

use super::syntax::ContainerEnds;

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
        let key_end = string_end(bytes, at + 1)?;
        let index = name_index(&text[at..=key_end], &names);
        at = skip_space(bytes, key_end + 1);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        let start = skip_space(bytes, at + 1);
        let end = match ends.end_of(start) {
            Some(end) => end,
            None => value_end(bytes, start)?,
        };
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

/// Which of `names` the quoted member name `key` is.
fn name_index(key: &str, names: &[&str]) -> Option<usize> {
    let plain = &key[1..key.len() - 1];
    if !plain.contains('\\') {
        return names.iter().position(|n| *n == plain);
    }
    let decoded: String = serde_json::from_str(key).ok()?;
    names.iter().position(|n| *n == decoded)
}

fn skip_space(text: &[u8], mut at: usize) -> usize {
    while matches!(text.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// One past the last byte of the value that starts at `at`.
fn value_end(text: &[u8], at: usize) -> Option<usize> {
    match text.get(at)? {
        b'"' => Some(string_end(text, at + 1)? + 1),
        b'{' | b'[' => container_end(text, at),
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
        at += memchr::memchr2(b'"', b'\\', text.get(at..)?)?;
        if text[at] == b'"' {
            return Some(at);
        }
        at += 2;
    }
}
