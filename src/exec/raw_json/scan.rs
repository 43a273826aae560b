//! Byte scans over text already known to be one valid JSON value: fast because they
//! need not check the syntax, which the text's reader already did.

use std::ops::Range;

/// Where the members called `names` of the object `text` hold their values; `None`
/// when `text` is not an object. When a name appears twice the last one counts, and
/// names written with escapes are compared as decoded, as in a parsed tree.
pub(super) fn member_spans<const N: usize>(
    text: &str,
    names: [&str; N],
) -> Option<[Option<Range<usize>>; N]> {
    let bytes = text.as_bytes();
    let mut at = skip_space(bytes, 0);
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
        let end = value_end(bytes, start)?;
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
        // Checked text has no control characters in its strings.
        at = string_stop(text, at)?;
        if text[at] == b'"' {
            return Some(at);
        }
        at += 2;
    }
}

/// The first byte from `at` on that a string cannot hold as it is: a quote, a
/// backslash or a control character. Eight bytes are looked at a time, as most
/// strings are long runs of plain characters.
pub(super) fn string_stop(text: &[u8], mut at: usize) -> Option<usize> {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH_BITS: u64 = ONES << 7;
    // Whether any byte of `word` is zero (exact as to whether, not where).
    let any_zero = |word: u64| word.wrapping_sub(ONES) & !word & HIGH_BITS != 0;
    while let Some(&chunk) = text.get(at..).and_then(|rest| rest.first_chunk::<8>()) {
        let word = u64::from_le_bytes(chunk);
        let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGH_BITS != 0;
        if below_space
            || any_zero(word ^ (ONES * u64::from(b'"')))
            || any_zero(word ^ (ONES * u64::from(b'\\')))
        {
            break;
        }
        at += 8;
    }
    let run = text
        .get(at..)?
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
    Some(at + run)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Word at a time, `string_stop` finds what a byte-by-byte search finds.
        #[test]
        fn string_stop_finds_the_first_byte_a_string_cannot_hold(
            text in proptest::collection::vec(prop_oneof![
                8 => Just(b'a'),
                1 => proptest::sample::select(b"\"\\\x00\x1f !#[]\x7f\x80\xc3\xff".to_vec()),
            ], 0..48),
            at in 0usize..50,
        ) {
            let plain = |b: &u8| *b == b'"' || *b == b'\\' || *b < 0x20;
            let want = text.get(at..).and_then(|rest| rest.iter().position(plain)).map(|p| at + p);
            prop_assert_eq!(string_stop(&text, at), want);
        }
    }
}
