//! Colour on stderr for what people scan for: status words, `error:` and `warning:`,
//! and where a problem is. Plain ANSI, switched on once by the command line (from
//! `--color` and `NO_COLOR`) and read by every renderer.

use std::sync::atomic::{AtomicBool, Ordering};

pub(crate) use crate::peer_text::peer;

static ENABLED: AtomicBool = AtomicBool::new(false);

/// What a word means to the reader, which decides its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    /// It worked or went through.
    Good,
    /// It failed, was refused or stopped.
    Bad,
    /// Something to look at: a change, a wait.
    Warn,
    /// Nothing happened.
    Faint,
    /// A place to look.
    Strong,
}

pub(crate) fn set_enabled(enabled: bool) {
    ENABLED.store(enabled, Ordering::Relaxed);
}

pub(crate) fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// `text` in the colour of `tone`, or as it is when colour is off.
pub(crate) fn paint(text: &str, tone: Tone) -> String {
    if !enabled() || text.is_empty() {
        return text.to_string();
    }
    let code = match tone {
        Tone::Good => "32",
        Tone::Bad => "1;31",
        Tone::Warn => "33",
        Tone::Faint => "2",
        Tone::Strong => "1",
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

/// A status word (`ok`, `failed`, `deny`, `pending`, …) in its colour; words with no
/// meaning of their own stay plain.
pub(crate) fn status(word: &str) -> String {
    match tone_of(word) {
        Some(tone) => paint(word, tone),
        None => word.to_string(),
    }
}

fn tone_of(word: &str) -> Option<Tone> {
    Some(match word.to_ascii_lowercase().as_str() {
        "ok" | "passed" | "allow" | "allowed" | "approved" | "continue" | "ack" => Tone::Good,
        "error" | "failed" | "timeout" | "deny" | "denied" | "rejected" | "deny_tool"
        | "abort_turn" | "hard_abort" => Tone::Bad,
        "pending" | "modify" | "respond" | "enforced" => Tone::Warn,
        "skipped" | "observed" => Tone::Faint,
        _ => return None,
    })
}

/// `text` without the colour codes [`paint`] adds, for files and other readers
/// that are not a terminal.
pub(crate) fn strip(text: &str) -> String {
    let mut plain = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("\x1b[") {
        plain.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        // Only a colour code (digits and `;` up to `m`) goes; any other text stays.
        let code = after
            .find(|c: char| !(c.is_ascii_digit() || c == ';'))
            .filter(|&end| after[end..].starts_with('m'));
        match code {
            Some(end) => rest = &after[end + 1..],
            None => {
                rest = after;
                plain.push_str("\x1b[");
            }
        }
    }
    plain.push_str(rest);
    plain
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_toned_by_meaning() {
        assert_eq!(tone_of("FAILED"), Some(Tone::Bad));
        assert_eq!(tone_of("ok"), Some(Tone::Good));
        assert_eq!(tone_of("pending"), Some(Tone::Warn));
        assert_eq!(tone_of("measured"), None);
    }

    #[test]
    fn strip_removes_what_paint_adds() {
        let painted = "\x1b[1;31mfailed\x1b[0m: \x1b[32mok\x1b[0m";
        assert_eq!(strip(painted), "failed: ok");
        assert_eq!(strip("no colour"), "no colour");
        assert_eq!(
            strip("a stray \x1b[ in a message, then more"),
            "a stray \x1b[ in a message, then more",
            "only colour codes go"
        );
    }
}
