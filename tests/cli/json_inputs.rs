//! JSON files are read as JSON: keys of any length, nesting up to the documented limit,
//! every number and escape, any JSON whitespace; past the limit, or on a repeated key,
//! a positioned error and exit 2. The packs are written by each test.

use crate::util::{Outcome, filtered, promptexec};

/// How deeply arrays and objects may nest in a JSON file (docs/src/reference/pack.md).
const LIMIT: usize = 256;

/// Runs `args` in a fresh directory holding `pack.json` with `text`.
fn with_pack(text: &str, args: &[&str]) -> Outcome {
    let dir = tempfile::tempdir().expect("temp dir");
    promptexec()
        .in_dir(dir.path())
        .file("pack.json", text)
        .args(args)
        .run()
}

fn validate(text: &str) -> Outcome {
    with_pack(text, &["validate", "--pack", "pack.json"])
}

/// A pack with one prompt that may call one tool, whose parameters are `schema`.
fn pack_with_schema(schema: &str) -> String {
    format!(
        r#"{{"id": "json", "name": "JSON", "version": "1",
"prompts": {{"p": {{"id": "p", "name": "P", "version": "1", "system_template": "Hi.", "tools": ["deep"]}}}},
"tools": {{"deep": {{"name": "deep", "description": "d", "parameters": {schema}}}}}}}"#
    )
}

/// `levels` object schemas, each the only property of the one around it.
fn nested_schema(levels: usize) -> String {
    let mut schema = r#"{"type": "string"}"#.to_string();
    for _ in 0..levels {
        schema = format!(r#"{{"type": "object", "properties": {{"a": {schema}}}}}"#);
    }
    schema
}

/// Every opening bracket of `text` outside strings: how deeply it nests, its line
/// and its column.
fn brackets(text: &str) -> Vec<(usize, usize, usize)> {
    let mut found = Vec::new();
    let (mut depth, mut line, mut col) = (0, 1, 0);
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        col += 1;
        if in_string {
            (in_string, escaped) = (escaped || c != '"', !escaped && c == '\\');
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => {
                depth += 1;
                found.push((depth, line, col));
            }
            '}' | ']' => depth -= 1,
            '\n' => (line, col) = (line + 1, 0),
            _ => {}
        }
    }
    found
}

fn deepest(text: &str) -> usize {
    brackets(text).iter().map(|b| b.0).max().unwrap_or(0)
}

#[test]
fn a_pack_with_a_2000_character_key_loads() {
    let key = "k".repeat(2000);
    let schema =
        format!(r#"{{"type": "object", "properties": {{"{key}": {{"type": "string"}}}}}}"#);
    validate(&pack_with_schema(&schema)).expect_code(0);
}

#[test]
fn a_pack_nested_100_deep_loads() {
    let pack = pack_with_schema(&nested_schema(48));
    assert_eq!(deepest(&pack), 100);
    validate(&pack).expect_code(0);
}

#[test]
fn a_pack_nested_to_the_limit_loads() {
    let pack = pack_with_schema(&nested_schema((LIMIT - 4) / 2));
    assert_eq!(deepest(&pack), LIMIT);
    validate(&pack).expect_code(0);
}

#[test]
fn a_pack_nested_past_the_limit_is_refused_where_it_goes_too_deep() {
    let pack = pack_with_schema(&nested_schema((LIMIT - 4) / 2 + 1));
    let (_, line, col) = brackets(&pack)
        .into_iter()
        .find(|b| b.0 == LIMIT + 1)
        .expect("a bracket past the limit");
    let out = validate(&pack);
    out.expect_code(2);
    let first = out.stderr.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        format!(
            "pack.json:{line}:{col}: arrays and objects nested deeper than {LIMIT} levels \
             (the limit for a JSON file)"
        )
    );
    out.stdout_empty();
}

