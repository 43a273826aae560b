//! The source line under a diagnostic, rustc-style: the line with its number and a
//! caret run under what the diagnostic points at. The `FILE:LINE:COL: message` line
//! stays the diagnostic's own; this only adds the lines that follow it.

use std::collections::HashMap;
use std::ops::Range;
use std::path::PathBuf;

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

use super::{Diagnostic, Pos, Severity};

/// The text of the files diagnostics point into, each read once. A file that cannot
/// be read (gone, or a label such as `id@v2` rather than a path) gets no snippet.
#[derive(Debug, Default)]
pub struct Sources {
    texts: HashMap<PathBuf, Option<String>>,
}

impl Sources {
    /// The lines to print under `diagnostic` (each ending in a newline), or nothing
    /// when it has no position or its file cannot be read.
    pub fn snippet(&mut self, diagnostic: &Diagnostic, colour: bool) -> String {
        let Some(pos) = diagnostic.pos else {
            return String::new();
        };
        if diagnostic.file.as_os_str().is_empty() {
            return String::new();
        }
        let text = self
            .texts
            .entry(diagnostic.file.clone())
            .or_insert_with_key(|file| std::fs::read_to_string(file).ok());
        match text {
            Some(text) => snippet(text, pos, diagnostic.severity, colour),
            None => String::new(),
        }
    }
}

/// Renders the line of `text` at `pos` with the token there underlined.
pub fn snippet(text: &str, pos: Pos, severity: Severity, colour: bool) -> String {
    let masked = mask_secrets(text);
    let text = masked.as_str();
    let Some(span) = token_at(text, pos) else {
        return String::new();
    };
    let level = match severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    };
    let group = Group::with_level(level).element(
        Snippet::source(text)
            .line_start(1)
            .annotation(AnnotationKind::Primary.span(span)),
    );
    let renderer = if colour {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut out = renderer.render(&[group]);
    out.push('\n');
    out
}

/// Keys whose values are credentials: a snippet must not show them, whatever the
/// diagnostic is about.
const SECRET_KEYS: &[&str] = &["api_key", "api-key", "apikey", "authorization"];

/// `text` with the value of every secret key replaced by `*`s, one per character so
/// columns still line up; a value continued on more-indented lines is masked there too.
fn mask_secrets(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // The column of the key whose value goes on below it, while it does.
    let mut continued_below: Option<usize> = None;
    for line in text.split_inclusive('\n') {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if let Some(key_col) = continued_below {
            if line.trim().is_empty() || indent > key_col {
                out.push_str(&mask(line));
                continue;
            }
            continued_below = None;
        }
        match secret_value_start(line) {
            Some((key_col, value_at)) => {
                out.push_str(&line[..value_at]);
                let value = &line[value_at..];
                let first = value.trim_start();
                if first.is_empty() || first.starts_with(['|', '>']) {
                    continued_below = Some(key_col);
                }
                out.push_str(&mask(value));
            }
            None => out.push_str(&mask_url_users(line)),
        }
    }
    out
}

/// `line` with the user and password of every URL in it (`scheme://USER:PASS@host`)
/// masked.
fn mask_url_users(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("://") {
        let (before, after) = rest.split_at(at + 3);
        out.push_str(before);
        let authority_len = after
            .find(|c: char| c == '/' || c.is_whitespace() || "\"'}],".contains(c))
            .unwrap_or(after.len());
        let authority = &after[..authority_len];
        match authority.rfind('@') {
            Some(user_end) => {
                out.push_str(&mask(&authority[..user_end]));
                out.push_str(&authority[user_end..]);
            }
            None => out.push_str(authority),
        }
        rest = &after[authority_len..];
    }
    out.push_str(rest);
    out
}

/// Where a secret key starts on `line` and where its value starts (just after its
/// `:`), if the line writes one.
fn secret_value_start(line: &str) -> Option<(usize, usize)> {
    let lower = line.to_ascii_lowercase();
    SECRET_KEYS
        .iter()
        .flat_map(|name| {
            lower
                .match_indices(name)
                .map(|(at, _)| (at, at + name.len()))
        })
        .filter_map(|(start, end)| {
            let after = lower[end..].trim_start_matches(['"', '\'']).trim_start();
            after
                .starts_with(':')
                .then(|| (start, lower.len() - after.len() + 1))
        })
        .min()
}

/// Every character but line ends and spacing turned into `*`.
fn mask(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_whitespace() { c } else { '*' })
        .collect()
}

