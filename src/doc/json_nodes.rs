//! JSON read as JSON, straight into positioned [`Node`]s: strict RFC 8259 syntax, every
//! number, every escape, keys of any length, nesting up to [`MAX_JSON_DEPTH`]. Numbers
//! map into [`Value`] as YAML maps them (an integer that fits an `i64` is an `Int`,
//! anything else a `Float`), so checks downstream see one model for both formats.
//!
//! The reader recurses once per level of nesting, and refuses a level past the limit
//! before it recurses, so a hostile file costs a bounded stack.

use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};

use super::node::{Key, Node, Pos, Value};

/// How deeply arrays and objects may nest in a JSON file: far beyond what real packs,
/// schemas and configs use, and shallow enough for a 2 MiB thread stack.
pub(crate) const MAX_JSON_DEPTH: usize = 256;

/// Maps with up to this many keys are checked for a repeat by scanning them; larger
/// ones keep a set of the keys' hashes.
const SCANNED_KEYS: usize = 8;

/// Why a text is not read, and where.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{problem}")]
pub(super) struct JsonError {
    pub pos: Pos,
    pub problem: Problem,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(super) enum Problem {
    #[error("invalid JSON: the file is empty, expected a value")]
    Empty,
    #[error("invalid JSON: expected {0}")]
    Expected(&'static str),
    #[error("invalid JSON: unexpected end of the file, expected {0}")]
    Ended(&'static str),
    #[error("invalid JSON: trailing comma")]
    TrailingComma,
    #[error("invalid JSON: unexpected text after the value, expected the end of the file")]
    TrailingText,
    #[error(
        "invalid JSON: a byte-order mark before the value (save the file as UTF-8 without one)"
    )]
    ByteOrderMark,
    #[error("invalid JSON: control character U+{0:04X} in a string (write it as an escape)")]
    ControlCharacter(u8),
    #[error("invalid JSON: invalid escape `\\{0}` in a string")]
    Escape(char),
    #[error("invalid JSON: expected four hexadecimal digits after `\\u`")]
    Hex,
    #[error(
        "invalid JSON: lone surrogate `\\u{0:04x}` (a high surrogate must be followed by a low one, `\\udc00` to `\\udfff`)"
    )]
    LoneHighSurrogate(u32),
    #[error("invalid JSON: lone surrogate `\\u{0:04x}` (a low surrogate must follow a high one)")]
    LoneLowSurrogate(u32),
    #[error("invalid JSON: invalid number, a leading zero is followed by a digit")]
    LeadingZero,
    #[error("invalid JSON: number out of range")]
    OutOfRange,
    #[error(
        "arrays and objects nested deeper than {MAX_JSON_DEPTH} levels (the limit for a JSON file)"
    )]
    TooDeep,
    #[error("duplicate mapping key: {}", shown(.0))]
    DuplicateKey(String),
}

/// The document's nodes, or the first problem in its text.
pub(super) fn read_json_nodes(text: &str) -> Result<Node, JsonError> {
    let mut reader = Reader {
        bytes: text.as_bytes(),
        text,
        at: 0,
        line: 1,
        col: 1,
    };
    if text.starts_with('\u{FEFF}') {
        return Err(reader.error(Problem::ByteOrderMark));
    }
    reader.skip_space();
    if reader.peek().is_none() {
        return Err(reader.error(Problem::Empty));
    }
    let root = reader.value(0)?;
    reader.skip_space();
    if reader.peek().is_some() {
        return Err(reader.error(Problem::TrailingText));
    }
    Ok(root)
}

struct Reader<'a> {
    bytes: &'a [u8],
    text: &'a str,
    /// Byte offset of the next character.
    at: usize,
    line: u32,
    /// Of the next character, counted in characters.
    col: u32,
}

