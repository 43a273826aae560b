//! Positions inside a string: a column of the compiled JSON literal turned into
//! the character it spells, and that character found in the YAML scalar it came
//! from (plain, quoted, or a `|` block, whose lines stand one for one).

use crate::doc::Pos;

/// How many characters of the value the JSON literal `literal` (from its opening
/// quote) spells before the character `col` columns after the quote.
pub(super) fn decoded_chars(literal: &str, col: usize) -> usize {
    let mut chars = literal.chars().skip(1);
    let (mut walked, mut decoded) = (0, 0);
    while walked < col.saturating_sub(1) {
        match chars.next() {
            None | Some('"') => break,
            Some('\\') => match chars.next() {
                Some('u') => {
                    chars.by_ref().take(4).for_each(drop);
                    walked += 6;
                }
                _ => walked += 2,
            },
            Some(_) => walked += 1,
        }
        decoded += 1;
    }
    decoded
}

/// Where the value's character `at` stands in the YAML source, the scalar starting
/// at byte `offset` (at `pos`) of `source` and spelling `value`; `None` when its
/// style keeps no one-for-one correspondence (folded blocks, escapes).
pub(super) fn yaml_pos(
    source: &str,
    offset: usize,
    pos: Pos,
    value: &str,
    at: usize,
) -> Option<Pos> {
    let scalar = source.get(offset..)?;
    let before: String = value.chars().take(at).collect();
    match scalar.chars().next()? {
        '|' => {
            let line = before.matches('\n').count() as u32;
            let col = before
                .rsplit('\n')
                .next()
                .unwrap_or_default()
                .chars()
                .count() as u32;
            // The block's indentation: that of its first line with text.
            let body = scalar.split_once('\n')?.1;
            let indent = body
                .lines()
                .find(|l| !l.trim().is_empty())?
                .chars()
                .take_while(|c| *c == ' ')
                .count() as u32;
            Some(Pos {
                line: pos.line + 1 + line,
                col: indent + col + 1,
            })
        }
        '>' => None,
        quote @ ('"' | '\'') => {
            // One for one while on the first line and without escapes.
            let first_line = scalar.lines().next().unwrap_or_default();
            let escaped = match quote {
                '"' => first_line.contains('\\'),
                _ => first_line[1..].contains("''"),
            };
            (!escaped && !before.contains('\n')).then_some(Pos {
                line: pos.line,
                col: pos.col + 1 + before.chars().count() as u32,
            })
        }
        _ => (!before.contains('\n')).then_some(Pos {
            line: pos.line,
            col: pos.col + before.chars().count() as u32,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_column_counts_escapes_as_one_character() {
        // "a\nb{{x" : the `{` after `b`, five columns after the quote, is the
        // value's fourth character.
        assert_eq!(decoded_chars(r#""a\nb{{x""#, 5), 3);
    }

    #[test]
    fn a_block_scalar_keeps_its_lines() {
        let source = "spec:\n  t: |\n    one\n    two {{x}}\n";
        let value = "one\ntwo {{x}}\n";
        let at = value.find("{{").expect("placeholder");
        let offset = source.find('|').expect("block");
        let pos = yaml_pos(source, offset, Pos { line: 2, col: 6 }, value, at);
        assert_eq!(pos, Some(Pos { line: 4, col: 9 }));
    }
}
