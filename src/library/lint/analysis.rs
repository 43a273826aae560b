//! A template body as the rules see it, whichever language it is in: the variables
//! it uses, the partials it includes, the conditions it tests, and what does not parse.

use serde_json::Value as Json;

use crate::dotprompt::{BlockKind, Expr, Template as Dotprompt};
use crate::template::{Template as Plain, is_time_variable};

/// One use of an input variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Use {
    pub name: String,
    /// Where to point at: the byte of the name in the body.
    pub at: usize,
    /// The whole tag (`{{` to `}}`), when the use inserts the value into the text.
    pub inserted: Option<(usize, usize)>,
}

/// A condition that can never hold, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DeadCondition {
    pub at: usize,
    pub why: String,
}

/// Everything the structural and security rules read from a body.
#[derive(Debug, Clone, Default)]
pub(crate) struct Analysis {
    pub uses: Vec<Use>,
    /// Partials included: name and byte.
    pub partials: Vec<(String, usize)>,
    pub dead: Vec<DeadCondition>,
    /// Syntax errors: byte and message.
    pub errors: Vec<(usize, String)>,
}

/// Reads `body` in its language.
pub(crate) fn analyse(body: &str, dotprompt: bool) -> Analysis {
    match dotprompt {
        true => analyse_dotprompt(body),
        false => analyse_plain(body),
    }
}

fn analyse_plain(body: &str) -> Analysis {
    let template = match Plain::parse(body) {
        Ok(t) => t,
        Err(errors) => {
            return Analysis {
                errors: errors.iter().map(|e| (e.offset, e.to_string())).collect(),
                ..Analysis::default()
            };
        }
    };
    let uses = template
        .placeholders()
        .filter(|p| !p.name.starts_with("fragments.") && !is_time_variable(&p.name))
        .map(|p| {
            let end = body[p.offset..]
                .find("}}")
                .map_or(body.len(), |i| p.offset + i + 2);
            Use {
                name: p.name.clone(),
                at: p.offset,
                inserted: Some((p.offset, end)),
            }
        })
        .collect();
    Analysis {
        uses,
        ..Analysis::default()
    }
}

fn analyse_dotprompt(body: &str) -> Analysis {
    let template = match Dotprompt::parse(body) {
        Ok(t) => t,
        Err(errors) => {
            return Analysis {
                errors: errors.iter().map(|e| (e.offset, e.to_string())).collect(),
                ..Analysis::default()
            };
        }
    };
    let uses = template
        .variables()
        .into_iter()
        .map(|v| Use {
            inserted: inserted_tag(body, v.offset),
            name: v.name,
            at: v.offset,
        })
        .collect();
    let partials = template
        .partials()
        .into_iter()
        .map(|p| (p.name, p.offset))
        .collect();
    let dead = template
        .conditions()
        .into_iter()
        .filter_map(|c| never_true(c.kind, &c.args).map(|why| DeadCondition { at: c.offset, why }))
        .collect();
    Analysis {
        uses,
        partials,
        dead,
        errors: Vec::new(),
    }
}

/// The tag around byte `at` when it inserts the value there: `{{x}}`, `{{{x}}}`,
/// `{{&x}}` or `{{json x}}`; `None` for a block, partial or helper argument.
fn inserted_tag(body: &str, at: usize) -> Option<(usize, usize)> {
    let mut start = body.get(..at)?.rfind("{{")?;
    if body[..start].ends_with('{') {
        start -= 1;
    }
    let words = body[start + 2..at]
        .trim_start_matches(['{', '&', '~'])
        .trim();
    if !(words.is_empty() || words == "json") {
        return None;
    }
    let mut end = body[at..].find("}}").map_or(body.len(), |i| at + i + 2);
    if body[start..].starts_with("{{{") && body[end..].starts_with('}') {
        end += 1;
    }
    Some((start, end))
}

/// Handlebars' truth: `false`, `null`, `""`, `0` and `[]` are false.
fn truthy(value: &Json) -> bool {
    match value {
        Json::Null => false,
        Json::Bool(b) => *b,
        Json::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Json::String(s) => !s.is_empty(),
        Json::Array(items) => !items.is_empty(),
        Json::Object(_) => true,
    }
}

/// Why a condition on literals never holds, when it does not.
fn never_true(kind: BlockKind, args: &[Expr]) -> Option<String> {
    let literals: Vec<&Json> = args
        .iter()
        .filter_map(|a| match a {
            Expr::Literal(v) => Some(v),
            Expr::Path(_) => None,
        })
        .collect();
    if literals.len() != args.len() || args.is_empty() {
        return None;
    }
    match (kind, literals.as_slice()) {
        (BlockKind::If, [v]) if !truthy(v) => Some(format!("`#if {v}` is never true")),
        (BlockKind::Unless, [v]) if truthy(v) => {
            Some(format!("`#unless {v}` never shows its block"))
        }
        (BlockKind::IfEquals, [a, b]) if a != b => Some(format!(
            "`#ifEquals {a} {b}` compares two different literals"
        )),
        (BlockKind::UnlessEquals, [a, b]) if a == b => Some(format!(
            "`#unlessEquals {a} {b}` compares a literal with itself"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_on_literals_that_never_hold_are_found() {
        for body in [
            "{{#if false}}x{{/if}}",
            "{{#if \"\"}}x{{/if}}",
            "{{#if 0}}x{{/if}}",
            "{{#if null}}x{{/if}}",
            "{{#unless true}}x{{/unless}}",
            "{{#ifEquals 1 2}}x{{/ifEquals}}",
            "{{#unlessEquals \"a\" \"a\"}}x{{/unlessEquals}}",
        ] {
            let a = analyse(body, true);
            assert!(a.errors.is_empty(), "{body}: {:?}", a.errors);
            assert_eq!(a.dead.len(), 1, "{body}");
        }
        for body in [
            "{{#if true}}x{{/if}}",
            "{{#if flag}}x{{/if}}",
            "{{#ifEquals 1 1}}x{{/ifEquals}}",
            "{{#ifEquals kind \"a\"}}x{{/ifEquals}}",
            "{{#unless false}}x{{/unless}}",
        ] {
            assert!(analyse(body, true).dead.is_empty(), "{body}");
        }
    }

    #[test]
    fn only_value_tags_insert_a_variable() {
        let body = "{{#if doc}}<d>{{doc}}</d> {{{doc}}} {{json doc}}{{/if}}";
        let a = analyse(body, true);
        let inserted: Vec<_> = a
            .uses
            .iter()
            .filter_map(|u| u.inserted.map(|(s, e)| &body[s..e]))
            .collect();
        assert_eq!(inserted, ["{{doc}}", "{{{doc}}}", "{{json doc}}"]);
        assert_eq!(a.uses.len(), 4);
    }

    #[test]
    fn plain_placeholders_are_uses_but_clock_and_fragments_are_not() {
        let a = analyse("{{topic}} on {{current_date}} {{fragments.x}}", false);
        let names: Vec<_> = a.uses.iter().map(|u| u.name.as_str()).collect();
        assert_eq!(names, ["topic"]);
        assert_eq!(a.uses[0].inserted, Some((0, 9)));
        assert_eq!(analyse("{{oops", false).errors.len(), 1);
    }
}