impl Reader<'_> {
    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            col: self.col,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn error(&self, problem: Problem) -> JsonError {
        JsonError {
            pos: self.pos(),
            problem,
        }
    }

    /// `expected` is missing: the text ends here or has something else.
    fn missing(&self, expected: &'static str) -> JsonError {
        match self.peek() {
            Some(_) => self.error(Problem::Expected(expected)),
            None => JsonError {
                pos: end_of_text(self.text),
                problem: Problem::Ended(expected),
            },
        }
    }

    /// Steps over `n` ASCII bytes.
    fn bump_ascii(&mut self, n: usize) {
        self.at += n;
        self.col += n as u32;
    }

    fn skip_space(&mut self) {
        while let Some(byte) = self.peek() {
            match byte {
                b'\n' => {
                    self.at += 1;
                    self.line += 1;
                    self.col = 1;
                }
                b' ' | b'\t' | b'\r' => self.bump_ascii(1),
                _ => break,
            }
        }
    }

    /// The value starting here (no space before it is skipped). `depth` is how many
    /// arrays and objects enclose it.
    fn value(&mut self, depth: usize) -> Result<Node, JsonError> {
        let (pos, offset) = (self.pos(), self.at);
        let value = match self.peek() {
            Some(b'{') => self.map(depth + 1)?,
            Some(b'[') => self.seq(depth + 1)?,
            Some(b'"') => Value::Str(self.string()?),
            Some(b't') => self.word("true", "`true`", Value::Bool(true))?,
            Some(b'f') => self.word("false", "`false`", Value::Bool(false))?,
            Some(b'n') => self.word("null", "`null`", Value::Null)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            _ => return Err(self.missing("a value")),
        };
        Ok(Node { pos, offset, value })
    }

    fn word(&mut self, word: &str, name: &'static str, value: Value) -> Result<Value, JsonError> {
        if !self.bytes[self.at..].starts_with(word.as_bytes()) {
            return Err(self.error(Problem::Expected(name)));
        }
        self.bump_ascii(word.len());
        Ok(value)
    }

    /// A number, as YAML reads it: an integer that fits an `i64` is an `Int`; a
    /// fraction, an exponent or a larger integer is a `Float`.
    fn number(&mut self) -> Result<Value, JsonError> {
        let (start, pos) = (self.at, self.pos());
        if self.peek() == Some(b'-') {
            self.bump_ascii(1);
        }
        match self.peek() {
            Some(b'0') => {
                self.bump_ascii(1);
                if self.peek().is_some_and(|b| b.is_ascii_digit()) {
                    return Err(JsonError {
                        pos,
                        problem: Problem::LeadingZero,
                    });
                }
            }
            _ => self.digits()?,
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            self.bump_ascii(1);
            self.digits()?;
            integer = false;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.bump_ascii(1);
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.bump_ascii(1);
            }
            self.digits()?;
            integer = false;
        }
        let literal = &self.text[start..self.at];
        if integer && let Ok(n) = literal.parse::<i64>() {
            return Ok(Value::Int(n));
        }
        match literal.parse::<f64>() {
            Ok(n) if n.is_finite() => Ok(Value::Float(n)),
            _ => Err(JsonError {
                pos,
                problem: Problem::OutOfRange,
            }),
        }
    }

    /// One or more ASCII digits.
    fn digits(&mut self) -> Result<(), JsonError> {
        let run = self.bytes[self.at..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if run == 0 {
            return Err(self.missing("a digit"));
        }
        self.bump_ascii(run);
        Ok(())
    }

    fn enter(&self, depth: usize) -> Result<(), JsonError> {
        if depth > MAX_JSON_DEPTH {
            return Err(self.error(Problem::TooDeep));
        }
        Ok(())
    }

    fn map(&mut self, depth: usize) -> Result<Value, JsonError> {
        self.enter(depth)?;
        self.bump_ascii(1);
        self.skip_space();
        let mut entries: Vec<(Key, Node)> = Vec::new();
        if self.peek() == Some(b'}') {
            self.bump_ascii(1);
            return Ok(Value::Map(entries));
        }
        let mut seen = SeenKeys::default();
        loop {
            if self.peek() != Some(b'"') {
                return Err(self.missing("a key in double quotes"));
            }
            let (pos, offset) = (self.pos(), self.at);
            let name = self.string()?;
            if seen.repeats(&entries, &name) {
                return Err(JsonError {
                    pos,
                    problem: Problem::DuplicateKey(name),
                });
            }
            self.skip_space();
            if self.peek() != Some(b':') {
                return Err(self.missing("`:`"));
            }
            self.bump_ascii(1);
            self.skip_space();
            let value = self.value(depth)?;
            entries.push((Key { name, pos, offset }, value));
            if self.after_item(b'}', "`,` or `}`")? {
                return Ok(Value::Map(entries));
            }
        }
    }

    fn seq(&mut self, depth: usize) -> Result<Value, JsonError> {
        self.enter(depth)?;
        self.bump_ascii(1);
        self.skip_space();
        let mut items = Vec::new();
        if self.peek() == Some(b']') {
            self.bump_ascii(1);
            return Ok(Value::Seq(items));
        }
        loop {
            items.push(self.value(depth)?);
            if self.after_item(b']', "`,` or `]`")? {
                return Ok(Value::Seq(items));
            }
        }
    }

    /// After an item or entry: `true` at the closing bracket (stepped over), `false`
    /// after a comma with another item to come.
    fn after_item(&mut self, close: u8, expected: &'static str) -> Result<bool, JsonError> {
        self.skip_space();
        match self.peek() {
            Some(b',') => {
                self.bump_ascii(1);
                self.skip_space();
                if self.peek() == Some(close) {
                    return Err(self.error(Problem::TrailingComma));
                }
                Ok(false)
            }
            Some(byte) if byte == close => {
                self.bump_ascii(1);
                Ok(true)
            }
            _ => Err(self.missing(expected)),
        }
    }

    /// The string starting at this `"`, its escapes read.
    fn string(&mut self) -> Result<String, JsonError> {
        self.bump_ascii(1);
        let mut out = String::new();
        loop {
            let run = self.at;
            let mut col = self.col;
            let mut end = run;
            while let Some(&byte) = self.bytes.get(end) {
                if byte == b'"' || byte == b'\\' || byte < 0x20 {
                    break;
                }
                col += u32::from(byte & 0xC0 != 0x80);
                end += 1;
            }
            // `end` is at an ASCII byte or the end of the text: a character boundary.
            out.push_str(&self.text[run..end]);
            (self.at, self.col) = (end, col);
            match self.peek() {
                Some(b'"') => {
                    self.bump_ascii(1);
                    return Ok(out);
                }
                Some(b'\\') => out.push(self.escape()?),
                Some(byte) => return Err(self.error(Problem::ControlCharacter(byte))),
                None => return Err(self.missing("`\"` to end the string")),
            }
        }
    }

    /// The character an escape at this `\` stands for.
    fn escape(&mut self) -> Result<char, JsonError> {
        let pos = self.pos();
        self.bump_ascii(1);
        let c = match self.peek() {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{C}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => return self.unicode_escape(pos),
            Some(_) => {
                let c = self.text[self.at..].chars().next().unwrap_or('\u{FFFD}');
                return Err(JsonError {
                    pos,
                    problem: Problem::Escape(c),
                });
            }
            None => return Err(self.missing("an escaped character")),
        };
        self.bump_ascii(1);
        Ok(c)
    }

    /// A `\uXXXX` escape at `pos`, the `u` next; a high surrogate takes the low one
    /// that must follow it.
    fn unicode_escape(&mut self, pos: Pos) -> Result<char, JsonError> {
        self.bump_ascii(1);
        let unit = self.hex4()?;
        let lone = |problem| Err(JsonError { pos, problem });
        let code = match unit {
            0xD800..=0xDBFF => {
                if !self.bytes[self.at..].starts_with(b"\\u") {
                    return lone(Problem::LoneHighSurrogate(unit));
                }
                self.bump_ascii(2);
                let low = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return lone(Problem::LoneHighSurrogate(unit));
                }
                0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            }
            0xDC00..=0xDFFF => return lone(Problem::LoneLowSurrogate(unit)),
            _ => unit,
        };
        Ok(char::from_u32(code).unwrap_or('\u{FFFD}'))
    }

    /// Four hexadecimal digits.
    fn hex4(&mut self) -> Result<u32, JsonError> {
        let mut unit = 0;
        for i in 0..4 {
            let digit = self
                .bytes
                .get(self.at + i)
                .and_then(|&b| char::from(b).to_digit(16));
            match digit {
                Some(d) => unit = unit * 16 + d,
                None => {
                    self.bump_ascii(i);
                    return Err(self.error(Problem::Hex));
                }
            }
        }
        self.bump_ascii(4);
        Ok(unit)
    }
}

