use std::fmt;

use crate::doc::Pos;

/// A parsed template: literal text and placeholders, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    segments: Vec<Segment>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    Text(String),
    Placeholder(Placeholder),
}

/// One `{{name}}` and where its `{{` stands in the template text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placeholder {
    pub name: String,
    /// Byte offset of the opening `{{`.
    pub offset: usize,
    /// Line and column of the opening `{{`, counted in the template text.
    pub pos: Pos,
}

/// A malformed placeholder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub offset: usize,
    pub pos: Pos,
    pub kind: SyntaxErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyntaxErrorKind {
    Unclosed,
    BadName(String),
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            SyntaxErrorKind::Unclosed => f.write_str(
                "unclosed placeholder: `{{` has no matching `}}` (write `{{{{` for a literal `{{`)",
            ),
            SyntaxErrorKind::BadName(inner) => write!(
                f,
                "invalid placeholder `{{{{{inner}}}}}`: a name is letters, digits, `_`, `-` and `.`, starting with a letter or `_`"
            ),
        }
    }
}

const OPEN: &str = "{{";
const CLOSE: &str = "}}";
const LITERAL_OPEN: &str = "{{{{";

impl Template {
    /// Parses `text`, reporting every malformed placeholder.
    pub fn parse(text: &str) -> Result<Template, Vec<SyntaxError>> {
        let mut segments = Vec::new();
        let mut errors = Vec::new();
        let mut literal = String::new();
        let mut rest = 0;
        let mut lines = LineCounter::new(text);
        while let Some(found) = text[rest..].find(OPEN) {
            let open = rest + found;
            literal.push_str(&text[rest..open]);
            if text[open..].starts_with(LITERAL_OPEN) {
                literal.push_str(OPEN);
                rest = open + LITERAL_OPEN.len();
                continue;
            }
            let inner_start = open + OPEN.len();
            let Some(close) = text[inner_start..].find(CLOSE).map(|i| inner_start + i) else {
                errors.push(SyntaxError {
                    offset: open,
                    pos: lines.at(open),
                    kind: SyntaxErrorKind::Unclosed,
                });
                rest = text.len();
                break;
            };
            let name = text[inner_start..close].trim();
            if is_name(name) {
                if !literal.is_empty() {
                    segments.push(Segment::Text(std::mem::take(&mut literal)));
                }
                segments.push(Segment::Placeholder(Placeholder {
                    name: name.to_string(),
                    offset: open,
                    pos: lines.at(open),
                }));
            } else {
                errors.push(SyntaxError {
                    offset: open,
                    pos: lines.at(open),
                    kind: SyntaxErrorKind::BadName(text[inner_start..close].to_string()),
                });
            }
            rest = close + CLOSE.len();
        }
        literal.push_str(&text[rest..]);
        if !literal.is_empty() {
            segments.push(Segment::Text(literal));
        }
        if errors.is_empty() {
            Ok(Template { segments })
        } else {
            Err(errors)
        }
    }

    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    pub fn placeholders(&self) -> impl Iterator<Item = &Placeholder> {
        self.segments.iter().filter_map(|s| match s {
            Segment::Placeholder(p) => Some(p),
            Segment::Text(_) => None,
        })
    }
}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// 1-based line and column (in characters) of byte offsets, asked for in increasing
/// order: each call counts only the text since the previous one, so positions for a
/// whole template cost one pass over it (counting from the start each time would make
/// parsing quadratic in the number of placeholders).
struct LineCounter<'t> {
    text: &'t str,
    offset: usize,
    line: u32,
    col: u32,
}

impl<'t> LineCounter<'t> {
    fn new(text: &'t str) -> Self {
        LineCounter {
            text,
            offset: 0,
            line: 1,
            col: 1,
        }
    }

    /// The position of byte `offset`, which is not before the previous one asked for.
    fn at(&mut self, offset: usize) -> Pos {
        if offset < self.offset {
            *self = LineCounter::new(self.text);
        }
        for c in self.text[self.offset..offset].chars() {
            if c == '\n' {
                self.line += 1;
                self.col = 1;
            } else {
                self.col += 1;
            }
        }
        self.offset = offset;
        Pos {
            line: self.line,
            col: self.col,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        Template::parse(text)
            .expect("parses")
            .placeholders()
            .map(|p| p.name.clone())
            .collect()
    }

    #[test]
    fn finds_placeholders_with_and_without_spaces() {
        assert_eq!(names("Hi {{name}}, {{ place }}!"), ["name", "place"]);
        assert_eq!(
            names("{{a-b}}{{_c9}}{{fragments.x}}"),
            ["a-b", "_c9", "fragments.x"]
        );
    }

    #[test]
    fn positions_count_lines_and_characters() {
        let t = Template::parse("línea 1\n  ünd {{x}}").expect("parses");
        let p = t.placeholders().next().expect("one placeholder");
        assert_eq!(p.pos, Pos { line: 2, col: 7 });
        assert_eq!(p.offset, "línea 1\n  ünd ".len());
    }

    #[test]
    fn quadruple_brace_is_a_literal_double_brace() {
        let t = Template::parse("use {{{{name}} to insert").expect("parses");
        assert_eq!(t.placeholders().count(), 0);
        assert_eq!(
            t.segments(),
            [Segment::Text("use {{name}} to insert".into())]
        );
    }

    #[test]
    fn lone_braces_are_text() {
        let t = Template::parse("a { b } c }} d").expect("parses");
        assert_eq!(t.placeholders().count(), 0);
    }

    #[test]
    fn reports_every_malformed_placeholder() {
        let errors =
            Template::parse("{{ two words }} ok {{}} {{x").expect_err("should be rejected");
        let kinds: Vec<_> = errors.iter().map(|e| (e.pos.col, e.kind.clone())).collect();
        assert_eq!(
            kinds,
            [
                (1, SyntaxErrorKind::BadName(" two words ".into())),
                (20, SyntaxErrorKind::BadName(String::new())),
                (25, SyntaxErrorKind::Unclosed),
            ]
        );
        assert_eq!(
            errors[0].to_string(),
            "invalid placeholder `{{ two words }}`: a name is letters, digits, `_`, `-` and `.`, starting with a letter or `_`"
        );
    }
}
