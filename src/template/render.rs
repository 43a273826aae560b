use std::collections::{HashMap, HashSet};

use super::{Placeholder, Segment, Template};

/// Placeholders that had no value, each at its first use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfilled(pub Vec<Placeholder>);

impl Template {
    /// The length of the literal text, a lower bound on any rendering's length.
    fn text_len(&self) -> usize {
        self.segments()
            .iter()
            .map(|s| match s {
                Segment::Text(text) => text.len(),
                Segment::Placeholder(_) => 0,
            })
            .sum()
    }

    /// Inserts each value as plain text. Values are never scanned for placeholders, so a
    /// value that contains `{{x}}` comes out exactly as given.
    pub fn render(&self, values: &HashMap<String, String>) -> Result<String, Unfilled> {
        let mut out = String::with_capacity(self.text_len());
        let mut unfilled: Vec<Placeholder> = Vec::new();
        let mut missing: HashSet<&str> = HashSet::new();
        for segment in self.segments() {
            match segment {
                Segment::Text(text) => out.push_str(text),
                Segment::Placeholder(p) => match values.get(&p.name) {
                    Some(value) => out.push_str(value),
                    None if missing.insert(&p.name) => unfilled.push(p.clone()),
                    None => {}
                },
            }
        }
        if unfilled.is_empty() {
            Ok(out)
        } else {
            Err(Unfilled(unfilled))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn vars(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn renders_values_in_place() {
        let t = Template::parse("Hello {{ who }}, from {{where}}.").expect("parses");
        let out = t.render(&vars(&[("who", "Ada"), ("where", "<home> & \"away\"")]));
        assert_eq!(out.as_deref(), Ok("Hello Ada, from <home> & \"away\"."));
    }

    #[test]
    fn reports_each_missing_name_once_at_its_first_use() {
        let t = Template::parse("{{a}} {{b}} {{a}}").expect("parses");
        let Err(Unfilled(missing)) = t.render(&vars(&[("b", "x")])) else {
            panic!("should be missing a")
        };
        assert_eq!(missing.len(), 1);
        assert_eq!((missing[0].name.as_str(), missing[0].pos.col), ("a", 1));
    }

    #[test]
    fn values_are_not_parsed_again() {
        let t = Template::parse("[{{a}}]").expect("parses");
        let out = t.render(&vars(&[("a", "{{b}} {{{{")]));
        assert_eq!(out.as_deref(), Ok("[{{b}} {{{{]"));
    }

    /// One piece of a generated template.
    #[derive(Debug, Clone)]
    enum Piece {
        Text(String),
        /// `{{{{`, which renders as `{{`.
        LiteralOpen,
        Placeholder {
            name: String,
            padded: bool,
        },
    }

    fn piece() -> impl Strategy<Value = Piece> {
        prop_oneof![
            "[^{}]{0,12}".prop_map(Piece::Text),
            Just(Piece::LiteralOpen),
            ("[a-e]", any::<bool>()).prop_map(|(name, padded)| Piece::Placeholder { name, padded }),
        ]
    }

    /// The template text the pieces spell.
    fn source(pieces: &[Piece]) -> String {
        let mut out = String::new();
        for piece in pieces {
            match piece {
                Piece::Text(text) => out.push_str(text),
                Piece::LiteralOpen => out.push_str("{{{{"),
                Piece::Placeholder { name, padded: true } => {
                    out.push_str(&format!("{{{{ {name} }}}}"))
                }
                Piece::Placeholder {
                    name,
                    padded: false,
                } => out.push_str(&format!("{{{{{name}}}}}")),
            }
        }
        out
    }

    /// Line and column of `offset`, counted from the start every time.
    fn slow_position(text: &str, offset: usize) -> (u32, u32) {
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        (line as u32, before[line_start..].chars().count() as u32 + 1)
    }

    proptest! {
        #[test]
        fn rendering_matches_a_piece_by_piece_reference(
            pieces in proptest::collection::vec(piece(), 0..40),
            filled in proptest::collection::hash_map("[a-e]", "[^\n]{0,6}", 0..5),
        ) {
            let text = source(&pieces);
            let template = Template::parse(&text).expect("generated templates are valid");
            let mut expected = String::new();
            let mut missing: Vec<String> = Vec::new();
            for piece in &pieces {
                match piece {
                    Piece::Text(t) => expected.push_str(t),
                    Piece::LiteralOpen => expected.push_str("{{"),
                    Piece::Placeholder { name, .. } => match filled.get(name) {
                        Some(value) => expected.push_str(value),
                        None if missing.contains(name) => {}
                        None => missing.push(name.clone()),
                    },
                }
            }
            for p in template.placeholders() {
                prop_assert_eq!((p.pos.line, p.pos.col), slow_position(&text, p.offset));
                prop_assert!(text[p.offset..].starts_with("{{"));
            }
            match template.render(&filled) {
                Ok(out) => {
                    prop_assert!(missing.is_empty());
                    prop_assert_eq!(out, expected);
                }
                Err(Unfilled(unfilled)) => {
                    let names: Vec<String> = unfilled.iter().map(|p| p.name.clone()).collect();
                    prop_assert_eq!(names, missing);
                }
            }
        }

        #[test]
        fn parsing_and_rendering_never_panic(text in "\\PC*", value in "\\PC*") {
            if let Ok(t) = Template::parse(&text) {
                let names: HashMap<String, String> =
                    t.placeholders().map(|p| (p.name.clone(), value.clone())).collect();
                prop_assert!(t.render(&names).is_ok());
                let _ = t.render(&HashMap::new());
            }
        }

        #[test]
        fn braces_heavy_text_never_panics(text in "[{} a-z\n]{0,40}") {
            let _ = Template::parse(&text).map(|t| t.render(&HashMap::new()));
        }

        #[test]
        fn a_value_containing_placeholders_appears_literally(
            prefix in "[a-z ]{0,10}",
            inner in "[a-z_]{1,8}",
            noise in "\\PC{0,20}",
        ) {
            let value = format!("{noise}{{{{{inner}}}}}{noise}");
            let t = Template::parse(&format!("{prefix}{{{{v}}}}{prefix}")).expect("valid template");
            let out = t.render(&vars(&[("v", &value)])).expect("filled");
            prop_assert_eq!(out, format!("{prefix}{value}{prefix}"));
        }

        #[test]
        fn text_without_braces_renders_unchanged(text in "[^{}]*") {
            let t = Template::parse(&text).expect("no braces, no errors");
            prop_assert_eq!(t.render(&HashMap::new()).expect("nothing to fill"), text);
        }
    }
}