/// The keys of one map seen so far, for finding a repeat without comparing every
/// key with every other: a large map keeps the keys' hashes (keyed at random, so no
/// file can make them collide on purpose), and a name is compared only when its
/// hash is already there.
#[derive(Default)]
struct SeenKeys {
    hashes: Option<(RandomState, HashSet<u64>)>,
}

impl SeenKeys {
    fn repeats(&mut self, entries: &[(Key, Node)], name: &str) -> bool {
        let scan = || entries.iter().any(|(key, _)| key.name == name);
        if entries.len() < SCANNED_KEYS {
            return scan();
        }
        let (state, hashes) = self.hashes.get_or_insert_with(|| {
            let state = RandomState::new();
            let hashes = entries
                .iter()
                .map(|(key, _)| state.hash_one(&key.name))
                .collect();
            (state, hashes)
        });
        !hashes.insert(state.hash_one(name)) && scan()
    }
}

/// `name` with its control characters escaped, fit for a terminal.
fn shown(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// The position just after the last character that is not space: where a text that
/// ends too early is shown to end.
fn end_of_text(text: &str) -> Pos {
    let body = text.trim_end_matches([' ', '\t', '\r', '\n']);
    let line_start = body.rfind('\n').map_or(0, |at| at + 1);
    Pos {
        line: 1 + body.matches('\n').count() as u32,
        col: 1 + body[line_start..].chars().count() as u32,
    }
}
