//! The checks on the assistant's text.

use serde_json::json;

use super::{case, fail, pass, said};

mod content_checks_pass_and_fail {
    use super::*;

    table! {
        super::super::judge_row, {
            let patterns = json!({"patterns": ["hello", "WORLD"]});
            let refund = json!({"patterns": ["refund", "credit"]});
            let cat = json!({"patterns": ["cat"]});
        }
        contains_every_pattern_any_case: (
            "contains: every pattern, any case",
            case("contains", "Hello World", patterns.clone()),
            pass("every pattern appears"),
        );
        contains_one_of_two_patterns: (
            "contains: one of two patterns",
            case("contains", "Hello there", patterns.clone()),
            fail(0.5, "1 of 2 patterns appear; missing: WORLD"),
        );
        contains_only_the_content_counts_not_earlier_assistant_messages: (
            "contains: only the content counts, not earlier assistant messages",
            case("contains", "Hello", patterns).with(said(&[("assistant", "world")])),
            fail(0.5, "missing: WORLD"),
        );
        contains_any_one_pattern_in_the_content: (
            "contains_any: one pattern in the content",
            case("contains_any", "We issued a REFUND.", refund.clone()),
            pass("found: refund"),
        );
        contains_any_one_pattern_in_an_earlier_assistant_message: (
            "contains_any: one pattern in an earlier assistant message",
            case("contains_any", "Anything else?", refund.clone())
                .with(said(&[("assistant", "A credit note is on its way.")])),
            pass("found: credit"),
        );
        contains_any_a_user_message_does_not_count: (
            "contains_any: a user message does not count",
            case("contains_any", "Anything else?", refund.clone())
                .with(said(&[("user", "I want a refund")])),
            fail(0.0, "none of refund, credit appears"),
        );
        contains_any_no_pattern_anywhere: (
            "contains_any: no pattern anywhere",
            case("contains_any", "Hello", refund),
            fail(0.0, "none of refund, credit appears"),
        );
        content_excludes_no_pattern: (
            "content_excludes: no pattern",
            case("content_excludes", "A dog barked.", cat.clone()),
            pass("no excluded word appears"),
        );
        content_excludes_a_pattern_in_the_content_any_case: (
            "content_excludes: a pattern in the content, any case",
            case("content_excludes", "The Cat sat.", cat.clone()),
            fail(0.0, "excluded: cat"),
        );
        content_excludes_a_pattern_in_an_earlier_assistant_message: (
            "content_excludes: a pattern in an earlier assistant message",
            case("content_excludes", "A dog barked.", cat.clone())
                .with(said(&[("assistant", "a cat, maybe")])),
            fail(0.0, "excluded: cat"),
        );
        content_excludes_a_user_message_does_not_count: (
            "content_excludes: a user message does not count",
            case("content_excludes", "A dog barked.", cat).with(said(&[("user", "my cat")])),
            pass("no excluded word appears"),
        );
        regex_matches: (
            "regex: matches",
            case("regex", "order A-1002", json!({"pattern": r"A-\d{4}"})),
            pass(r"the content matches /A-\d{4}/ as expected"),
        );
        regex_no_match: (
            "regex: no match",
            case("regex", "order 1002", json!({"pattern": r"A-\d{4}"})),
            fail(0.0, r"the content does not match /A-\d{4}/"),
        );
        regex_case_sensitive: (
            "regex: case-sensitive",
            case("regex", "Hello", json!({"pattern": "hello"})),
            fail(0.0, "does not match /hello/"),
        );
        regex_expect_match_false_no_match: (
            "regex: expect_match false, no match",
            case(
                "regex",
                "all good",
                json!({"pattern": "error", "expect_match": false}),
            ),
            pass("does not match /error/ as expected"),
        );
        regex_expect_match_false_a_match: (
            "regex: expect_match false, a match",
            case(
                "regex",
                "an error",
                json!({"pattern": "error", "expect_match": false}),
            ),
            fail(0.0, "the content matches /error/"),
        );
        min_length_enough_characters: (
            "min_length: enough characters",
            case("min_length", "abcd", json!({"min": 4})),
            pass("4 characters (at least 4)"),
        );
        min_length_counts_characters_not_bytes: (
            "min_length: counts characters, not bytes",
            case("min_length", "ééé", json!({"min": 3})),
            pass("3 characters (at least 3)"),
        );
        min_length_the_share_reached: (
            "min_length: the share reached",
            case("min_length", "abc", json!({"min": 4})),
            fail(0.75, "3 characters (at least 4)"),
        );
        max_length_within: (
            "max_length: within",
            case("max_length", "abc", json!({"max": 3})),
            pass("3 characters, about 1 tokens (at most 3)"),
        );
        max_length_counts_characters_not_bytes: (
            "max_length: counts characters, not bytes",
            case("max_length", "éééé", json!({"max": 4})),
            pass("4 characters"),
        );
        max_length_twice_too_long: (
            "max_length: twice too long",
            case("max_length", "abcdef", json!({"max": 3})),
            fail(0.5, "6 characters, about 2 tokens (at most 3)"),
        );
        max_length_max_tokens_within: (
            "max_length: max_tokens within",
            case("max_length", "abcd", json!({"max_tokens": 1})),
            pass("4 characters, about 1 tokens (at most any, 1 tokens)"),
        );
        max_length_max_tokens_rounds_up_5_characters_are_2_tokens: (
            "max_length: max_tokens rounds up (5 characters are 2 tokens)",
            case("max_length", "abcde", json!({"max_tokens": 1})),
            fail(0.5, "about 2 tokens"),
        );
        max_length_the_tighter_of_max_and_max_tokens: (
            "max_length: the tighter of max and max_tokens",
            case("max_length", "abcdefgh", json!({"max": 6, "max_tokens": 1})),
            fail(0.5, "8 characters, about 2 tokens (at most 6, 1 tokens)"),
        );
    }
}

