//! The JSON reader: what it reads, where it says a problem is, and what it costs the
//! stack at the depth limit.

use std::path::Path;

use super::json_nodes::MAX_JSON_DEPTH;
use super::{Diagnostic, Node, Pos, Value, parse_json, parse_yaml};

fn read(text: &str) -> Node {
    parse_json(Path::new("t.json"), text).unwrap_or_else(|d| panic!("{d}: {text:?}"))
}

#[track_caller]
fn refused(text: &str) -> Diagnostic {
    match parse_json(Path::new("t.json"), text) {
        Ok(node) => panic!("read {node:?} from {text:?}"),
        Err(d) => d,
    }
}

/// The diagnostic as printed, `FILE:LINE:COL: message`.
#[track_caller]
fn says(text: &str) -> String {
    refused(text).to_string()
}

fn entries(node: &Node) -> &[(super::Key, Node)] {
    match &node.value {
        Value::Map(entries) => entries,
        other => panic!("not a map: {other:?}"),
    }
}

fn pos(line: u32, col: u32) -> Pos {
    Pos { line, col }
}

#[test]
fn a_key_of_any_length_is_read() {
    let key = "k".repeat(2000);
    let root = read(&format!("{{\"{key}\": 1, \"b\": \"x\"}}"));
    let entries = entries(&root);
    assert_eq!(entries[0].0.name, key);
    assert_eq!(entries[1].0.pos, pos(1, 2000 + 9));
    assert_eq!(entries[1].1.pos, pos(1, 2000 + 14));
}

#[test]
fn numbers_map_into_values_as_yaml_maps_them() {
    let cases = [
        ("0", Value::Int(0)),
        ("-0", Value::Int(0)),
        ("-7", Value::Int(-7)),
        ("9223372036854775807", Value::Int(i64::MAX)),
        ("-9223372036854775808", Value::Int(i64::MIN)),
        (
            "9223372036854775808",
            Value::Float(9_223_372_036_854_775_808.0),
        ),
        (
            "18446744073709551616",
            Value::Float(18_446_744_073_709_551_616.0),
        ),
        (
            "123456789012345678901234567890",
            Value::Float(1.234_567_890_123_456_8e29),
        ),
        ("-0.0", Value::Float(-0.0)),
        ("1.5", Value::Float(1.5)),
        ("0.1", Value::Float(0.1)),
        ("1e3", Value::Float(1000.0)),
        ("1E+2", Value::Float(100.0)),
        ("-2.5e-3", Value::Float(-0.0025)),
        ("1e-400", Value::Float(0.0)),
    ];
    for (text, value) in cases {
        assert_eq!(read(text).value, value, "{text}");
        let yaml = parse_yaml(Path::new("t.yaml"), text).expect("yaml reads it");
        assert_eq!(read(text).value, yaml.value, "{text}: as YAML reads it");
    }
}

#[test]
fn a_number_no_float_holds_is_refused_where_it_starts() {
    assert_eq!(
        says("[1,\n  -1e400]"),
        "t.json:2:3: invalid JSON: number out of range"
    );
}

