//! The scan of a tool surface for text aimed at the model rather than at people:
//! every description and title, and every string (keys included) inside the
//! schemas and annotations.
//!
//! | rule | level | finds |
//! |---|---|---|
//! | `hidden_unicode` | error | tag characters U+E0000–U+E007F, bidi controls U+202A–U+202E and U+2066–U+2069, zero-width U+200B–U+200D, U+2060, U+FEFF |
//! | `instruction_text` | error | a phrase of [`PHRASES`], in any case and spacing |
//! | `names_other_tool` | warning | a description that names another tool of the surface (names of 3 characters or more, as whole words) |
//! | `long_description` | warning | a description over [`MAX_DESCRIPTION`] characters |

use serde::Serialize;
use serde_json::Value as Json;

use crate::sarif::Level;

use super::{Lock, Pinned};

/// The characters a reviewer cannot see: one list for the lock and for `prompt lint`.
pub(super) use crate::library::lint::hidden;

/// Phrases that tell a model what to do behind the user's back; matched with case
/// and runs of white space ignored.
pub(crate) const PHRASES: &[&str] = &[
    "ignore previous instructions",
    "ignore all previous",
    "ignore the above",
    "disregard previous instructions",
    "disregard all prior",
    "forget your instructions",
    "do not tell the user",
    "don't tell the user",
    "without telling the user",
    "<important>",
    "<system>",
    "system prompt",
    "you must always call",
    "before using any other tool",
];

/// The longest description that is not a finding, in characters.
pub(crate) const MAX_DESCRIPTION: usize = 1024;

/// Every rule: id, level, what it finds, how to fix it.
pub(crate) const RULES: &[(&str, Level, &str, &str)] = &[
    (
        "hidden_unicode",
        Level::Error,
        "invisible or direction-changing characters a reviewer cannot see",
        "remove the character; if the text needs it, write it visibly",
    ),
    (
        "instruction_text",
        Level::Error,
        "text that gives the model instructions instead of describing the tool",
        "describe what the tool does and returns; leave instructions to the prompt",
    ),
    (
        "names_other_tool",
        Level::Warning,
        "a description that names another tool, which can steer the model to it",
        "describe this tool alone; let the prompt say how tools combine",
    ),
    (
        "long_description",
        Level::Warning,
        "a description too long to review (over 1024 characters)",
        "shorten the description; move details to documentation",
    ),
];

/// One thing the scan found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Finding {
    pub rule: &'static str,
    pub level: Level,
    pub tool: String,
    /// `description`, `title`, `input_schema`, `output_schema` or `annotations`.
    pub field: &'static str,
    /// A JSON Pointer inside the field (`""` for the field itself).
    pub pointer: String,
    pub message: String,
    pub hint: &'static str,
}

/// Everything the rules find in `lock`, tool by tool in name order.
pub(crate) fn scan(lock: &Lock) -> Vec<Finding> {
    let names: Vec<(&str, &str)> = lock
        .tools
        .keys()
        .map(|name| {
            let short = crate::mcp::split(name).map_or(name.as_str(), |(_, tool)| tool);
            (name.as_str(), short)
        })
        .collect();
    let mut found = Vec::new();
    for (name, entry) in &lock.tools {
        let mut at = |field: &'static str, pinned: &Option<Pinned>| {
            if let Some(pinned) = pinned {
                strings(&pinned.value, String::new(), &mut |pointer, text| {
                    text_rules(name, field, &pointer, text, &mut found);
                });
            }
        };
        at("title", &entry.title);
        at("description", &entry.description);
        at("input_schema", &entry.input_schema);
        at("output_schema", &entry.output_schema);
        at("annotations", &entry.annotations);
        if let Some(Json::String(text)) = entry.description.as_ref().map(|p| &p.value) {
            description_rules(name, text, &names, &mut found);
        }
    }
    found
}

/// Calls `each` with every string in `value` (object keys too) and its pointer.
fn strings(value: &Json, at: String, each: &mut dyn FnMut(String, &str)) {
    match value {
        Json::String(text) => each(at, text),
        Json::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                strings(item, format!("{at}/{i}"), each);
            }
        }
        Json::Object(members) => {
            for (key, item) in members {
                let here = crate::diff::json::child(&at, key);
                each(here.clone(), key);
                strings(item, here, each);
            }
        }
        _ => {}
    }
}

fn finding(
    rule: &'static str,
    tool: &str,
    field: &'static str,
    pointer: &str,
    message: String,
) -> Finding {
    let (level, hint) = RULES
        .iter()
        .find(|(id, ..)| *id == rule)
        .map_or((Level::Warning, ""), |(_, level, _, hint)| (*level, *hint));
    Finding {
        rule,
        level,
        tool: tool.to_string(),
        field,
        pointer: pointer.to_string(),
        message,
        hint,
    }
}

fn text_rules(tool: &str, field: &'static str, pointer: &str, text: &str, out: &mut Vec<Finding>) {
    let seen: Vec<String> = text
        .chars()
        .filter(|c| hidden(*c))
        .map(|c| format!("U+{:04X}", c as u32))
        .collect();
    if !seen.is_empty() {
        let mut listed: Vec<String> = seen.clone();
        listed.sort();
        listed.dedup();
        out.push(finding(
            "hidden_unicode",
            tool,
            field,
            pointer,
            format!("{} hidden character(s): {}", seen.len(), listed.join(", ")),
        ));
    }
    let flat = text
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    // Hidden characters must not hide a phrase either.
    let flat: String = flat.chars().filter(|c| !hidden(*c)).collect();
    for phrase in PHRASES {
        if flat.contains(phrase) {
            out.push(finding(
                "instruction_text",
                tool,
                field,
                pointer,
                format!("says \"{phrase}\""),
            ));
        }
    }
}

fn description_rules(tool: &str, text: &str, names: &[(&str, &str)], out: &mut Vec<Finding>) {
    let count = text.chars().count();
    if count > MAX_DESCRIPTION {
        out.push(finding(
            "long_description",
            tool,
            "description",
            "",
            format!("{count} characters, over the limit of {MAX_DESCRIPTION}"),
        ));
    }
    for (other, short) in names {
        if *other == tool {
            continue;
        }
        let named = [*other, *short]
            .into_iter()
            .find(|n| n.chars().count() >= 3 && names_word(text, n));
        if let Some(named) = named {
            out.push(finding(
                "names_other_tool",
                tool,
                "description",
                "",
                format!("names tool `{named}`"),
            ));
        }
    }
}

/// Whether `word` is in `text` with no letter, digit or `_` right before or after.
fn names_word(text: &str, word: &str) -> bool {
    let part = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(part) && !after.is_some_and(part)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_matched_whole() {
        assert!(names_word("then call `refund`.", "refund"));
        assert!(!names_word("refunds are slow", "refund"));
        assert!(!names_word("do_refund now", "refund"));
    }

    #[test]
    fn a_phrase_split_by_spaces_or_case_is_found() {
        let mut out = Vec::new();
        text_rules(
            "t",
            "description",
            "",
            "IGNORE   previous\ninstructions",
            &mut out,
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].rule, "instruction_text");
    }

    #[test]
    fn a_zero_width_space_is_named_by_its_code_point() {
        let mut out = Vec::new();
        text_rules("t", "input_schema", "/properties/a", "a\u{200B}b", &mut out);
        assert_eq!(out[0].rule, "hidden_unicode");
        assert_eq!(out[0].message, "1 hidden character(s): U+200B");
        assert_eq!(out[0].pointer, "/properties/a");
    }
}
