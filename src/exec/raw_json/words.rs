//! The first bytes of a string looked at eight at a time: most strings in JSON are
//! short, too short for a vector search to pay, and a byte-by-byte loop spends
//! several instructions on each byte.

/// How many bytes [`first_marked`] looks at.
pub(super) const HEAD: usize = 16;

const ONES: u64 = u64::from_le_bytes([1; 8]);
const HIGH: u64 = ONES << 7;

/// Sets bit 7 of each byte of `word` that is zero. Exact up to the first such byte;
/// the borrow out of it may mark later bytes too, which is why callers look only at
/// the first mark.
fn zero_bytes(word: u64) -> u64 {
    word.wrapping_sub(ONES) & !word & HIGH
}

fn bytes_equal(word: u64, byte: u8) -> u64 {
    zero_bytes(word ^ (ONES * u64::from(byte)))
}

/// Marks each `"` and `\`.
pub(super) fn quote_or_backslash(word: u64) -> u64 {
    bytes_equal(word, b'"') | bytes_equal(word, b'\\')
}

/// Marks each `"`, `\` and control character (below 0x20), which a JSON string
/// may not hold unescaped. Bytes from 0x80 up are never marked.
pub(super) fn quote_backslash_or_control(word: u64) -> u64 {
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    quote_or_backslash(word) | below_space
}

/// Where the first byte that `marks` marks is among the first [`HEAD`] bytes of
/// `bytes` (all of them when there are fewer); `None` when there is none there.
#[inline]
pub(super) fn first_marked(bytes: &[u8], marks: fn(u64) -> u64) -> Option<usize> {
    let head = &bytes[..bytes.len().min(HEAD)];
    let mut chunks = head.chunks_exact(8);
    for (i, chunk) in chunks.by_ref().enumerate() {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let found = marks(word);
        if found != 0 {
            return Some(i * 8 + found.trailing_zeros() as usize / 8);
        }
    }
    let tail = chunks.remainder();
    if tail.is_empty() {
        return None;
    }
    let mut padded = [0u8; 8];
    padded[..tail.len()].copy_from_slice(tail);
    // Padding may be marked (a zero is a control character): only the tail counts.
    let found = marks(u64::from_le_bytes(padded)) & ((1u64 << (8 * tail.len())) - 1);
    (found != 0).then(|| head.len() - tail.len() + found.trailing_zeros() as usize / 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_by_bytes(bytes: &[u8], controls: bool) -> Option<usize> {
        bytes
            .iter()
            .take(HEAD)
            .position(|&b| b == b'"' || b == b'\\' || (controls && b < 0x20))
    }

    #[test]
    fn finds_the_first_mark_in_either_word_or_the_tail() {
        let cases: [(&[u8], Option<usize>, Option<usize>); 7] = [
            (b"", None, None),
            (b"abc\"", Some(3), Some(3)),
            (b"abcdefgh\\", Some(8), Some(8)),
            (b"abcdefghijklmnop\"", None, None),
            (b"a\x01\"", Some(2), Some(1)),
            ("é\u{7f}\u{80}x\"".as_bytes(), Some(6), Some(6)),
            (b"\x1f\"", Some(1), Some(0)),
        ];
        for (bytes, quote, any) in cases {
            assert_eq!(first_marked(bytes, quote_or_backslash), quote, "{bytes:?}");
            assert_eq!(
                first_marked(bytes, quote_backslash_or_control),
                any,
                "{bytes:?}"
            );
        }
    }

    proptest::proptest! {
        /// Any bytes, weighted towards those marked and those next to them.
        #[test]
        fn agrees_with_a_byte_by_byte_search(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(b"\"\\\x00\x1f\x20!#[]\x7f\x80\xff".to_vec()),
                    proptest::num::u8::ANY,
                ],
                0..24,
            )
        ) {
            proptest::prop_assert_eq!(
                first_marked(&bytes, quote_or_backslash),
                first_by_bytes(&bytes, false)
            );
            proptest::prop_assert_eq!(
                first_marked(&bytes, quote_backslash_or_control),
                first_by_bytes(&bytes, true)
            );
        }
    }
}