/// A pack written with CRLF line ends and tabs between tokens, with a surrogate pair in
/// its template and floats, exponents and a large integer in its tool's schema.
const EVERY_KIND: &str = "{\r\n\t\"id\":\t\"json\", \"name\": \"JSON\", \"version\": \"1\",\r\n\
\t\"prompts\": {\"p\": {\"id\": \"p\", \"name\": \"P\", \"version\": \"1\",\r\n\
\t\t\"system_template\": \"Smile \\ud83d\\ude00 at {{name}} \\u00e9\\t!\",\r\n\
\t\t\"variables\": [{\"name\": \"name\", \"type\": \"string\", \"required\": true}],\r\n\
\t\t\"tools\": [\"deep\"]}},\r\n\
\t\"tools\": {\"deep\": {\"name\": \"deep\", \"description\": \"d\", \"parameters\": {\r\n\
\t\t\"type\": \"object\", \"properties\": {\"n\": {\"type\": \"number\",\r\n\
\t\t\"minimum\": 1.5, \"maximum\": 1e3, \"multipleOf\": 2.5E-1,\r\n\
\t\t\"default\": 12345678901234567890, \"examples\": [-0, -2.5e-3, 0.1]}}}}}\r\n\
}\r\n";

#[test]
fn floats_exponents_a_surrogate_pair_tabs_and_crlf_load() {
    validate(EVERY_KIND).expect_code(0);
    let out = with_pack(
        EVERY_KIND,
        &[
            "prompt",
            "render",
            "--pack",
            "pack.json",
            "--prompt",
            "p",
            "--var",
            "name=Ada",
        ],
    );
    out.expect_code(0);
    out.stdout_is("Smile 😀 at Ada é\t!");
}

#[test]
fn a_duplicate_key_is_refused_at_the_second_one() {
    let pack = "{\"id\": \"json\", \"name\": \"JSON\", \"version\": \"1\",\n  \"prompts\": {},\n  \
                \"name\": \"again\"}\n";
    let out = validate(pack);
    out.expect_code(2);
    filtered(|| {
        insta::assert_snapshot!(out.stderr, @r#"
        pack.json:3:3: duplicate mapping key: name
          |
        3 |   "name": "again"}
          |   ^^^^^^
        validate: 1 error, 0 warnings
        "#);
    });
}

#[test]
fn a_lone_surrogate_is_refused_at_its_escape() {
    let pack = pack_with_schema(r#"{"description": "half \ud83d of a pair"}"#);
    let out = validate(&pack);
    out.expect_code(2);
    let line = pack.lines().nth(2).expect("three lines");
    let col = line.find("\\ud83d").expect("the escape") + 1;
    let first = out.stderr.lines().next().unwrap_or_default();
    assert!(
        first.starts_with(&format!(
            "pack.json:3:{col}: invalid JSON: lone surrogate `\\ud83d`"
        )),
        "{}",
        out.stderr
    );
}

#[test]
fn a_byte_order_mark_is_refused() {
    let out = validate(&format!("\u{feff}{}", pack_with_schema("{}")));
    out.expect_code(2);
    assert_eq!(
        out.stderr.lines().next(),
        Some(
            "pack.json:1:1: invalid JSON: a byte-order mark before the value \
             (save the file as UTF-8 without one)"
        )
    );
}

#[test]
fn a_json_runtime_config_with_a_long_key_and_deep_schema_loads() {
    // `input_schema` is a PromptKit key promptexec notes and leaves unused; it may
    // nest as a JSON file may.
    let key = "k".repeat(1100);
    let schema = nested_schema(60).replacen(r#""a""#, &format!(r#""{key}""#), 1);
    let config = format!(
        r#"{{"apiVersion": "promptkit.altairalabs.ai/v1alpha1", "kind": "RuntimeConfig",
"spec": {{"tools": {{"deep": {{"exec": {{"command": "true"}}, "input_schema": {schema}}}}}}}}}"#
    );
    assert!(deepest(&config) > 120, "{}", deepest(&config));
    let dir = tempfile::tempdir().expect("temp dir");
    let out = promptexec()
        .in_dir(dir.path())
        .file("config.json", &config)
        .args(["-c", "config.json", "validate"])
        .run();
    out.expect_code(0);
    out.stderr_lacks("budget");
}
