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
pub(crate) struct Sources {
    texts: HashMap<PathBuf, Option<String>>,
}

impl Sources {
    /// The lines to print under `diagnostic` (each ending in a newline), or nothing
    /// when it has no position or its file cannot be read.
    pub(crate) fn snippet(&mut self, diagnostic: &Diagnostic, colour: bool) -> String {
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
pub(crate) fn snippet(text: &str, pos: Pos, severity: Severity, colour: bool) -> String {
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

/// Keys whose value is a mapping of secrets: environment variables and headers carry
/// tokens under any name, so every value in them is masked.
const SECRET_MAPS: &[&str] = &["env", "headers"];

/// A secret map written as a block below its key, while it goes on.
#[derive(Clone, Copy)]
struct MapBelow {
    key_col: usize,
    /// The indentation of its entries, once the first is seen.
    entries: Option<usize>,
}

/// `text` with the value of every secret key, and every value in a secret map, replaced
/// by `*`s, one per character so columns still line up; a value continued on
/// more-indented lines is masked there too.
fn mask_secrets(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // The column of the key whose value goes on below it, while it does.
    let mut continued_below: Option<usize> = None;
    let mut map_below: Option<MapBelow> = None;
    for line in text.split_inclusive('\n') {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if let Some(key_col) = continued_below {
            if line.trim().is_empty() || indent > key_col {
                out.push_str(&mask(line));
                continue;
            }
            continued_below = None;
        }
        if let Some(map) = &mut map_below {
            if line.trim().is_empty() {
                out.push_str(line);
                continue;
            }
            if indent > map.key_col {
                let entries = *map.entries.get_or_insert(indent);
                // Deeper than an entry is the rest of an entry's value.
                let masked = if indent > entries {
                    mask(line)
                } else {
                    mask_entry_value(line)
                };
                out.push_str(&masked);
                continue;
            }
            map_below = None;
        }
        let (line, opens_below) = mask_secret_maps(line);
        if let Some(key_col) = opens_below {
            map_below = Some(MapBelow {
                key_col,
                entries: None,
            });
        }
        match secret_value_start(&line) {
            Some((key_col, value_at)) => {
                out.push_str(&line[..value_at]);
                let value = &line[value_at..];
                let first = value.trim_start();
                if first.is_empty() || first.starts_with(['|', '>']) {
                    continued_below = Some(key_col);
                }
                out.push_str(&mask(value));
            }
            None => out.push_str(&mask_url_users(&line)),
        }
    }
    out
}

/// `line` with the values of every secret map written on it masked, and the column
/// of a secret map key whose entries follow on the lines below, if there is one.
fn mask_secret_maps(line: &str) -> (String, Option<usize>) {
    let mut ranges: Vec<Range<usize>> = Vec::new();
    let mut opens_below = None;
    for name in SECRET_MAPS {
        for (at, _) in line.match_indices(name) {
            let starts_key = line[..at]
                .chars()
                .next_back()
                .is_none_or(|c| c.is_whitespace() || "{,\"'".contains(c));
            let after = line[at + name.len()..].trim_start_matches(['"', '\'']);
            let Some(value) = after.trim_start().strip_prefix(':') else {
                continue;
            };
            if !starts_key {
                continue;
            }
            let value = value.trim_start();
            if value.is_empty() || value.starts_with('#') {
                opens_below = Some(at);
            } else if value.starts_with('{') {
                let open = line.len() - value.len();
                let (values, closed) = flow_map_values(line, open);
                ranges.extend(values);
                if !closed {
                    // Its entries are indented from the line (JSON), not from the key.
                    opens_below = Some(line.len() - line.trim_start_matches(' ').len());
                }
            }
        }
    }
    ranges.sort_by_key(|r| r.start);
    let mut out = String::with_capacity(line.len());
    let mut done = 0;
    for range in ranges {
        if range.start < done {
            continue;
        }
        out.push_str(&line[done..range.start]);
        out.push_str(&mask(&line[range.clone()]));
        done = range.end;
    }
    out.push_str(&line[done..]);
    (out, opens_below)
}

/// The byte ranges of the values in the flow mapping whose `{` is at `open`, and
/// whether it closes on this line.
fn flow_map_values(line: &str, open: usize) -> (Vec<Range<usize>>, bool) {
    let mut values = Vec::new();
    let mut depth = 0usize;
    let mut value_start: Option<usize> = None;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in line[open..].char_indices().map(|(i, c)| (open + i, c)) {
        if let Some(q) = quote {
            match c {
                '\\' if q == '"' && !escaped => escaped = true,
                c if c == q && !escaped => quote = None,
                _ => escaped = false,
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    values.extend(value_start.map(|start| start..i));
                    return (values, true);
                }
            }
            ':' if depth == 1 && value_start.is_none() => value_start = Some(i + 1),
            ',' if depth == 1 => values.extend(value_start.take().map(|start| start..i)),
            _ => {}
        }
    }
    values.extend(value_start.map(|start| start..line.len()));
    (values, false)
}

/// `line`, an entry of a secret map, with everything after its key masked; a line
/// with no key (a list item) as it is.
fn mask_entry_value(line: &str) -> String {
    let mut quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, ':') => return format!("{}{}", &line[..=i], mask(&line[i + 1..])),
            _ => {}
        }
    }
    line.to_string()
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
    fn every_value_of_an_env_or_headers_map_is_masked() {
        let text = "mcp_servers:\n  - name: fs\n    env:\n      TOKEN: tok-1\n      \"QUOTED\": 'tok-2'\n      LONG: >\n        tok-3\n    headers: {X-Token: tok-4, \"X-B\": \"a, tok-5\", X-C: {n: tok-6}}\n  - {name: b, env: {A: tok-7}, url: \"https://x.org\"}\ntools:\n  t:\n    env: [API_KEY]\n    exec:\n      env:\n        - OTHER\n      env_mode: base\n{\n  \"headers\": {\n    \"X-J\": \"tok-8\"\n  },\n  \"next\": 1\n}\n";
        let masked = mask_secrets(text);
        for secret in (1..=8).map(|n| format!("tok-{n}")) {
            assert!(!masked.contains(&secret), "{secret} in\n{masked}");
        }
        let lines: Vec<&str> = masked.lines().collect();
        assert_eq!(lines[3], "      TOKEN: *****");
        assert_eq!(lines[4], "      \"QUOTED\": *******");
        assert_eq!(
            lines[8], "  - {name: b, env: {A: *****}, url: \"https://x.org\"}",
            "what is outside the map is shown"
        );
        for (i, shown) in [
            (11, "    env: [API_KEY]"),
            (14, "        - OTHER"),
            (15, "      env_mode: base"),
            (19, "  },"),
            (20, "  \"next\": 1"),
        ] {
            assert_eq!(lines[i], shown, "names and other keys are shown");
        }
        assert_eq!(masked.len(), text.len(), "columns still line up");
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
