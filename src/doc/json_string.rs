use super::Pos;

/// Where, in the file, the byte at `decoded` of a JSON string's value comes from.
///
/// `offset` and `pos` locate the string's opening quote. Escapes make the file text
/// longer than the value (`\n` is two characters for one byte), so template positions
/// are mapped back by walking the literal. JSON strings cannot span lines, so only the
/// column moves. Anything that is not a quoted literal maps to `pos` itself.
pub fn locate_in_json_string(text: &str, offset: usize, pos: Pos, decoded: usize) -> Pos {
    let Some(literal) = text.get(offset..).and_then(|rest| rest.strip_prefix('"')) else {
        return pos;
    };
    let mut chars = literal.chars();
    let mut col = pos.col + 1;
    let mut done = 0;
    while done < decoded {
        let Some(c) = chars.next() else { break };
        match c {
            '"' => break,
            '\\' => match chars.next() {
                Some('u') => {
                    let unit = hex4(&mut chars);
                    col += 6;
                    let ch = if (0xD800..0xDC00).contains(&unit) {
                        // A surrogate pair spells one character in twelve.
                        chars.next();
                        chars.next();
                        let low = hex4(&mut chars);
                        col += 6;
                        char::from_u32(
                            0x10000 + ((unit - 0xD800) << 10) + (low.wrapping_sub(0xDC00)),
                        )
                    } else {
                        char::from_u32(unit)
                    };
                    done += ch.map_or(3, char::len_utf8);
                }
                _ => {
                    col += 2;
                    done += 1;
                }
            },
            _ => {
                col += 1;
                done += c.len_utf8();
            }
        }
    }
    Pos {
        line: pos.line,
        col,
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
    fn escapes_take_more_columns_than_bytes() {
        let text = r#""a\n\u00e9\ud83d\ude00{{x}}""#;
        // Value: 'a' '\n' 'é'(2 bytes) '😀'(4 bytes) then "{{" at byte 8.
        let at = locate_in_json_string(text, 0, Pos { line: 4, col: 3 }, 8);
        assert_eq!(at.col, 3 + 1 + 1 + 2 + 6 + 12);
    }
}
