use super::*;

fn inline(page: &str, open: &str, close: &str) -> String {
    let start = page.find(open).expect("element") + open.len();
    let end = start + page[start..].find(close).expect("end");
    page[start..end].to_owned()
}

#[test]
fn the_data_is_embedded_once_and_cannot_close_its_element() {
    let json = r#"{"name":"</script><script>alert(1)</script><!--"}"#;
    let page = html_page(HtmlKind::Suite, json);
    assert_eq!(page.matches("id=\"report-data\"").count(), 1);
    assert_eq!(page.matches("</script>").count(), 2);
    assert!(!page.contains("alert(1)</script>"));
    let data = inline(
        &page,
        "<script type=\"application/json\" id=\"report-data\">",
        "</script>",
    );
    let parsed: serde_json::Value = serde_json::from_str(&data).expect("json");
    assert_eq!(parsed["name"], "</script><script>alert(1)</script><!--");
}

#[test]
fn the_policy_forbids_the_network_and_names_the_inline_code_by_hash() {
    let page = html_page(HtmlKind::Test, "{}");
    let policy = inline(
        &page,
        "http-equiv=\"Content-Security-Policy\" content=\"",
        "\"",
    );
    assert!(policy.starts_with("default-src 'none';"), "{policy}");
    assert!(!policy.contains("unsafe"), "{policy}");
    let script = inline(&page, "</script>\n<script>", "</script>");
    let style = inline(&page, "<style>", "</style>");
    assert!(policy.contains(&format!("script-src '{}'", hash_source(&script))));
    assert!(policy.contains(&format!("style-src '{}'", hash_source(&style))));
    assert_eq!(page.matches("<script").count(), 2);
    assert_eq!(page.matches("<style").count(), 1);
}

#[test]
fn the_page_names_its_kind() {
    assert!(html_page(HtmlKind::Diff, "{}").contains("<body data-kind=\"diff\">"));
}

#[test]
fn the_inline_code_cannot_end_its_own_element() {
    let script = SCRIPT_PARTS.concat().to_ascii_lowercase();
    assert!(!script.contains("</script") && !script.contains("<!--"));
    assert!(!CSS.to_ascii_lowercase().contains("</style"));
}

#[test]
fn the_data_keeps_its_value_without_the_whitespace_between_tokens() {
    let json = "{\n  \"a b\": [1, 2],\n  \"s\": \"x \\\" <y>\\\\\",\n  \"t\": \"\\u003c\"\n}\n";
    let embedded = embed_json(json);
    assert_eq!(
        embedded,
        r#"{"a b":[1,2],"s":"x \" \u003cy>\\","t":"\u003c"}"#
    );
    let back: serde_json::Value = serde_json::from_str(&embedded).expect("json");
    assert_eq!(
        back,
        serde_json::from_str::<serde_json::Value>(json).expect("json")
    );
}
