//! File names made from ids and names that promptexec did not choose (scenario ids,
//! case file stems): each becomes exactly one harmless path component, so a file
//! derived from it lands in its folder and nowhere else.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use sha2::{Digest, Sha256};

/// The longest part made, in bytes: with the longest ending added to it
/// (`.trial-4294967295.jsonl`) a name stays well below the 255 bytes file systems
/// allow.
pub(super) const MAX_PART: usize = 200;

/// `raw` as one file-name part: every character other than a letter, a digit, `-`,
/// `_` or `.` becomes `_`, a leading `.` becomes `_`, and nothing becomes `_`; a
/// part longer than [`MAX_PART`] bytes is cut ([`bounded`]). The result is never
/// empty, `.` or `..`, never hidden, and holds no `/` or NUL; the same `raw` always
/// gives the same part. Bytes that are not UTF-8 count as other characters.
pub(crate) fn file_name_part(raw: &OsStr) -> String {
    let text = raw.to_string_lossy();
    let mut part: String = text
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if part.starts_with('.') {
        part.replace_range(..1, "_");
    }
    if part.is_empty() {
        part.push('_');
    }
    bounded(part, raw.as_bytes())
}

/// `part` if it is at most [`MAX_PART`] bytes long; else its start, a `-` and 16 hex
/// digits of the SHA-256 of `raw`, [`MAX_PART`] bytes in all, so that long names
/// that differ only at their end still get different parts.
pub(super) fn bounded(mut part: String, raw: &[u8]) -> String {
    const TAIL: usize = 1 + 16;
    if part.len() <= MAX_PART {
        return part;
    }
    let mut keep = MAX_PART - TAIL;
    while !part.is_char_boundary(keep) {
        keep -= 1;
    }
    part.truncate(keep);
    let digest = Sha256::digest(raw);
    part.push('-');
    for byte in &digest[..8] {
        part.push_str(&format!("{byte:02x}"));
    }
    part
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(raw: &str) -> String {
        file_name_part(OsStr::new(raw))
    }

    #[test]
    fn ordinary_names_are_kept() {
        assert_eq!(part("orders.cases"), "orders.cases");
        assert_eq!(part("lookup-1_a"), "lookup-1_a");
        assert_eq!(part("Größe"), "Größe");
    }

    #[test]
    fn names_that_would_leave_the_folder_become_one_plain_component() {
        assert_eq!(part(".."), "_.");
        assert_eq!(part("."), "_");
        assert_eq!(part(""), "_");
        assert_eq!(part("../x"), "_._x");
        assert_eq!(part("/etc/passwd"), "_etc_passwd");
        assert_eq!(part("a\0b"), "a_b");
        assert_eq!(part(".hidden"), "_hidden");
        assert_eq!(part("a\\b c"), "a_b_c");
        let not_utf8 = file_name_part(OsStr::from_bytes(b"a\xffb"));
        assert_eq!(not_utf8, "a_b");
    }

    #[test]
    fn long_names_are_cut_to_distinct_parts() {
        let long = "ö".repeat(150);
        let made = part(&long);
        assert!(made.len() <= MAX_PART, "{}", made.len());
        assert!(made.starts_with("öö"), "{made}");
        assert_ne!(made, part(&format!("{long}x")));
        assert_eq!(made, part(&long), "the same name, the same part");
        assert_eq!(part(&"a".repeat(MAX_PART)), "a".repeat(MAX_PART));
    }

    #[test]
    fn no_part_is_a_special_component() {
        for raw in ["", ".", "..", "...", "/", "./", "../..", "\0", ".\0."] {
            let made = part(raw);
            assert!(
                !made.is_empty() && !made.starts_with('.'),
                "{raw:?} -> {made:?}"
            );
            assert!(
                !made.contains('/') && !made.contains('\0'),
                "{raw:?} -> {made:?}"
            );
        }
    }
}
