//! JSON read straight into [`Node`]s, for the texts where that gives exactly what the
//! YAML tree builder gives (and in a tenth of the time). Anything YAML might read
//! otherwise, or refuse, is left to it: a character YAML does not take as it is
//! (controls, tabs, carriage returns, a byte-order mark, line separators), a number
//! that is not a plain integer, a surrogate escape, a duplicate key, a key not ended
//! on its own line or longer than YAML allows, deep nesting. The text must already be
//! valid JSON.

use super::node::{Key, Node, Pos, Value};

/// Keys YAML reads as implicit keys only within 1024 characters of their `:`; well
/// inside that, to be safe.
const LONGEST_KEY: usize = 1000;
/// Deeper documents are left to YAML.
const DEEPEST: usize = 64;

/// The document's nodes, or `None` when the YAML tree builder must read it.
pub(super) fn read_json_nodes(text: &str) -> Option<Node> {
    if !text.chars().all(reads_alike) {
        return None;
    }
    let mut reader = Reader {
        bytes: text.as_bytes(),
        text,
        at: 0,
        line: 1,
        col: 1,
    };
    reader.skip_space();
    reader.value(0)
}

/// A character JSON and YAML both take as it is.
fn reads_alike(c: char) -> bool {
    matches!(c, ' '..='~' | '\n')
        || (c >= '\u{A0}'
            && !matches!(
                c,
                '\u{2028}' | '\u{2029}' | '\u{FEFF}' | '\u{FFFE}' | '\u{FFFF}'
            ))
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

    fn peek(&self) -> u8 {
        self.bytes.get(self.at).copied().unwrap_or(0)
    }

    /// Steps over one byte, counting a character at each first byte of one.
    fn bump(&mut self) {
        let byte = self.peek();
        self.at += 1;
        if byte == b'\n' {
            self.line += 1;
            self.col = 1;
        } else if byte & 0xC0 != 0x80 {
            self.col += 1;
        }
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), b' ' | b'\n') {
            self.bump();
        }
    }

    /// The value starting here, and the space after it.
    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > DEEPEST {
            return None;
        }
        let (pos, offset) = (self.pos(), self.at);
        let value = match self.peek() {
            b'{' => self.map(depth)?,
            b'[' => self.seq(depth)?,
            b'"' => Value::Str(self.string()?),
            b't' => self.word("true", Value::Bool(true)),
            b'f' => self.word("false", Value::Bool(false)),
            b'n' => self.word("null", Value::Null),
            _ => self.integer()?,
        };
        self.skip_space();
        Some(Node { pos, offset, value })
    }

    fn word(&mut self, word: &str, value: Value) -> Value {
        for _ in 0..word.len() {
            self.bump();
        }
        value
    }

    /// Digits with an optional minus sign that fit an `i64`; `-0` is left to YAML.
    fn integer(&mut self) -> Option<Value> {
        let start = self.at;
        if self.peek() == b'-' {
            self.bump();
        }
        while self.peek().is_ascii_digit() {
            self.bump();
        }
        if matches!(self.peek(), b'.' | b'e' | b'E') {
            return None;
        }
        let digits = &self.text[start..self.at];
        if digits == "-0" {
            return None;
        }
        digits.parse().ok().map(Value::Int)
    }

    fn map(&mut self, depth: usize) -> Option<Value> {
        self.bump();
        self.skip_space();
        let mut entries: Vec<(Key, Node)> = Vec::new();
        while self.peek() != b'}' {
            let (pos, start, line) = (self.pos(), self.at, self.line);
            let name = self.string()?;
            while self.peek() == b' ' {
                self.bump();
            }
            // YAML reads a key only up to a `:` on its own line, not too far on.
            if self.peek() != b':' || self.line != line || self.at - start > LONGEST_KEY {
                return None;
            }
            if entries.iter().any(|(key, _)| key.name == name) {
                return None;
            }
            self.bump();
            self.skip_space();
            let value = self.value(depth + 1)?;
            entries.push((
                Key {
                    name,
                    pos,
                    offset: start,
                },
                value,
            ));
            if self.peek() == b',' {
                self.bump();
                self.skip_space();
            }
        }
        self.bump();
        Some(Value::Map(entries))
    }

    fn seq(&mut self, depth: usize) -> Option<Value> {
        self.bump();
        self.skip_space();
        let mut items = Vec::new();
        while self.peek() != b']' {
            items.push(self.value(depth + 1)?);
            if self.peek() == b',' {
                self.bump();
                self.skip_space();
            }
        }
        self.bump();
        Some(Value::Seq(items))
    }

    /// The string starting at this `"`, its escapes read.
    fn string(&mut self) -> Option<String> {
        if self.peek() != b'"' {
            return None;
        }
        self.bump();
        let mut out = String::new();
        loop {
            let run = self.at;
            while !matches!(self.peek(), b'"' | b'\\') {
                if self.at >= self.bytes.len() {
                    return None;
                }
                self.bump();
            }
            out.push_str(&self.text[run..self.at]);
            if self.peek() == b'"' {
                self.bump();
                return Some(out);
            }
            self.bump();
            let escape = self.peek();
            self.bump();
            out.push(match escape {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{C}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => {
                    let hex = self.text.get(self.at..self.at + 4)?;
                    for _ in 0..4 {
                        self.bump();
                    }
                    // A surrogate (half of a pair) is left to YAML.
                    char::from_u32(u32::from_str_radix(hex, 16).ok()?)?
                }
                _ => return None,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::node::{parse_json, parse_yaml};
    use super::*;

    #[test]
    fn a_template_is_read_here_as_yaml_reads_it() {
        let text = r#"{
  "id": "p-1",
  "title": "Café \u00e9 \"q\" \/",
  "slots": [{"name": "x", "max_length": 40}, "y"],
  "auditable": true, "metadata": {"n": null, "k": -7}
}
"#;
        let read = read_json_nodes(text).expect("read here");
        assert_eq!(
            read,
            parse_yaml(Path::new("t.json"), text).expect("yaml reads it")
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        #[test]
        fn json_gives_the_nodes_yaml_gives(text in json_text()) {
            proptest::prop_assume!(serde_json::from_str::<serde_json::Value>(&text).is_ok());
            let path = Path::new("t.json");
            let ours = parse_json(path, &text).map_err(|d| d.to_string());
            let yaml = parse_yaml(path, &text).map_err(|d| d.to_string());
            proptest::prop_assert_eq!(ours, yaml, "{:?}", text);
        }
    }

    /// JSON texts with what YAML may read otherwise: odd characters and escapes,
    /// every kind of number, repeated and long keys, all sorts of space.
    fn json_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        // Mostly what is read here, now and then what is left to YAML.
        let space = prop_oneof![
            60 => prop::sample::select(vec!["", " ", "\n", "\n  ", "  \n", "\n\n    "]),
            1 => prop::sample::select(vec!["\t", "\r\n", "\r"]),
        ];
        let piece = prop_oneof![
            60 => prop::sample::select(vec![
                "a", "b c", "{{x}}", ":", "#", "- ", "é", "日本", "😀", "\u{a0}", "\\\"", "\\\\",
                "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0041", "\\u00e9", "\\u0000",
                "\\u0001", "\\u2028",
            ]),
            1 => prop::sample::select(vec![
                "\u{7f}", "\u{85}", "\u{2028}", "\u{feff}", "\\ud83d\\ude00",
            ]),
        ];
        let string = prop::collection::vec(piece, 0..4).prop_map(|p| format!("\"{}\"", p.concat()));
        let key = prop_oneof![
            30 => prop::sample::select(vec!["\"a\"", "\"b\"", "\"c\"", "\"id\"", "\"\"", "\"é\""])
                .prop_map(String::from),
            1 => prop::sample::select(vec![990, 1100])
                .prop_map(|n| format!("\"{}\"", "k".repeat(n))),
            1 => string.clone(),
        ];
        let scalar = prop_oneof![
            40 => string,
            40 => prop::sample::select(vec![
                "0", "-1", "42", "true", "false", "null", "9223372036854775807",
                "-9223372036854775808",
            ])
            .prop_map(String::from),
            1 => prop::sample::select(vec![
                "-0", "1.5", "1e3", "1E2", "0.0", "-2.5e-3", "9223372036854775808",
                "12345678901234567890",
            ])
            .prop_map(String::from),
        ];
        let value = scalar.prop_recursive(4, 48, 5, move |inner| {
            let s = space.clone();
            // A key broken from its `:` is left to YAML: now and then.
            let before_colon = prop_oneof![
                20 => prop::sample::select(vec!["", " ", "  "]),
                1 => Just("\n"),
            ];
            let entry = (key.clone(), before_colon, s.clone(), inner.clone())
                .prop_map(|(k, a, b, v)| format!("{k}{a}:{b}{v}"));
            prop_oneof![
                (prop::collection::vec((inner, s.clone()), 0..4), s.clone()).prop_map(
                    |(items, lead)| {
                        let items: Vec<String> =
                            items.into_iter().map(|(v, w)| format!("{v}{w}")).collect();
                        format!("[{lead}{}]", items.join(","))
                    }
                ),
                (prop::collection::vec((entry, s.clone()), 0..4), s).prop_map(|(entries, lead)| {
                    let entries: Vec<String> = entries
                        .into_iter()
                        .map(|(e, w)| format!("{e}{w}"))
                        .collect();
                    format!("{{{lead}{}}}", entries.join(","))
                }),
            ]
        });
        (space_around(), value, space_around()).prop_map(|(a, v, b)| format!("{a}{v}{b}"))
    }

    fn space_around() -> impl proptest::strategy::Strategy<Value = &'static str> {
        proptest::sample::select(vec!["", "\n", "  ", "\n\n"])
    }
}
