//! The words inside one action, each with its byte offset in the template.

/// One word of an action.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    /// `.` alone.
    Dot,
    /// `.a.b`: the field names, in order.
    Field(Vec<String>),
    /// `$x.a.b` (`$` alone is the name ``).
    Var(String, Vec<String>),
    Ident(String),
    Str(String),
    Int(i64),
    Float(f64),
    LParen,
    RParen,
    Pipe,
    Declare,
    Assign,
    Comma,
}

/// A word, where it starts, and whether a space came before it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Token {
    pub tok: Tok,
    pub at: usize,
    pub spaced: bool,
}

pub(super) type LexError = (usize, String);

/// Splits the action that starts at byte `start` of `src` (just after `{{` and any
/// trim marker). Returns its words, where its closing `}}` starts (a trim marker
/// included) and where the text after it starts.
pub(super) fn action(src: &str, start: usize) -> Result<(Vec<Token>, usize, usize), LexError> {
    let bytes = src.as_bytes();
    let mut i = start;
    let mut out = Vec::new();
    let mut spaced = true;
    loop {
        let Some(&c) = bytes.get(i) else {
            return Err((start, "unclosed action".into()));
        };
        if src[i..].starts_with(" -}}")
            || src[i..].starts_with("\t-}}")
            || src[i..].starts_with("\n-}}")
        {
            return Ok((out, i, i + 4));
        }
        if src[i..].starts_with("}}") {
            return Ok((out, i, i + 2));
        }
        if c.is_ascii_whitespace() {
            i += 1;
            spaced = true;
            continue;
        }
        let at = i;
        let (tok, next) = match c {
            b'(' => (Tok::LParen, i + 1),
            b')' => (Tok::RParen, i + 1),
            b'|' => (Tok::Pipe, i + 1),
            b',' => (Tok::Comma, i + 1),
            b'=' => (Tok::Assign, i + 1),
            b':' if bytes.get(i + 1) == Some(&b'=') => (Tok::Declare, i + 2),
            b'"' => quoted(src, i)?,
            b'`' => match src[i + 1..].find('`') {
                Some(end) => (Tok::Str(src[i + 1..i + 1 + end].to_string()), i + end + 2),
                None => return Err((i, "unterminated raw quoted string".into())),
            },
            b'.' if bytes.get(i + 1).is_some_and(|b| b.is_ascii_digit()) => number(src, i)?,
            b'.' => {
                let (fields, next) = fields(src, i);
                if fields.is_empty() {
                    (Tok::Dot, i + 1)
                } else {
                    (Tok::Field(fields), next)
                }
            }
            b'$' => {
                let name_end = word_end(src, i + 1);
                let name = src[i + 1..name_end].to_string();
                let (fields, next) = fields(src, name_end);
                (Tok::Var(name, fields), next)
            }
            b'-' | b'+' | b'0'..=b'9' => number(src, i)?,
            c if c == b'_' || c.is_ascii_alphabetic() => {
                let end = word_end(src, i);
                (Tok::Ident(src[i..end].to_string()), end)
            }
            _ => {
                let ch = src[i..].chars().next().unwrap_or('?');
                return Err((i, format!("unexpected {ch:?} in command")));
            }
        };
        out.push(Token { tok, at, spaced });
        spaced = false;
        i = next;
    }
}

fn word_end(src: &str, from: usize) -> usize {
    src[from..]
        .find(|c: char| !(c == '_' || c.is_alphanumeric()))
        .map_or(src.len(), |n| from + n)
}

/// `.a.b` from `from`: the names, and where they end.
fn fields(src: &str, mut from: usize) -> (Vec<String>, usize) {
    let mut names = Vec::new();
    while src[from..].starts_with('.') {
        let end = word_end(src, from + 1);
        if end == from + 1 {
            break;
        }
        names.push(src[from + 1..end].to_string());
        from = end;
    }
    (names, from)
}

fn number(src: &str, from: usize) -> Result<(Tok, usize), LexError> {
    let end = src[from + 1..]
        .find(|c: char| {
            !(c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '+' || c == '-')
        })
        .map_or(src.len(), |n| from + 1 + n);
    let text = &src[from..end];
    let clean = text.replace('_', "");
    let (negative, digits) = match clean.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, clean.strip_prefix('+').unwrap_or(&clean)),
    };
    let hex = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"));
    let int = match hex {
        Some(h) => i64::from_str_radix(h, 16).ok(),
        None => digits.parse::<i64>().ok(),
    };
    if let Some(n) = int {
        return Ok((Tok::Int(if negative { -n } else { n }), end));
    }
    match clean.parse::<f64>() {
        Ok(f) if hex.is_none() => Ok((Tok::Float(f), end)),
        _ => Err((from, format!("bad number syntax: {text:?}"))),
    }
}

/// A Go interpreted string literal starting at `from` (its opening quote).
fn quoted(src: &str, from: usize) -> Result<(Tok, usize), LexError> {
    let mut out = String::new();
    let mut chars = src[from + 1..].char_indices();
    while let Some((n, c)) = chars.next() {
        match c {
            '"' => return Ok((Tok::Str(out), from + 1 + n + 1)),
            '\n' => break,
            '\\' => {
                let Some((_, e)) = chars.next() else { break };
                let simple = match e {
                    'n' => Some('\n'),
                    't' => Some('\t'),
                    'r' => Some('\r'),
                    '\\' => Some('\\'),
                    '"' => Some('"'),
                    '\'' => Some('\''),
                    'a' => Some('\u{7}'),
                    'b' => Some('\u{8}'),
                    'f' => Some('\u{c}'),
                    'v' => Some('\u{b}'),
                    _ => None,
                };
                if let Some(s) = simple {
                    out.push(s);
                    continue;
                }
                let width = match e {
                    'x' => 2,
                    'u' => 4,
                    'U' => 8,
                    _ => return Err((from + 1 + n, format!("unknown escape sequence \\{e}"))),
                };
                let hex: String = (0..width)
                    .filter_map(|_| chars.next().map(|(_, h)| h))
                    .collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => return Err((from + 1 + n, format!("bad escape \\{e}{hex}"))),
                }
            }
            c => out.push(c),
        }
    }
    Err((from, "unterminated quoted string".into()))
}