/// The byte range of what starts at `pos` (1-based line and character column): a
/// quoted string up to its closing quote, else the run up to the next space or
/// separator; one character at least, none past the end of the line. `None` when the
/// line is not in `text`.
fn token_at(text: &str, pos: Pos) -> Option<Range<usize>> {
    let line_index = usize::try_from(pos.line).ok()?.checked_sub(1)?;
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line_index)
        .map(str::len)
        .sum();
    let line = text[line_start..].split_inclusive('\n').next()?;
    let line = line.trim_end_matches(['\n', '\r']);
    let col = usize::try_from(pos.col).unwrap_or(1).saturating_sub(1);
    let start = line.char_indices().nth(col).map_or(line.len(), |(i, _)| i);
    let rest = &line[start..];
    let len = match rest.chars().next() {
        None => 0,
        Some(quote @ ('"' | '\'')) => closing_quote(rest, quote).unwrap_or(rest.len()),
        Some('[' | '{') => closing_bracket(rest).unwrap_or(rest.len()),
        Some(first) => rest
            .char_indices()
            .find(|&(_, c)| c.is_whitespace() || matches!(c, ',' | ':' | ']' | '}' | '[' | '{'))
            .map_or(rest.len(), |(i, _)| i)
            .max(first.len_utf8()),
    };
    Some(line_start + start..line_start + start + len)
}

/// The length of a quoted string at the start of `rest`, quotes included.
fn closing_quote(rest: &str, quote: char) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in rest.char_indices().skip(1) {
        match c {
            '\\' if quote == '"' && !escaped => escaped = true,
            c if c == quote && !escaped => return Some(i + c.len_utf8()),
            _ => escaped = false,
        }
    }
    None
}

/// The length of a flow list or mapping at the start of `rest`, brackets included.
fn closing_bracket(rest: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut chars = rest.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '[' | '{' => depth += 1,
            ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            '"' | '\'' => {
                let skip = closing_quote(&rest[i..], c)?;
                chars.nth(rest[i..i + skip].chars().count().saturating_sub(2));
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32, col: u32) -> Pos {
        Pos { line, col }
    }

    #[test]
    fn the_line_is_shown_with_the_token_underlined() {
        let text = "tools:\n  bad_key: 1\n  name: \"a b\"\n";
        let shown = snippet(text, at(2, 3), Severity::Error, false);
        assert_eq!(shown, "  |\n2 |   bad_key: 1\n  |   ^^^^^^^\n");
        let shown = snippet(text, at(3, 9), Severity::Warning, false);
        assert_eq!(shown, "  |\n3 |   name: \"a b\"\n  |         ^^^^^\n");
        let text = "phases: [a, \"]\", {b: c}] # x\n";
        let shown = snippet(text, at(1, 9), Severity::Error, false);
        assert_eq!(
            shown,
            format!("  |\n1 | {}  |         {}\n", text, "^".repeat(16))
        );
    }

    #[test]
    fn a_credential_in_the_text_is_masked_wherever_the_diagnostic_points() {
        let text = "credential:\n  api_key: sk-secret-1\nheaders: {\"Authorization\": \"Bearer sk-2\", x: 1}\napi-key: |\n  sk-3\n  sk-4\nnext: 1\nAPI_KEY:\n  sk-5\n";
        let shown: String = (1..=9)
            .map(|line| snippet(text, at(line, 3), Severity::Warning, false))
            .collect();
        for secret in ["sk-secret-1", "sk-2", "sk-3", "sk-4", "sk-5"] {
            assert!(!shown.contains(secret), "{secret} in\n{shown}");
        }
        assert!(shown.contains("2 |   api_key: ***********"), "{shown}");
        assert!(shown.contains("7 | next: 1"), "{shown}");
        let plain = "max_tokens: 100\n";
        assert!(snippet(plain, at(1, 1), Severity::Error, false).contains("max_tokens: 100"));
    }

    #[test]
    fn the_user_and_password_of_a_url_are_masked() {
        assert_eq!(
            mask_url_users(
                "  base_url: \"http://me:hunter2@example.com/v1\", b: https://x.org/@y\n"
            ),
            "  base_url: \"http://**********@example.com/v1\", b: https://x.org/@y\n"
        );
    }

    #[test]
    fn a_position_past_the_text_or_a_file_that_cannot_be_read_gives_no_snippet() {
        assert_eq!(snippet("one line\n", at(3, 1), Severity::Error, false), "");
        let shown = snippet("key:\n", at(1, 5), Severity::Error, false);
        assert!(shown.contains("1 | key:"), "{shown}");
        let mut sources = Sources::default();
        let missing = Diagnostic::error(std::path::Path::new("/no/such/file.yaml"), at(1, 1), "x");
        assert_eq!(sources.snippet(&missing, false), "");
        let dir = tempfile::tempdir().expect("a temp dir");
        let present = dir.path().join("file.yaml");
        std::fs::write(&present, "here: 1\n").expect("written");
        let found = Diagnostic::error(&present, at(1, 1), "x");
        assert!(sources.snippet(&found, false).contains("1 | here: 1"));
        assert_eq!(sources.snippet(&Diagnostic::plain("x"), false), "");
    }
}
