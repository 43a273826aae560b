//! Slot constraints: what a value must look like before it goes into a template.
//! Values are inserted as plain text and never read as template syntax; these rules
//! keep out what the prompt's author did not mean to let in.

use regex::Regex;
use serde_json::Value as Json;

use crate::doc::{Checker, Node, Pos, UnknownKeys};

/// One declared slot and its rules.
#[derive(Debug, Clone)]
pub struct Slot {
    pub name: String,
    pub max_length: Option<u64>,
    /// The whole value must match.
    pub pattern: Option<Regex>,
    pub allowed: Option<Vec<String>>,
    /// Its value is redacted in the audit log.
    pub sensitive: bool,
    /// Control characters other than newline and tab are refused unless allowed.
    pub allow_control: bool,
    /// Its value comes from outside (a user, a web page, a tool): the template must
    /// set it apart, in a tag, a code fence or quotes, so it cannot pass for instructions.
    pub untrusted: bool,
    pub pos: Pos,
}

impl Slot {
    fn named(name: String, pos: Pos) -> Self {
        Self {
            name,
            max_length: None,
            pattern: None,
            allowed: None,
            sensitive: false,
            allow_control: false,
            untrusted: false,
            pos,
        }
    }

    /// Why `value` may not fill this slot, if it may not.
    pub fn refuse(&self, value: &str) -> Option<String> {
        let name = &self.name;
        if !self.allow_control
            && let Some(c) = value
                .chars()
                .find(|c| c.is_control() && *c != '\n' && *c != '\t')
        {
            return Some(format!(
                "slot `{name}`: the value holds a control character (U+{:04X})",
                c as u32
            ));
        }
        if let Some(max) = self.max_length {
            let len = value.chars().count() as u64;
            if len > max {
                return Some(format!(
                    "slot `{name}`: the value is {len} characters, more than max_length {max}"
                ));
            }
        }
        if let Some(re) = &self.pattern
            && !re.is_match(value)
        {
            return Some(format!(
                "slot `{name}`: the value does not match pattern `{}`",
                re.as_str()
                    .trim_start_matches("^(?:")
                    .trim_end_matches(")$")
            ));
        }
        if let Some(allowed) = &self.allowed
            && !allowed.iter().any(|a| a == value)
        {
            return Some(format!(
                "slot `{name}`: the value is not one of {}",
                allowed
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        None
    }
}

/// `slots`: names, or objects with `name`, `max_length`, `pattern`, `enum`,
/// `sensitive`, `allow_control` and `untrusted`.
pub(super) fn read_slots(cx: &mut Checker, node: &Node) -> Vec<Slot> {
    let Some(items) = cx.list(node, "slots") else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| read_slot(cx, item))
        .collect()
}

fn read_slot(cx: &mut Checker, item: &Node) -> Option<Slot> {
    if let Json::String(name) = item.to_json() {
        return Some(Slot::named(name, item.pos));
    }
    let mut f = cx.map(item, "a slot (a name, or an object with `name`)")?;
    let name = match f.get("name") {
        Some(n) => cx.nonempty_string(n, "slot name")?,
        None => {
            cx.error(item.pos, "a slot object needs `name`");
            return None;
        }
    };
    let mut slot = Slot::named(name, item.pos);
    slot.max_length = f
        .get("max_length")
        .and_then(|n| cx.non_negative_integer(n, "max_length"));
    if let Some(n) = f.get("pattern")
        && let Some(source) = cx.string(n, "pattern")
    {
        match Regex::new(&format!("^(?:{source})$")) {
            Ok(re) => slot.pattern = Some(re),
            Err(e) => cx.error(n.pos, format!("pattern: not a valid regex: {e}")),
        }
    }
    slot.allowed = f
        .get("enum")
        .and_then(|n| cx.string_list(n, "enum"))
        .map(|list| list.into_iter().map(|(s, _)| s).collect());
    slot.sensitive = f
        .get("sensitive")
        .and_then(|n| cx.boolean(n, "sensitive"))
        .unwrap_or(false);
    slot.allow_control = f
        .get("allow_control")
        .and_then(|n| cx.boolean(n, "allow_control"))
        .unwrap_or(false);
    slot.untrusted = f
        .get("untrusted")
        .and_then(|n| cx.boolean(n, "untrusted"))
        .unwrap_or(false);
    f.allow(&["description"]);
    cx.unknown_keys(&f, "the slot", UnknownKeys::Error);
    Some(slot)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot() -> Slot {
        Slot::named("topic".into(), Pos::START)
    }

    #[test]
    fn control_characters_are_refused_unless_allowed() {
        assert!(slot().refuse("line one\nline two\ttab").is_none());
        let refused = slot().refuse("bell\u{7}").expect("refused");
        assert!(refused.contains("U+0007"), "{refused}");
        let allowed = Slot {
            allow_control: true,
            ..slot()
        };
        assert!(allowed.refuse("bell\u{7}").is_none());
    }

    #[test]
    fn length_pattern_and_enum_are_enforced() {
        let rules = Slot {
            max_length: Some(5),
            pattern: Regex::new("^(?:[a-z]+)$").ok(),
            allowed: Some(vec!["apple".into(), "pear".into()]),
            ..slot()
        };
        assert!(rules.refuse("pear").is_none());
        assert!(
            rules
                .refuse("banana")
                .is_some_and(|r| r.contains("max_length 5"))
        );
        assert!(
            rules
                .refuse("PEAR")
                .is_some_and(|r| r.contains("pattern `[a-z]+`"))
        );
        assert!(
            rules
                .refuse("plum")
                .is_some_and(|r| r.contains("not one of"))
        );
    }
}
