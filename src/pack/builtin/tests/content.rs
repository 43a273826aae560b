//! The checks on the assistant's text.

use serde_json::json;

use super::{case, fail, judge_all, pass, said};

#[test]
fn content_checks_pass_and_fail() {
    let patterns = json!({"patterns": ["hello", "WORLD"]});
    let refund = json!({"patterns": ["refund", "credit"]});
    let cat = json!({"patterns": ["cat"]});
    judge_all(vec![
        (
            "contains: every pattern, any case",
            case("contains", "Hello World", patterns.clone()),
            pass("every pattern appears"),
        ),
        (
            "contains: one of two patterns",
            case("contains", "Hello there", patterns.clone()),
            fail(0.5, "1 of 2 patterns appear; missing: WORLD"),
        ),
        (
            "contains: only the content counts, not earlier assistant messages",
            case("contains", "Hello", patterns).with(said(&[("assistant", "world")])),
            fail(0.5, "missing: WORLD"),
        ),
        (
            "contains_any: one pattern in the content",
            case("contains_any", "We issued a REFUND.", refund.clone()),
            pass("found: refund"),
        ),
        (
            "contains_any: one pattern in an earlier assistant message",
            case("contains_any", "Anything else?", refund.clone())
                .with(said(&[("assistant", "A credit note is on its way.")])),
            pass("found: credit"),
        ),
        (
            "contains_any: a user message does not count",
            case("contains_any", "Anything else?", refund.clone())
                .with(said(&[("user", "I want a refund")])),
            fail(0.0, "none of refund, credit appears"),
        ),
        (
            "contains_any: no pattern anywhere",
            case("contains_any", "Hello", refund),
            fail(0.0, "none of refund, credit appears"),
        ),
        (
            "content_excludes: no pattern",
            case("content_excludes", "A dog barked.", cat.clone()),
            pass("no excluded word appears"),
        ),
        (
            "content_excludes: a pattern in the content, any case",
            case("content_excludes", "The Cat sat.", cat.clone()),
            fail(0.0, "excluded: cat"),
        ),
        (
            "content_excludes: a pattern in an earlier assistant message",
            case("content_excludes", "A dog barked.", cat.clone())
                .with(said(&[("assistant", "a cat, maybe")])),
            fail(0.0, "excluded: cat"),
        ),
        (
            "content_excludes: a user message does not count",
            case("content_excludes", "A dog barked.", cat).with(said(&[("user", "my cat")])),
            pass("no excluded word appears"),
        ),
        (
            "regex: matches",
            case("regex", "order A-1002", json!({"pattern": r"A-\d{4}"})),
            pass(r"the content matches /A-\d{4}/ as expected"),
        ),
        (
            "regex: no match",
            case("regex", "order 1002", json!({"pattern": r"A-\d{4}"})),
            fail(0.0, r"the content does not match /A-\d{4}/"),
        ),
        (
            "regex: case-sensitive",
            case("regex", "Hello", json!({"pattern": "hello"})),
            fail(0.0, "does not match /hello/"),
        ),
        (
            "regex: expect_match false, no match",
            case(
                "regex",
                "all good",
                json!({"pattern": "error", "expect_match": false}),
            ),
            pass("does not match /error/ as expected"),
        ),
        (
            "regex: expect_match false, a match",
            case(
                "regex",
                "an error",
                json!({"pattern": "error", "expect_match": false}),
            ),
            fail(0.0, "the content matches /error/"),
        ),
        (
            "min_length: enough characters",
            case("min_length", "abcd", json!({"min": 4})),
            pass("4 characters (at least 4)"),
        ),
        (
            "min_length: counts characters, not bytes",
            case("min_length", "ééé", json!({"min": 3})),
            pass("3 characters (at least 3)"),
        ),
        (
            "min_length: the share reached",
            case("min_length", "abc", json!({"min": 4})),
            fail(0.75, "3 characters (at least 4)"),
        ),
        (
            "max_length: within",
            case("max_length", "abc", json!({"max": 3})),
            pass("3 characters, about 1 tokens (at most 3)"),
        ),
        (
            "max_length: counts characters, not bytes",
            case("max_length", "éééé", json!({"max": 4})),
            pass("4 characters"),
        ),
        (
            "max_length: twice too long",
            case("max_length", "abcdef", json!({"max": 3})),
            fail(0.5, "6 characters, about 2 tokens (at most 3)"),
        ),
        (
            "max_length: max_tokens within",
            case("max_length", "abcd", json!({"max_tokens": 1})),
            pass("4 characters, about 1 tokens (at most any, 1 tokens)"),
        ),
        (
            "max_length: max_tokens rounds up (5 characters are 2 tokens)",
            case("max_length", "abcde", json!({"max_tokens": 1})),
            fail(0.5, "about 2 tokens"),
        ),
        (
            "max_length: the tighter of max and max_tokens",
            case("max_length", "abcdefgh", json!({"max": 6, "max_tokens": 1})),
            fail(0.5, "8 characters, about 2 tokens (at most 6, 1 tokens)"),
        ),
    ]);
}

#[test]
fn banned_words_match_whole_words_unless_substring() {
    let words = json!({"words": ["cat"]});
    let substring = json!({"words": ["cat"], "match_mode": "substring"});
    let explicit = json!({"words": ["cat"], "match_mode": "word_boundary"});
    judge_all(vec![
        (
            "word_boundary: inside a longer word",
            case("banned_words", "Please concatenate them.", words.clone()),
            pass("no excluded word appears"),
        ),
        (
            "word_boundary: the word itself",
            case("banned_words", "the cat sat", words.clone()),
            fail(0.0, "excluded: cat"),
        ),
        (
            "word_boundary: next to punctuation",
            case("banned_words", "A CAT!", words),
            fail(0.0, "excluded: cat"),
        ),
        (
            "explicit word_boundary: inside a longer word",
            case("banned_words", "Please concatenate them.", explicit),
            pass("no excluded word appears"),
        ),
        (
            "substring: inside a longer word",
            case(
                "banned_words",
                "Please concatenate them.",
                substring.clone(),
            ),
            fail(0.0, "excluded: cat"),
        ),
        (
            "substring: absent",
            case("banned_words", "A dog.", substring),
            pass("no excluded word appears"),
        ),
    ]);
}

/// A banned word that starts or ends with a symbol is still a word: `\b` next to
/// `+` or `$` needs a word character on the other side, so it must not be what
/// decides whether the word stands alone.
#[test]
fn banned_words_ending_in_symbols_are_found_as_whole_words() {
    judge_all(vec![
        (
            "c++ standing alone",
            case(
                "banned_words",
                "I love C++ a lot",
                json!({"words": ["c++"]}),
            ),
            fail(0.0, "excluded: c++"),
        ),
        (
            "$free standing alone",
            case(
                "banned_words",
                "Get it for $free today",
                json!({"words": ["$free"]}),
            ),
            fail(0.0, "excluded: $free"),
        ),
        (
            "c++ inside a longer word",
            case("banned_words", "abc++ is not it", json!({"words": ["c++"]})),
            pass("no excluded word appears"),
        ),
    ]);
}
