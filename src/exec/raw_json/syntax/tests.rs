use super::*;
use crate::exec::raw_json::tests::json_text;

/// Whether serde_json reads `text` as one value (as it delimits raw text).
fn serde_reads(text: &str) -> bool {
    serde_json::from_str::<&serde_json::value::RawValue>(text).is_ok()
}

#[test]
fn reads_what_serde_json_reads_and_refuses_the_rest() {
    let valid = [
        "0",
        "-0",
        "-12.5e+3",
        "1E2",
        " \t\n\r{} ",
        r#"{"a":[1,{"b":null}],"c":"\u00e9\n\"x\"","d":true,"e":false}"#,
        "[[[]]]",
        r#""\ud800""#,
        "\"é\u{1F600}\"",
        "\"a string longer than sixteen bytes, \\\"escaped\\\" past them\"",
    ];
    for text in valid {
        assert!(check(text).is_some(), "{text}");
        assert!(serde_reads(text), "{text}");
    }
    let invalid = [
        "",
        " ",
        "01",
        "1.",
        ".5",
        "+1",
        "-",
        "1e",
        "1e+",
        "[1,]",
        "{\"a\":1,}",
        "{1:2}",
        "{\"a\" 1}",
        "[1 2]",
        "\"a",
        "\"\\x\"",
        "\"\\u12g4\"",
        "\"a\u{1}\"",
        "\"a string longer than sixteen bytes\u{1f}\"",
        "\"a string longer than sixteen bytes",
        "tru",
        "nul",
        "[1]]",
        "{}{}",
        "[",
        "{\"a\":}",
        "NaN",
        "[-]",
    ];
    for text in invalid {
        assert_eq!(check(text), None, "{text:?}");
        assert!(!serde_reads(text), "{text:?}");
    }
}

#[test]
fn says_what_may_not_fit_a_tree() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    for text in [
        "1e5".to_string(),
        format!("[{}]", "9".repeat(301)),
        format!("0.{}", "1".repeat(301)),
        r#"{"a": "x\uD800y"}"#.to_string(),
        deep(DEEP),
    ] {
        assert_eq!(check(&text), Some(Fit::Unsure), "{text}");
    }
    for text in [
        r#"{"a": [true, false, null, -12.5, "e\\u d800 \"1e999\""], "b": {}}"#.to_string(),
        deep(DEEP - 1),
        "\"\\u00e9\"".to_string(),
    ] {
        assert_eq!(check(&text), Some(Fit::Tree), "{text}");
    }
}

#[test]
fn nesting_of_any_depth_is_closed_in_order() {
    let pairs = 70; // 140 levels, past those kept as bits
    let nested = format!("{}1{}", r#"{"a":["#.repeat(pairs), "]}".repeat(pairs));
    assert_eq!(check(&nested), Some(Fit::Unsure));
    let closing = nested.find(']').expect("closers");
    for pair in 0..pairs {
        let mut swapped = nested.clone();
        let at = closing + 2 * pair;
        swapped.replace_range(at..at + 2, "}]");
        assert_eq!(check(&swapped), None, "pair {pair}");
    }
}

#[test]
fn notes_where_the_outer_containers_close() {
    let text = r#" {"a": [1, [2, {"b": []}]], "c": {}, "d": {"e": "}"}} "#;
    let Noted { fit, ends, .. } = check_noting(text, 2).expect("JSON");
    assert_eq!(fit, Fit::Tree);
    let container = |written: &str| {
        let start = text.find(written).expect("in the text");
        start..start + written.len()
    };
    let d = container(r#"{"e": "}"}"#);
    assert_eq!(
        ends,
        ContainerEnds(vec![
            container(text.trim()),
            container(r#"[1, [2, {"b": []}]]"#),
            d.clone(),
        ])
    );
    assert_eq!(ends.end_of(d.start), Some(d.end));
    assert_eq!(ends.end_of(d.start + 1), None);
    let d_alone = ContainerEnds(std::iter::once(0..d.len()).collect());
    assert_eq!(ends.within(&d), d_alone);
    assert_eq!(
        check_noting(text, 0).expect("JSON").ends,
        ContainerEnds::default()
    );

    let many = format!("[{}[1]]", "[1],".repeat(100));
    let ends = check_noting(&many, 2).expect("JSON").ends;
    assert_eq!(ends.0.len(), ContainerEnds::MOST);
    assert_eq!(ends.0[1], 1..4);
}

#[test]
fn notes_the_members_of_a_small_outer_object_only() {
    fn found(text: &str) -> Option<[Option<&str>; 2]> {
        let noted = check_noting(text, 0).expect("JSON");
        let spans = noted.members.find(text, ["id", "result"])?;
        Some(spans.map(|span| span.map(|span| &text[span])))
    }
    assert_eq!(
        found(r#" {"id": 7, "result": {"a": [1]}, "id" : "x"} "#),
        Some([Some(r#""x""#), Some(r#"{"a": [1]}"#)])
    );
    assert_eq!(found("{}"), Some([None, None]));
    let four = r#"{"a":1,"b":2,"c":3,"id":4}"#;
    assert_eq!(found(four), Some([Some("4"), None]));
    // One more, an escaped name, or no object: left to a scan.
    assert_eq!(found(&four.replace('}', r#","result":5}"#)), None);
    assert_eq!(found(r#"{"i\u0064":1}"#), None);
    assert_eq!(found(r#"[{"id":1}]"#), None);
    assert_eq!(found("1"), None);
}

proptest::proptest! {
    /// On text near JSON (valid text with one byte changed, dropped or added),
    /// the check accepts exactly what serde_json delimits as one value.
    #[test]
    fn agrees_with_serde_json_on_near_json(
        (text, at, edit, byte) in (json_text(), proptest::num::usize::ANY, 0..3u8, proptest::sample::select(b" \t\n\"\\{}[],:-+.0159eEtrufalsn/u\x01x".to_vec()))
    ) {
        let mut bytes = text.into_bytes();
        if !bytes.is_empty() {
            let at = at % bytes.len();
            match edit {
                0 => bytes[at] = byte,
                1 => { bytes.remove(at); }
                _ => bytes.insert(at, byte),
            }
        }
        let text = String::from_utf8(bytes).expect("ASCII edits keep UTF-8");
        proptest::prop_assert_eq!(check(&text).is_some(), serde_reads(&text), "{:?}", text);
    }
}