#[test]
fn every_escape_is_read_and_a_surrogate_pair_is_one_character() {
    let root = read(r#"["\"\\\/\b\f\n\r\t", "\u00e9\u65e5", "\ud83d\ude00!", "\uD83D\uDE00"]"#);
    let Value::Seq(items) = &root.value else {
        panic!("not a list")
    };
    let strings: Vec<_> = items.iter().filter_map(Node::as_str).collect();
    assert_eq!(
        strings,
        ["\"\\/\u{8}\u{c}\n\r\t", "é日", "😀!", "😀"],
        "all four read"
    );
}

#[test]
fn a_lone_surrogate_is_refused_at_its_escape() {
    assert_eq!(
        says(r#"{"a": "x\ud83d"}"#),
        "t.json:1:9: invalid JSON: lone surrogate `\\ud83d` (a high surrogate must be \
         followed by a low one, `\\udc00` to `\\udfff`)"
    );
    assert_eq!(
        says(r#"{"a": "x\ud83d\u0041"}"#),
        says(r#"{"a": "x\ud83d"}"#),
        "followed by something other than a low surrogate"
    );
    assert_eq!(
        says(r#"["\ude00"]"#),
        "t.json:1:3: invalid JSON: lone surrogate `\\ude00` (a low surrogate must follow a high one)"
    );
}

#[test]
fn tabs_and_crlf_between_tokens_are_space() {
    let root = read("{\r\n\t\"a\":\t1,\r\n\t\"b\": [\t2.5 ]\r\n}\r\n");
    let entries = entries(&root);
    assert_eq!(entries[0].0.pos, pos(2, 2));
    assert_eq!(entries[0].1.pos, pos(2, 7));
    assert_eq!(entries[1].1.pos, pos(3, 7));
    assert_eq!(
        root.to_json(),
        serde_json::json!({"a": 1, "b": [2.5]}),
        "values read"
    );
}

#[test]
fn positions_count_characters_and_offsets_count_bytes() {
    let text = "{\"é日\": \"😀\", \"b\": null}";
    let root = read(text);
    let (key, value) = &entries(&root)[1];
    assert_eq!(key.pos, pos(1, 13));
    assert_eq!(key.offset, text.find("\"b\"").expect("there"));
    assert_eq!(value.pos, pos(1, 18));
    assert_eq!(value.offset, text.find("null").expect("there"));
}

#[test]
fn a_byte_order_mark_is_refused() {
    assert_eq!(
        says("\u{feff}{}"),
        "t.json:1:1: invalid JSON: a byte-order mark before the value \
         (save the file as UTF-8 without one)"
    );
}

#[test]
fn a_duplicate_key_is_reported_at_the_second_one_as_yaml_reported_it() {
    let text = "{\"a\": 1,\n \"b\": 2,\n \"a\": 3}";
    assert_eq!(says(text), "t.json:3:2: duplicate mapping key: a");
    let yaml = parse_yaml(Path::new("t.json"), text).expect_err("refused as YAML");
    assert_eq!(says(text), yaml.to_string());
    assert_eq!(
        says(r#"{"\u001b[2J": 1, "\u001b[2J": 2}"#),
        "t.json:1:18: duplicate mapping key: \\u{1b}[2J",
        "control characters are escaped"
    );
}

#[test]
fn a_duplicate_key_in_a_large_map_is_found() {
    let keys: Vec<String> = (0..40).map(|i| format!("\"k{i}\": {i}")).collect();
    let mut text = format!("{{{}", keys.join(", "));
    let at = text.chars().count() + 3;
    text.push_str(", \"k17\": 0}");
    assert_eq!(
        says(&text),
        format!("t.json:1:{at}: duplicate mapping key: k17")
    );
    text.replace_range(text.len() - 7..text.len() - 5, "40");
    assert_eq!(entries(&read(&text)).len(), 41, "k40 is new: {text}");
}

/// `depth` arrays and objects, alternating, each holding the next.
fn nested(depth: usize) -> String {
    let mut text = String::new();
    for level in 0..depth {
        text.push_str(if level % 2 == 0 { "{\"k\": " } else { "[" });
    }
    text.push_str("true");
    for level in (0..depth).rev() {
        text.push(if level % 2 == 0 { '}' } else { ']' });
    }
    text
}

#[test]
fn nesting_is_read_up_to_the_limit_and_refused_past_it() {
    let root = read(&nested(MAX_JSON_DEPTH));
    assert_eq!(
        root.to_json().to_string(),
        nested(MAX_JSON_DEPTH).replace(' ', "")
    );
    let past = nested(MAX_JSON_DEPTH + 1);
    // The last bracket opened is the one too many.
    let col = past.rfind(['{', '[']).expect("brackets") + 1;
    assert_eq!(
        says(&past),
        format!(
            "t.json:1:{col}: arrays and objects nested deeper than 256 levels \
             (the limit for a JSON file)"
        )
    );
    let far = "[".repeat(100_000);
    assert_eq!(refused(&far).pos, Some(pos(1, 257)), "stops at the limit");
}

#[test]
fn syntax_errors_say_what_was_expected_where() {
    let cases = [
        (
            "{\n  \"a\": 1\n  \"b\": 2\n}",
            "3:3: invalid JSON: expected `,` or `}`",
        ),
        ("{\n  \"a\": 1,\n}\n", "3:1: invalid JSON: trailing comma"),
        ("[1, 2,]", "1:7: invalid JSON: trailing comma"),
        ("[1 2]", "1:4: invalid JSON: expected `,` or `]`"),
        ("{\"a\" 1}", "1:6: invalid JSON: expected `:`"),
        (
            "{a: 1}",
            "1:2: invalid JSON: expected a key in double quotes",
        ),
        ("[1, :]", "1:5: invalid JSON: expected a value"),
        ("[tru]", "1:2: invalid JSON: expected `true`"),
        (
            "[01]",
            "1:2: invalid JSON: invalid number, a leading zero is followed by a digit",
        ),
        ("[1.]", "1:4: invalid JSON: expected a digit"),
        ("[-]", "1:3: invalid JSON: expected a digit"),
        ("[1e]", "1:4: invalid JSON: expected a digit"),
        (
            "[\"a\\x\"]",
            "1:4: invalid JSON: invalid escape `\\x` in a string",
        ),
        (
            "[\"\\u12G4\"]",
            "1:7: invalid JSON: expected four hexadecimal digits after `\\u`",
        ),
        (
            "[\"a\tb\"]",
            "1:4: invalid JSON: control character U+0009 in a string (write it as an escape)",
        ),
        (
            "{}\n{}",
            "2:1: invalid JSON: unexpected text after the value, expected the end of the file",
        ),
        ("", "1:1: invalid JSON: the file is empty, expected a value"),
        (
            " \n ",
            "2:2: invalid JSON: the file is empty, expected a value",
        ),
        (
            "{\"a\": [1, 2\n\n",
            "1:12: invalid JSON: unexpected end of the file, expected `,` or `]`",
        ),
        (
            "[\"abc",
            "1:6: invalid JSON: unexpected end of the file, expected `\"` to end the string",
        ),
        (
            "{\"a\":",
            "1:6: invalid JSON: unexpected end of the file, expected a value",
        ),
        ("'a'", "1:1: invalid JSON: expected a value"),
        ("NaN", "1:1: invalid JSON: expected a value"),
    ];
    for (text, expected) in cases {
        assert_eq!(says(text), format!("t.json:{expected}"), "{text:?}");
    }
}

/// What a thread of the async runtime or a parallel map gets.
const SMALL_STACK: usize = 2 * 1024 * 1024;

/// A pack whose one tool's parameters nest `levels` schemas, `{"type": "object",
/// "properties": {"a": …}}` each, around `innermost`.
fn deep_pack(levels: usize, innermost: &str) -> String {
    let mut schema = innermost.to_string();
    for _ in 0..levels {
        schema = format!(r#"{{"type": "object", "properties": {{"a": {schema}}}}}"#);
    }
    format!(
        r#"{{"id": "deep", "name": "Deep", "version": "1", "prompts": {{"p": {{"id": "p",
"name": "P", "version": "1", "system_template": "Hi.", "tools": ["deep"]}}}},
"tools": {{"deep": {{"name": "deep", "description": "d", "parameters": {schema}}}}}}}"#
    )
}

#[test]
fn a_document_at_the_limit_costs_a_small_stack_to_read_walk_and_drop() {
    let dir = tempfile::tempdir().expect("temp dir");
    // The root, `tools` and `deep` are three levels, each schema around another two,
    // the innermost one: 3 + 2 × 126 + 1 = 256.
    let pack = deep_pack((MAX_JSON_DEPTH - 4) / 2, r#"{"type": "string"}"#);
    let path = dir.path().join("deep.json");
    std::fs::write(&path, &pack).expect("write the pack");
    let worker = std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(move || {
            for text in [nested(MAX_JSON_DEPTH), pack] {
                let root = read(&text);
                let json = root.to_json();
                let copy = root.clone();
                assert_eq!(copy, root);
                drop((json, copy, root));
            }
            let loaded = crate::pack::load(&path).map_err(|e| format!("{:?}", e.0));
            let tool = &loaded.expect("the pack loads").value.tools["deep"];
            assert!(
                tool.parameters
                    .pointer("/properties/a/properties/a")
                    .is_some()
            );
        })
        .expect("a thread");
    worker.join().expect("no overflow");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]
    /// Whatever serde_json refuses is refused; whatever it reads is read (unless a key
    /// repeats) to the same value; and where YAML reads the text too, the nodes are
    /// exactly the ones YAML gave, positions and all.
    #[test]
    fn json_is_read_as_serde_json_and_yaml_read_it(text in json_text()) {
        let path = Path::new("t.json");
        let ours = parse_json(path, &text);
        match (serde_json::from_str::<serde_json::Value>(&text), &ours) {
            (Err(_), Ok(node)) => proptest::prop_assert!(false, "{text:?} read as {node:?}"),
            (Ok(_), Err(d)) => proptest::prop_assert!(
                d.message.starts_with("duplicate mapping key"), "{text:?}: {d}"
            ),
            (Ok(value), Ok(node)) => proptest::prop_assert_eq!(
                as_floats(node.to_json()), as_floats(value), "{:?}", text
            ),
            (Err(_), Err(_)) => {}
        }
        if let (Ok(yaml), Ok(ours)) = (parse_yaml(path, &text), &ours)
            && !yaml_folds_it(&text)
        {
            proptest::prop_assert_eq!(ours, &yaml, "{:?}", text);
        }
    }
}

/// Characters YAML reads otherwise than JSON does.
fn yaml_folds_it(text: &str) -> bool {
    text.contains(['\u{85}', '\u{2028}', '\u{2029}', '\u{feff}'])
}

/// Every number as an `f64`: serde_json keeps an integer beyond `i64` as an integer,
/// a [`Value`] as a float.
fn as_floats(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value as J;
    match value {
        J::Number(n) => n
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or(J::Null, J::Number),
        J::Array(items) => J::Array(items.into_iter().map(as_floats).collect()),
        J::Object(map) => J::Object(map.into_iter().map(|(k, v)| (k, as_floats(v))).collect()),
        other => other,
    }
}

/// JSON texts, valid and now and then not: odd characters and escapes, every kind
/// of number, repeated and long keys, all sorts of space, stray commas and brackets.
fn json_text() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let space = prop_oneof![
        30 => prop::sample::select(vec!["", " ", "\n", "\n  ", "  \n", "\n\n    "]),
        3 => prop::sample::select(vec!["\t", "\r\n", " \t\r\n"]),
        1 => prop::sample::select(vec![",", "]", "}", "\u{feff}", "\u{a0}", "x"]),
    ];
    let piece = prop_oneof![
        30 => prop::sample::select(vec![
            "a", "b c", "{{x}}", ":", "#", "- ", "é", "日本", "😀", "\u{a0}", "\\\"", "\\\\",
            "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0041", "\\u00e9", "\\u0000",
            "\\u0001", "\\u2028", "\\ud83d\\ude00", "\u{7f}", "\u{85}", "\u{2028}",
        ]),
        1 => prop::sample::select(vec![
            "\\ud83d", "\\ude00", "\\ud83d\\u0041", "\t", "\n", "\\x", "\\u12", "\u{1}",
        ]),
    ];
    let string = prop::collection::vec(piece, 0..4).prop_map(|p| format!("\"{}\"", p.concat()));
    let key = prop_oneof![
        30 => prop::sample::select(vec!["\"a\"", "\"b\"", "\"c\"", "\"id\"", "\"\"", "\"é\""])
            .prop_map(String::from),
        1 => prop::sample::select(vec![990, 1100, 2000])
            .prop_map(|n| format!("\"{}\"", "k".repeat(n))),
        2 => string.clone(),
    ];
    let scalar = prop_oneof![
        40 => string,
        40 => prop::sample::select(vec![
            "0", "-1", "42", "true", "false", "null", "9223372036854775807",
            "-9223372036854775808", "-0", "1.5", "1e3", "1E2", "0.0", "-2.5e-3",
            "9223372036854775808", "12345678901234567890", "1e-400", "0.30000000000000004",
        ])
        .prop_map(String::from),
        2 => prop::sample::select(vec!["01", "1.", "-", "+1", ".5", "1e400", "tru", "nul"])
            .prop_map(String::from),
    ];
    let value = scalar.prop_recursive(4, 48, 5, move |inner| {
        let s = space.clone();
        let entry = (key.clone(), s.clone(), s.clone(), inner.clone())
            .prop_map(|(k, a, b, v)| format!("{k}{a}:{b}{v}"));
        prop_oneof![
            (prop::collection::vec((inner, s.clone()), 0..4), s.clone()).prop_map(
                |(items, lead)| {
                    let items: Vec<String> =
                        items.into_iter().map(|(v, w)| format!("{v}{w}")).collect();
                    format!("[{lead}{}]", items.join(","))
                }
            ),
            (prop::collection::vec((entry, s.clone()), 0..4), s).prop_map(|(entries, lead)| {
                let entries: Vec<String> = entries
                    .into_iter()
                    .map(|(e, w)| format!("{e}{w}"))
                    .collect();
                format!("{{{lead}{}}}", entries.join(","))
            }),
        ]
    });
    (space_around(), value, space_around()).prop_map(|(a, v, b)| format!("{a}{v}{b}"))
}

fn space_around() -> impl proptest::strategy::Strategy<Value = &'static str> {
    proptest::sample::select(vec!["", "\n", "  ", "\n\n", "\t", "\r\n"])
}
