//! serde_json errors as `FILE:LINE:COL: message` diagnostics, also for a value read
//! on its own out of a larger text, whose positions are then counted in the whole.

use std::path::Path;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::doc::{Diagnostic, Pos};

/// A serde_json error at its place in `path`; `what` (when not empty) says what was
/// being read.
pub(super) fn diagnostic(path: &Path, err: &serde_json::Error, what: &str) -> Diagnostic {
    at(path, Pos::START, err, what)
}

/// Reads `raw`, a piece of `text`, reporting an error at its place in the whole text.
pub(super) fn parse_piece<'a, T: Deserialize<'a>>(
    path: &Path,
    text: &str,
    raw: &'a RawValue,
    what: &str,
) -> Result<T, Diagnostic> {
    serde_json::from_str(raw.get()).map_err(|err| at(path, start_of(text, raw), &err, what))
}

/// Where `raw`, a piece borrowed from `text`, starts in it.
pub(super) fn start_of(text: &str, raw: &RawValue) -> Pos {
    // A piece read from `text` borrows its bytes, so its address is inside `text`.
    let offset = (raw.get().as_ptr() as usize)
        .checked_sub(text.as_ptr() as usize)
        .filter(|offset| *offset <= text.len())
        .unwrap_or(0);
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|b| **b == b'\n').count();
    let line_start = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |newline| newline + 1);
    Pos {
        line: to_u32(line + 1),
        col: to_u32(offset - line_start + 1),
    }
}

/// The error's position, counted from `start` rather than from the start of the text.
pub(super) fn at(path: &Path, start: Pos, err: &serde_json::Error, what: &str) -> Diagnostic {
    let (line, column) = (to_u32(err.line()), to_u32(err.column().max(1)));
    let pos = if line <= 1 {
        Pos {
            line: start.line,
            col: start.col + column - 1,
        }
    } else {
        Pos {
            line: start.line + line - 1,
            col: column,
        }
    };
    let full = err.to_string();
    let suffix = format!(" at line {} column {}", err.line(), err.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    let message = if what.is_empty() {
        message.to_string()
    } else {
        format!("{what}: {message}")
    };
    Diagnostic::error(path, pos, message)
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct Outer<'a> {
        #[serde(borrow)]
        inner: &'a RawValue,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        n: u32,
    }

    #[test]
    fn an_error_in_a_piece_is_placed_in_the_whole_text() {
        let text = "{\n  \"inner\": {\n    \"n\": \"x\"\n  }\n}";
        let outer: Outer = serde_json::from_str(text).expect("reads");
        assert_eq!(start_of(text, outer.inner), Pos { line: 2, col: 12 });
        let err = parse_piece::<Inner>(Path::new("r.json"), text, outer.inner, "inner")
            .expect_err("n is not a number");
        assert_eq!(
            err.to_string(),
            "r.json:3:12: inner: invalid type: string \"x\", expected u32"
        );
        let one_line = r#"{"inner": {"n": true}}"#;
        let outer: Outer = serde_json::from_str(one_line).expect("reads");
        let err = parse_piece::<Inner>(Path::new("r.json"), one_line, outer.inner, "")
            .expect_err("n is not a number");
        assert_eq!(
            err.to_string(),
            "r.json:1:20: invalid type: boolean `true`, expected u32"
        );
    }
}
