use super::Pos;

/// Where, in the file, the byte at `decoded` of a JSON string's value comes from.
///
/// `offset` and `pos` locate the string's opening quote. Escapes make the file text
/// longer than the value (`\n` is two characters for one byte), so template positions
/// are mapped back by walking the literal. JSON strings cannot span lines, so only the
/// column moves. Anything that is not a quoted literal maps to `pos` itself.
pub(crate) fn locate_in_json_string(text: &str, offset: usize, pos: Pos, decoded: usize) -> Pos {
    JsonStringCursor::new(text, offset, pos).locate(decoded)
}

/// [`locate_in_json_string`] for many offsets into one string, asked for in increasing
/// order: the walk resumes where the previous one stopped, so locating every
/// placeholder of a template costs one pass over its literal, not one per placeholder.
#[derive(Debug, Clone)]
pub struct JsonStringCursor<'t> {
    /// The literal after its opening quote; `None` when `offset` is not at a quote.
    literal: Option<&'t str>,
    pos: Pos,
    /// Bytes of `literal` walked so far.
    raw: usize,
    /// Bytes of the decoded value they spell.
    done: usize,
    col: u32,
}

impl<'t> JsonStringCursor<'t> {
    pub fn new(text: &'t str, offset: usize, pos: Pos) -> Self {
        JsonStringCursor {
            literal: text.get(offset..).and_then(|rest| rest.strip_prefix('"')),
            pos,
            raw: 0,
            done: 0,
            col: pos.col + 1,
        }
    }

    /// The file position of the value's byte `decoded`.
    pub fn locate(&mut self, decoded: usize) -> Pos {
        let Some(literal) = self.literal else {
            return self.pos;
        };
        if decoded < self.done {
            (self.raw, self.done, self.col) = (0, 0, self.pos.col + 1);
        }
        let mut chars = literal[self.raw..].chars();
        while self.done < decoded {
            let Some(c) = chars.next() else { break };
            match c {
                '"' => break,
                '\\' => match chars.next() {
                    Some('u') => {
                        let unit = hex4(&mut chars);
                        self.col += 6;
                        let ch = if (0xD800..0xDC00).contains(&unit) {
                            // A surrogate pair spells one character in twelve.
                            chars.next();
                            chars.next();
                            let low = hex4(&mut chars);
                            self.col += 6;
                            char::from_u32(
                                0x10000 + ((unit - 0xD800) << 10) + (low.wrapping_sub(0xDC00)),
                            )
                        } else {
                            char::from_u32(unit)
                        };
                        self.done += ch.map_or(3, char::len_utf8);
                    }
                    _ => {
                        self.col += 2;
                        self.done += 1;
                    }
                },
                _ => {
                    self.col += 1;
                    self.done += c.len_utf8();
                }
            }
            self.raw = literal.len() - chars.as_str().len();
        }
        Pos {
            line: self.pos.line,
            col: self.col,
        }
    }
}

fn hex4(chars: &mut std::str::Chars<'_>) -> u32 {
    let digits: String = chars.take(4).collect();
    u32::from_str_radix(&digits, 16).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_maps_one_to_one() {
        let text = r#"{"t": "Hi {{name}}"}"#;
        let quote = text.find("\"Hi").unwrap_or_default();
        let at = locate_in_json_string(text, quote, Pos { line: 1, col: 7 }, 3);
        assert_eq!(at, Pos { line: 1, col: 11 });
    }

    #[test]
    fn a_cursor_agrees_with_one_shot_lookups_in_any_order() {
        let text = r#"  "a\n\u00e9\ud83d\ude00{{x}} b\"c {{y}}""#;
        let pos = Pos { line: 2, col: 3 };
        let mut cursor = JsonStringCursor::new(text, 2, pos);
        for decoded in [0, 1, 3, 8, 12, 15, 2, 9, 40] {
            assert_eq!(
                cursor.locate(decoded),
                locate_in_json_string(text, 2, pos, decoded),
                "at {decoded}"
            );
        }
    }

    #[test]
    fn escapes_take_more_columns_than_bytes() {
        let text = r#""a\n\u00e9\ud83d\ude00{{x}}""#;
        // Value: 'a' '\n' 'é'(2 bytes) '😀'(4 bytes) then "{{" at byte 8.
        let at = locate_in_json_string(text, 0, Pos { line: 4, col: 3 }, 8);
        assert_eq!(at.col, 3 + 1 + 1 + 2 + 6 + 12);
    }
}
