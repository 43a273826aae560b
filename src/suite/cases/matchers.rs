//! The checks a case makes, each a small pure function that says what differed, or
//! `None` when the expectation holds.

use regex::Regex;
use serde_json::Value as Json;

pub(crate) use crate::diff::same;

/// How much of a value a message shows before it is cut.
const SHOWN_CHARS: usize = 160;

/// Where two values first part, and what each holds there (`None`: nothing).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Difference {
    /// A JSON pointer; empty for the whole value.
    pub pointer: String,
    pub expected: Option<Json>,
    pub actual: Option<Json>,
}

/// The first place, in the expected value's order, where `actual` differs from
/// `expected`; keys only `actual` has come after every expected one.
pub(crate) fn first_difference(expected: &Json, actual: &Json) -> Option<Difference> {
    crate::diff::first_change(expected, actual).map(|change| Difference {
        pointer: change.pointer,
        expected: change.left,
        actual: change.right,
    })
}

impl Difference {
    /// "`what` at /a/b: expected X, got Y".
    pub(crate) fn describe(&self, what: &str) -> String {
        let place = if self.pointer.is_empty() {
            what.to_string()
        } else {
            format!("{what} at {}", self.pointer)
        };
        let side = |value: &Option<Json>| value.as_ref().map_or("nothing".into(), show);
        format!(
            "{place}: expected {}, got {}",
            side(&self.expected),
            side(&self.actual)
        )
    }
}

/// `result:` — the whole result equals `expected`.
pub(crate) fn check_result(expected: &Json, actual: &Json) -> Option<String> {
    first_difference(expected, actual).map(|d| d.describe("result"))
}

/// One entry of `pointer:` — the value at `pointer` in the result equals `expected`.
pub(crate) fn check_pointer(pointer: &str, expected: &Json, result: &Json) -> Option<String> {
    let what = format!("pointer {pointer}");
    match result.pointer(pointer) {
        None => Some(format!(
            "{what}: expected {}, got nothing there",
            show(expected)
        )),
        Some(found) if same(expected, found) => None,
        Some(found) => Some(format!(
            "{what}: expected {}, got {}",
            show(expected),
            show(found)
        )),
    }
}

/// `matches:` or `reason:` — the pattern is found in `text`.
pub(crate) fn check_matches(what: &str, pattern: &Regex, text: &str) -> Option<String> {
    if pattern.is_match(text) {
        return None;
    }
    Some(format!(
        "{what}: /{}/ not found in {}",
        pattern.as_str(),
        show_text(text)
    ))
}

/// `matches:` on a result: the pattern is searched in the result written as compact
/// JSON (no spaces, strings quoted), which the message shows, so a pattern written
/// for the bare text can be seen not to fit.
pub(crate) fn check_matches_result(pattern: &Regex, result: &Json) -> Option<String> {
    let text = result.to_string();
    if pattern.is_match(&text) {
        return None;
    }
    Some(format!(
        "matches: /{}/ not found in the result as compact JSON: {}",
        pattern.as_str(),
        cut(&text)
    ))
}

/// A value as compact JSON, cut when long.
pub(crate) fn show(value: &Json) -> String {
    cut(&value.to_string())
}

/// A text quoted, cut when long.
pub(crate) fn show_text(text: &str) -> String {
    cut(&format!("{text:?}"))
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_compare_by_value_everywhere() {
        assert!(same(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
        assert!(!same(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(!same(&json!("1"), &json!(1)));
    }

    #[test]
    fn the_first_difference_names_its_pointer() {
        let expected = json!({"order": {"status": "delayed", "items": [1, 2]}});
        let actual = json!({"order": {"status": "shipped", "items": [1, 3]}});
        let d = first_difference(&expected, &actual).expect("they differ");
        assert_eq!(d.pointer, "/order/status");
        assert_eq!(
            d.describe("result"),
            r#"result at /order/status: expected "delayed", got "shipped""#
        );
        assert_eq!(first_difference(&json!({"a": 1.0}), &json!({"a": 1})), None);
    }

    #[test]
    fn missing_and_extra_members_and_items_are_differences() {
        let missing = first_difference(&json!({"a": 1, "b": 2}), &json!({"a": 1}));
        assert_eq!(
            missing.expect("b is missing").describe("result"),
            "result at /b: expected 2, got nothing"
        );
        let extra = first_difference(&json!({"a": 1}), &json!({"a": 1, "c/d": true}));
        assert_eq!(
            extra.expect("c/d is extra").describe("result"),
            "result at /c~1d: expected nothing, got true"
        );
        let longer = first_difference(&json!([1]), &json!([1, 2])).expect("longer");
        assert_eq!(longer.pointer, "/1");
        let whole = first_difference(&json!([1]), &json!("x")).expect("another kind");
        assert_eq!(whole.describe("result"), r#"result: expected [1], got "x""#);
    }

    #[test]
    fn a_pointer_check_says_what_is_there() {
        let result = json!({"status": "delayed", "total": 149.0});
        assert_eq!(check_pointer("/status", &json!("delayed"), &result), None);
        assert_eq!(check_pointer("/total", &json!(149), &result), None);
        assert_eq!(
            check_pointer("/status", &json!("shipped"), &result).as_deref(),
            Some(r#"pointer /status: expected "shipped", got "delayed""#)
        );
        assert_eq!(
            check_pointer("/eta", &json!("Friday"), &result).as_deref(),
            Some(r#"pointer /eta: expected "Friday", got nothing there"#)
        );
        assert_eq!(check_pointer("", &result.clone(), &result), None);
    }

    #[test]
    fn a_pattern_is_searched_not_anchored() {
        let re = Regex::new("del[a-z]+").expect("a regex");
        assert_eq!(
            check_matches("matches", &re, r#"{"status":"delayed"}"#),
            None
        );
        assert_eq!(
            check_matches("matches", &re, "shipped").as_deref(),
            Some(r#"matches: /del[a-z]+/ not found in "shipped""#)
        );
    }

    #[test]
    fn a_result_is_matched_as_compact_json_and_shown_so() {
        let pattern = Regex::new("^delayed$").expect("a pattern");
        assert_eq!(
            check_matches_result(&pattern, &json!("shipped")),
            Some(
                r#"matches: /^delayed$/ not found in the result as compact JSON: "shipped""#.into()
            )
        );
        let spaced = Regex::new(r#""status": "ok""#).expect("a pattern");
        assert!(check_matches_result(&spaced, &json!({"status": "ok"})).is_some());
        let compact = Regex::new(r#""status":"ok""#).expect("a pattern");
        assert_eq!(
            check_matches_result(&compact, &json!({"status": "ok"})),
            None
        );
    }

    #[test]
    fn long_values_are_cut() {
        let long = "x".repeat(500);
        let shown = show_text(&long);
        assert!(shown.ends_with('…'), "{shown}");
        assert_eq!(shown.chars().count(), SHOWN_CHARS + 1);
        assert_eq!(show(&json!({"a": 1})), r#"{"a":1}"#);
    }
}
