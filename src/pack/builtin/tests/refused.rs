//! Params a check cannot be prepared from, each refused with a message naming the
//! problem.

use serde_json::json;

mod bad_params_are_refused_naming_the_problem {
    use super::*;

    table! {
        super::super::refused_row, {
        }
        an_unknown_param_close_to_a_param: (
            "an unknown param close to a param",
            "regex",
            json!({"patern": "x"}),
            "`regex` takes no param `patern`; did you mean `pattern`? (it takes pattern, expect_match)",
        );
        an_unknown_param_close_to_a_param_alias: (
            "an unknown param close to a param alias",
            "content_excludes",
            json!({"word": ["x"]}),
            "`content_excludes` takes no param `word`; did you mean `words`?",
        );
        an_unknown_param_of_json_path: (
            "an unknown param of json_path",
            "json_path",
            json!({"expresion": "a"}),
            "did you mean `expression`?",
        );
        an_unknown_param_of_tools_called: (
            "an unknown param of tools_called",
            "tools_called",
            json!({"tool_names": ["a"], "min_call": 1}),
            "did you mean `min_calls`?",
        );
        patterns_a_number: (
            "patterns a number",
            "contains",
            json!({"patterns": 3}),
            "`contains`: `patterns` must be a list of strings, found 3",
        );
        patterns_holding_a_number: (
            "patterns holding a number",
            "contains_any",
            json!({"patterns": ["a", 1]}),
            "`patterns` must be a list of strings",
        );
        words_a_number_under_an_alias: (
            "words a number, under an alias",
            "banned_words",
            json!({"words": 3}),
            "`banned_words`: `words` must be a list of strings, found 3",
        );
        expect_match_not_a_boolean: (
            "expect_match not a boolean",
            "regex",
            json!({"pattern": "x", "expect_match": "yes"}),
            "`expect_match` must be true or false",
        );
        min_negative: (
            "min negative",
            "min_length",
            json!({"min": -1}),
            "`min` must be a whole number",
        );
        min_chars_a_string: (
            "min_chars a string",
            "min_length",
            json!({"min_chars": "10"}),
            "`min_chars` must be a whole number",
        );
        max_tokens_a_fraction: (
            "max_tokens a fraction",
            "max_length",
            json!({"max_tokens": 1.5}),
            "`max_tokens` must be a whole number",
        );
        allow_wrapped_not_a_boolean: (
            "allow_wrapped not a boolean",
            "json_valid",
            json!({"allow_wrapped": "yes"}),
            "`allow_wrapped` must be true or false",
        );
        schema_a_string: (
            "schema a string",
            "json_schema",
            json!({"schema": "object"}),
            "`schema` must be an object",
        );
        json_path_contains_not_a_list: (
            "json_path contains not a list",
            "json_path",
            json!({"expression": "a", "contains": "x"}),
            "`contains` must be a list",
        );
        tool_names_a_number: (
            "tool_names a number",
            "tools_called",
            json!({"tool_names": 3}),
            "`tool_names` must be a list of strings",
        );
        min_calls_a_string: (
            "min_calls a string",
            "tools_called",
            json!({"tool_names": ["a"], "min_calls": "2"}),
            "`min_calls` must be a whole number",
        );
        expected_args_a_list: (
            "expected_args a list",
            "tool_args",
            json!({"tool_name": "a", "expected_args": ["x"]}),
            "`expected_args` must be an object",
        );
        occurrence_negative: (
            "occurrence negative",
            "tool_result_includes",
            json!({"patterns": ["a"], "occurrence": -1}),
            "`occurrence` must be a whole number",
        );
        max_ms_a_string: (
            "max_ms a string",
            "latency_budget",
            json!({"max_ms": "100"}),
            "`max_ms` must be a number",
        );
        an_unknown_match_mode: (
            "an unknown match_mode",
            "content_excludes",
            json!({"patterns": ["a"], "match_mode": "fuzzy"}),
            "`match_mode` is `word_boundary` or `substring`, found `fuzzy`",
        );
        an_invalid_regex: (
            "an invalid regex",
            "regex",
            json!({"pattern": "(unclosed"}),
            "`regex`: invalid `pattern`",
        );
        an_invalid_regex_under_the_alias: (
            "an invalid regex, under the alias",
            "content_matches",
            json!({"pattern": "[a-"}),
            "`content_matches`: invalid `pattern`",
        );
        an_invalid_regex_of_tool_result_matches: (
            "an invalid regex of tool_result_matches",
            "tool_result_matches",
            json!({"pattern": "(?P<x"}),
            "`tool_result_matches`: invalid `pattern`",
        );
        an_invalid_jmespath_expression: (
            "an invalid JMESPath expression",
            "json_path",
            json!({"expression": "a[["}),
            "`json_path`: invalid JMESPath `expression`",
        );
        an_invalid_jmespath_expression_under_the_alias: (
            "an invalid JMESPath expression, under the alias",
            "json_path",
            json!({"jmespath_expression": "a.|"}),
            "invalid JMESPath `expression`",
        );
        an_invalid_json_schema: (
            "an invalid JSON Schema",
            "json_schema",
            json!({"schema": {"type": "nope"}}),
            "`json_schema`: `schema` is not a valid JSON Schema",
        );
        an_invalid_json_schema_deeper: (
            "an invalid JSON Schema, deeper",
            "json_schema",
            json!({"schema": {"properties": {"a": {"minLength": "three"}}}}),
            "`schema` is not a valid JSON Schema",
        );
        patterns_missing: (
            "patterns missing",
            "contains",
            json!({}),
            "`contains` needs `patterns`, a non-empty list of strings",
        );
        patterns_empty: (
            "patterns empty",
            "content_excludes",
            json!({"patterns": []}),
            "needs `patterns`",
        );
        pattern_missing: (
            "pattern missing",
            "regex",
            json!({}),
            "`regex` needs `pattern`",
        );
        min_zero: (
            "min zero",
            "min_length",
            json!({"min": 0}),
            "`min_length` needs `min`",
        );
        max_missing: (
            "max missing",
            "max_length",
            json!({}),
            "`max_length` needs `max` (characters) or `max_tokens`",
        );
        schema_missing: (
            "schema missing",
            "json_schema",
            json!({}),
            "`json_schema` needs `schema`",
        );
        expression_missing: (
            "expression missing",
            "json_path",
            json!({"expected": 1}),
            "`json_path` needs `expression`",
        );
        tool_names_missing: (
            "tool_names missing",
            "tools_not_called",
            json!({}),
            "`tools_not_called` needs `tool_names`",
        );
        expected_args_missing: (
            "expected_args missing",
            "tool_args",
            json!({"tool_name": "a"}),
            "`tool_args` needs `expected_args`",
        );
        neither_min_nor_max: (
            "neither min nor max",
            "tool_call_count",
            json!({"tool": "a"}),
            "`tool_call_count` needs `min`, `max` or both",
        );
        sequence_missing: (
            "sequence missing",
            "tool_call_sequence",
            json!({}),
            "`tool_call_sequence` needs `sequence`",
        );
        max_ms_zero: (
            "max_ms zero",
            "latency_budget",
            json!({"max_ms": 0}),
            "`latency_budget` needs `max_ms`",
        );
        a_param_under_its_name_and_its_alias: (
            "a param under its name and its alias",
            "banned_words",
            json!({"patterns": ["a"], "words": ["b"]}),
            "`banned_words`: give one of patterns and words, not both",
        );
        min_chars_and_min_characters: (
            "min_chars and min_characters",
            "min_length",
            json!({"min_chars": 1, "min_characters": 2}),
            "give one of min_characters and min_chars, not both",
        );
    }
}
