use std::collections::HashMap;

use super::{Placeholder, Segment, Template};

/// Placeholders that had no value, each at its first use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfilled(pub Vec<Placeholder>);

impl Template {
    /// Inserts each value as plain text. Values are never scanned for placeholders, so a
    /// value that contains `{{x}}` comes out exactly as given.
    pub fn render(&self, values: &HashMap<String, String>) -> Result<String, Unfilled> {
        let mut out = String::new();
        let mut unfilled: Vec<Placeholder> = Vec::new();
        for segment in self.segments() {
            match segment {
                Segment::Text(text) => out.push_str(text),
                Segment::Placeholder(p) => match values.get(&p.name) {
                    Some(value) => out.push_str(value),
                    None if unfilled.iter().any(|u| u.name == p.name) => {}
                    None => unfilled.push(p.clone()),
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

    proptest! {
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
