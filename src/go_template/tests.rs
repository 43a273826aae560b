use serde_json::json;

use super::{Missing, Template};

fn render(src: &str, data: serde_json::Value) -> String {
    Template::parse(src)
        .unwrap_or_else(|e| panic!("{src}: {e}"))
        .render(&data, Missing::Zero)
        .unwrap_or_else(|e| panic!("{src}: {e}"))
}

fn exec_error(src: &str, data: serde_json::Value) -> String {
    let t = Template::parse(src).unwrap_or_else(|e| panic!("{src}: {e}"));
    match t.render(&data, Missing::Zero) {
        Ok(out) => panic!("{src} rendered {out:?}"),
        Err(e) => e.to_string(),
    }
}

fn parse_error(src: &str) -> String {
    match Template::parse(src) {
        Ok(_) => panic!("{src} parsed"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn fields_and_text() {
    assert_eq!(render("id={{ .id }}", json!({"id": "A-1"})), "id=A-1");
    assert_eq!(render("{{.a.b}}", json!({"a": {"b": true}})), "true");
    assert_eq!(render("{{.}}", json!("x")), "x");
    assert_eq!(render("no actions", json!({})), "no actions");
}

/// PromptArena's voice-refund-demo `lookup_order` template, as written there.
const LOOKUP_ORDER: &str = r#"{{- if eq .order_id "ORD-2023-7788" -}}
{"order_id":"ORD-2023-7788","status":"delivered"}
{{- else if eq .order_id "ORD-2024-9999" -}}
{"order_id":"ORD-2024-9999","status":"shipped"}
{{- else -}}
{"error":"not_found","message":"No order found for that ID"}
{{- end -}}
"#;

#[test]
fn promptarena_branching_on_an_argument() {
    assert_eq!(
        render(LOOKUP_ORDER, json!({"order_id": "ORD-2024-9999"})),
        r#"{"order_id":"ORD-2024-9999","status":"shipped"}"#
    );
    assert_eq!(
        render(LOOKUP_ORDER, json!({"order_id": "ORD-2023-7788"})),
        r#"{"order_id":"ORD-2023-7788","status":"delivered"}"#
    );
    assert_eq!(
        render(LOOKUP_ORDER, json!({})),
        r#"{"error":"not_found","message":"No order found for that ID"}"#,
        "a missing argument compares unequal, as a nil interface does in Go"
    );
}

#[test]
fn trimming_removes_spaces_and_newlines_on_its_side_only() {
    assert_eq!(render("a  {{- .x }}  b", json!({"x": 1})), "a1  b");
    assert_eq!(render("a  {{ .x -}}  \n b", json!({"x": "y"})), "a  yb");
    assert_eq!(render("{{-3}}", json!({})), "-3", "`{{-3` is a number");
    assert_eq!(render("a {{/* note */}} b", json!({})), "a  b");
    assert_eq!(render("a {{- /* note */ -}} b", json!({})), "ab");
}

#[test]
fn numbers_print_as_go_prints_float64() {
    let data = json!({"a": 42, "b": 1.5, "c": 1234567, "d": 0.00001, "e": 123456});
    assert_eq!(
        render("{{.a}} {{.b}} {{.c}} {{.d}} {{.e}}", data),
        "42 1.5 1.234567e+06 1e-05 123456"
    );
}

#[test]
fn missing_keys_print_no_value_and_their_fields_fail_under_zero() {
    assert_eq!(render("[{{.nope}}]", json!({})), "[<no value>]");
    assert_eq!(render("[{{.n}}]", json!({"n": null})), "[<no value>]");
    assert_eq!(
        exec_error("x {{.a.b}}", json!({})),
        "1:5: nil pointer evaluating interface {}.b"
    );
    let t = Template::parse("{{.a.b}}").expect("parses");
    assert_eq!(
        t.render(&json!({}), Missing::NoValue).expect("renders"),
        "<no value>"
    );
    assert_eq!(
        exec_error("{{.s.x}}", json!({"s": "text"})),
        "1:3: can't evaluate field x in type string"
    );
}

#[test]
fn comparisons_follow_go_kinds() {
    assert_eq!(
        render(r#"{{ if ne .a "x" }}y{{ end }}"#, json!({"a": "z"})),
        "y"
    );
    assert_eq!(
        render("{{ lt .a .b }} {{ ge .a 2.0 }}", json!({"a": 1, "b": 2})),
        "true false"
    );
    assert_eq!(render(r#"{{ eq .a "b" "c" }}"#, json!({"a": "c"})), "true");
    assert_eq!(
        render("{{ eq 1 1 }} {{ le 2 1 }} {{ gt 3 2 }}", json!({})),
        "true false true"
    );
    assert_eq!(
        exec_error("{{ if eq .n 3 }}{{ end }}", json!({"n": 3})),
        "1:7: error calling eq: incompatible types for comparison",
        "a JSON number is a float64, the literal an int"
    );
    assert_eq!(
        exec_error("{{ lt .b true }}", json!({"b": false})),
        "1:4: error calling lt: invalid type for comparison"
    );
}

#[test]
fn and_or_not_are_lazy_and_return_operands() {
    assert_eq!(
        render(
            r#"{{ and .a .b }}|{{ or .x "dflt" }}|{{ not .a }}"#,
            json!({"a": 1, "b": "B"})
        ),
        "B|dflt|false"
    );
    assert_eq!(
        render("{{ and .z (index .z 5) }}", json!({"z": []})),
        "[]",
        "index is never called"
    );
}

#[test]
fn with_else_with_and_else_if_chains() {
    let src = "{{ with .a }}A={{ . }}{{ else with .b }}B={{ . }}{{ else }}none{{ end }}";
    assert_eq!(render(src, json!({"a": "1"})), "A=1");
    assert_eq!(render(src, json!({"b": "2"})), "B=2");
    assert_eq!(render(src, json!({})), "none");
    let chain = "{{ if .x }}x{{ else if .y }}y{{ else }}z{{ end }}";
    assert_eq!(render(chain, json!({"y": true})), "y");
}

#[test]
fn range_over_lists_maps_and_integers() {
    let data = json!({"items": [{"n": "a"}, {"n": "b"}], "m": {"z": 1, "a": 2}});
    assert_eq!(
        render("{{ range .items }}{{ .n }},{{ end }}", data.clone()),
        "a,b,"
    );
    assert_eq!(
        render(
            "{{ range $i, $e := .items }}{{ $i }}={{ $e.n }} {{ end }}",
            data.clone()
        ),
        "0=a 1=b "
    );
    assert_eq!(
        render(
            "{{ range $k, $v := .m }}{{ $k }}{{ $v }}{{ end }}",
            data.clone()
        ),
        "a2z1",
        "keys in order"
    );
    assert_eq!(
        render("{{ range .none }}x{{ else }}empty{{ end }}", data.clone()),
        "empty"
    );
    assert_eq!(render("{{ range 3 }}{{ . }}{{ end }}", json!({})), "012");
    assert_eq!(
        render(
            "{{ range .items }}{{ if eq .n \"b\" }}{{ break }}{{ end }}{{ .n }}{{ end }}",
            data.clone()
        ),
        "a"
    );
    assert_eq!(
        render(
            "{{ range .items }}{{ if eq .n \"a\" }}{{ continue }}{{ end }}{{ .n }}{{ end }}",
            data.clone()
        ),
        "b"
    );
    assert_eq!(
        render("{{ range .items }}{{ $.m.z }}{{ end }}", data),
        "11",
        "$ is the root"
    );
}

#[test]
fn variables_len_index_and_pipelines() {
    let data = json!({"list": ["x", "y"], "m": {"k": "v"}, "s": "héllo"});
    assert_eq!(
        render(
            "{{ $n := len .list }}{{ $n }} {{ len .m }} {{ len .s }}",
            data.clone()
        ),
        "2 1 6"
    );
    assert_eq!(
        render(
            r#"{{ index .list 1 }} {{ index .m "k" }} {{ index .m "no" }}"#,
            data.clone()
        ),
        "y v <no value>"
    );
    assert_eq!(render("{{ .list | len }}", data.clone()), "2");
    assert_eq!(
        render(
            "{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ end }}{{ $x }}",
            data.clone()
        ),
        "2"
    );
    assert_eq!(
        render("{{ (index .list 0) }}{{ (.m).k }}", data.clone()),
        "xv"
    );
    assert_eq!(
        exec_error("{{ index .list 5 }}", data),
        "1:4: error calling index: index out of range: 5"
    );
}

#[test]
fn printf_verbs() {
    let data = json!({"s": "a\"b", "f": 2.5, "n": 3, "l": ["p", "q"]});
    assert_eq!(
        render(
            r#"{{ printf "%s|%q|%v|%.2f|%d" .s .s .f .f 7 }}"#,
            data.clone()
        ),
        r#"a"b|"a\"b"|2.5|2.50|7"#
    );
    assert_eq!(
        render(r#"{{ printf "%d" .n }}"#, data.clone()),
        "%!d(float64=3)"
    );
    assert_eq!(
        render(r#"{{ printf "%v %s" .l .l }}"#, data.clone()),
        "[p q] [p q]"
    );
    assert_eq!(
        render(
            r#"{{ printf "%s %s" "a" }}|{{ printf "%s" "a" "b" }}|100%%"#,
            data.clone()
        ),
        "a %!s(MISSING)|a%!(EXTRA string=b)|100%%"
    );
    assert_eq!(
        render(r#"{{ print "a" 1 2 "b" }}|{{ println 1 "x" }}"#, data),
        "a1 2b|1 x\n"
    );
}

#[test]
fn values_are_inserted_literally() {
    let data = json!({"v": "{{ .v }} <b>&"});
    assert_eq!(render("{{ .v }}", data), "{{ .v }} <b>&");
}

#[test]
fn syntax_errors_are_placed() {
    assert_eq!(
        parse_error("ok\n  {{ if .a }}x"),
        "2:15: unexpected EOF: {{if}} has no {{end}}"
    );
    assert_eq!(parse_error("{{ end }}"), "1:1: unexpected {{end}}");
    assert_eq!(
        parse_error("a {{ toJson . }}"),
        "1:6: function \"toJson\" not defined"
    );
    assert_eq!(parse_error("{{ $x }}"), "1:4: undefined variable \"$x\"");
    assert_eq!(parse_error("{{ .a "), "1:1: unclosed action");
    assert_eq!(
        parse_error("{{ \"abc }}"),
        "1:4: unterminated quoted string"
    );
    assert_eq!(
        parse_error("{{ break }}"),
        "1:1: {{break}} outside {{range}}"
    );
    assert_eq!(
        parse_error("{{ define \"x\" }}{{ end }}"),
        "1:1: `define` is not supported in these templates"
    );
}

#[test]
fn every_prefix_of_a_template_parses_or_fails_without_panicking() {
    let src = "é {{- if and .a (eq .b \"ü}}\") -}} x {{ range $i, $e := .l }}{{ printf \"%q\" $e }}\
               {{ else }}{{/* c */}}{{ end }}{{ with .m }}{{ index . `k` }}{{ end }}{{ else }}{{ -3.5 }}{{ end }}";
    let data = json!({"a": 1, "b": "ü}}", "l": ["x"], "m": {"k": 2}});
    for (cut, _) in src.char_indices().chain([(src.len(), ' ')]) {
        if let Ok(t) = Template::parse(&src[..cut]) {
            let _ = t.render(&data, Missing::Zero);
        }
    }
    assert_eq!(render(src, data), "éx \"x\"2", "the whole template renders");
}