mod banned_words_match_whole_words_unless_substring {
    use super::*;

    table! {
        super::super::judge_row, {
            let words = json!({"words": ["cat"]});
            let substring = json!({"words": ["cat"], "match_mode": "substring"});
            let explicit = json!({"words": ["cat"], "match_mode": "word_boundary"});
        }
        word_boundary_inside_a_longer_word: (
            "word_boundary: inside a longer word",
            case("banned_words", "Please concatenate them.", words.clone()),
            pass("no excluded word appears"),
        );
        word_boundary_the_word_itself: (
            "word_boundary: the word itself",
            case("banned_words", "the cat sat", words.clone()),
            fail(0.0, "excluded: cat"),
        );
        word_boundary_next_to_punctuation: (
            "word_boundary: next to punctuation",
            case("banned_words", "A CAT!", words),
            fail(0.0, "excluded: cat"),
        );
        explicit_word_boundary_inside_a_longer_word: (
            "explicit word_boundary: inside a longer word",
            case("banned_words", "Please concatenate them.", explicit),
            pass("no excluded word appears"),
        );
        substring_inside_a_longer_word: (
            "substring: inside a longer word",
            case(
                "banned_words",
                "Please concatenate them.",
                substring.clone(),
            ),
            fail(0.0, "excluded: cat"),
        );
        substring_absent: (
            "substring: absent",
            case("banned_words", "A dog.", substring),
            pass("no excluded word appears"),
        );
    }
}

/// A banned word that starts or ends with a symbol is still a word: `\b` next to
/// `+` or `$` needs a word character on the other side, so it must not be what
/// decides whether the word stands alone.
mod banned_words_ending_in_symbols_are_found_as_whole_words {
    use super::*;

    table! {
        super::super::judge_row, {
        }
        c_standing_alone: (
            "c++ standing alone",
            case(
                "banned_words",
                "I love C++ a lot",
                json!({"words": ["c++"]}),
            ),
            fail(0.0, "excluded: c++"),
        );
        free_standing_alone: (
            "$free standing alone",
            case(
                "banned_words",
                "Get it for $free today",
                json!({"words": ["$free"]}),
            ),
            fail(0.0, "excluded: $free"),
        );
        c_inside_a_longer_word: (
            "c++ inside a longer word",
            case("banned_words", "abc++ is not it", json!({"words": ["c++"]})),
            pass("no excluded word appears"),
        );
    }
}
