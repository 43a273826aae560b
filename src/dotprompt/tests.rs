//! The language as a user sees it: every helper, the whitespace rules, partials,
//! messages, and positioned errors.

use std::collections::HashMap;
use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{Value as Json, json};

use super::*;

struct Named(HashMap<&'static str, Arc<Template>>);

impl Partials for Named {
    fn partial(&self, name: &str) -> Option<Arc<Template>> {
        self.0.get(name).cloned()
    }
}

fn partials(list: &[(&'static str, &str)]) -> Named {
    Named(
        list.iter()
            .map(|(name, text)| {
                (
                    *name,
                    Arc::new(Template::parse(text).expect("partial parses")),
                )
            })
            .collect(),
    )
}

fn render_with(text: &str, input: Json, named: &Named) -> Result<Rendered, RenderError> {
    let template = Template::parse(text).expect("parses");
    template.render(
        &input,
        &RenderEnv {
            partials: named,
            history: &[],
        },
    )
}

fn render(text: &str, input: Json) -> String {
    render_with(text, input, &partials(&[]))
        .expect("renders")
        .text()
}

fn errors(text: &str) -> String {
    Template::parse(text)
        .expect_err("should not parse")
        .iter()
        .map(|e| format!("{}: {e}", e.pos))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn values_paths_and_literals() {
    let input = json!({"user": {"name": "Ada", "tags": ["a", "b"]}, "n": 2.0, "odd key": 1});
    assert_eq!(
        render(
            "{{user.name}} {{user.tags}} {{n}} {{[odd key]}}",
            input.clone()
        ),
        "Ada a,b 2 1"
    );
    assert_eq!(
        render(
            "{{{user.name}}}{{&user.name}}{{this.user.name}}",
            input.clone()
        ),
        "AdaAdaAda"
    );
    assert_eq!(
        render("[{{missing}}][{{user.missing.deeper}}]", input.clone()),
        "[][]"
    );
    assert_eq!(render("{{user.tags.length}} {{user.tags.1}}", input), "2 b");
    assert_eq!(render("{{\"quoted\"}}", json!({})), "quoted");
}

#[test]
fn nothing_is_escaped_and_values_are_never_read_again() {
    let value = "<b>&</b> {{x}} {{#if y}} {{> p}} \\{{ {{role \"system\"}} {{history}}";
    let out =
        render_with("[{{v}}]", json!({"v": value, "x": "X"}), &partials(&[])).expect("renders");
    assert_eq!(out.messages, [Message::new("user", format!("[{value}]"))]);
}

#[test]
fn if_else_if_and_unless() {
    let t = "{{#if a}}A{{else if b}}B{{else}}C{{/if}}";
    assert_eq!(render(t, json!({"a": 1})), "A");
    assert_eq!(render(t, json!({"b": "x"})), "B");
    assert_eq!(render(t, json!({"a": 0, "b": [], "c": true})), "C");
    assert_eq!(
        render("{{#unless a}}no{{else}}yes{{/unless}}", json!({"a": ""})),
        "no"
    );
    assert_eq!(render("{{^a}}none{{/a}}", json!({"a": []})), "none");
    assert_eq!(render("{{#if o}}object{{/if}}", json!({"o": {}})), "object");
}

#[test]
fn each_over_arrays_and_objects_with_loop_data() {
    let t = "{{#each items}}{{@index}}:{{this}}{{#if @first}}(first){{/if}}{{#if @last}}(last){{/if}} {{/each}}";
    assert_eq!(
        render(t, json!({"items": ["a", "b"]})),
        "0:a(first) 1:b(last) "
    );
    let t = "{{#each o}}{{@key}}={{this}};{{/each}}";
    assert_eq!(render(t, json!({"o": {"x": 1, "y": 2}})), "x=1;y=2;");
    let t = "{{#each items}}{{name}} of {{../owner}}{{else}}empty{{/each}}";
    assert_eq!(
        render(t, json!({"items": [{"name": "n"}], "owner": "o"})),
        "n of o"
    );
    assert_eq!(render(t, json!({"items": []})), "empty");
    let t = "{{#each items as |item i|}}{{i}}={{item}} {{/each}}";
    assert_eq!(render(t, json!({"items": ["p", "q"]})), "0=p 1=q ");
    assert_eq!(
        render(
            "{{#each xs}}{{@root.top}}{{/each}}",
            json!({"xs": [1], "top": "T"})
        ),
        "T"
    );
}

#[test]
fn with_changes_the_context() {
    assert_eq!(
        render(
            "{{#with user}}{{name}}{{/with}}",
            json!({"user": {"name": "Ada"}})
        ),
        "Ada"
    );
    assert_eq!(
        render("{{#with user}}x{{else}}nobody{{/with}}", json!({})),
        "nobody"
    );
}

#[test]
fn if_equals_and_unless_equals_compare_strictly() {
    let t = "{{#ifEquals a b}}same{{else}}different{{/ifEquals}}";
    assert_eq!(render(t, json!({"a": 5, "b": 5.0})), "same");
    assert_eq!(render(t, json!({"a": 5, "b": "5"})), "different");
    assert_eq!(render(t, json!({"a": {"k": [1]}, "b": {"k": [1]}})), "same");
    let t = "{{#unlessEquals tier \"gold\"}}standard{{/unlessEquals}}";
    assert_eq!(render(t, json!({"tier": "silver"})), "standard");
    assert_eq!(render(t, json!({"tier": "gold"})), "");
}

#[test]
fn json_with_and_without_indent() {
    assert_eq!(
        render("{{json this}}", json!({"a": [1, 2]})),
        r#"{"a":[1,2]}"#
    );
    assert_eq!(
        render("{{json a indent=2}}", json!({"a": {"b": true}})),
        "{\n  \"b\": true\n}"
    );
    assert_eq!(render("{{json missing}}", json!({})), "null");
}

#[test]
fn roles_and_history_make_messages() {
    let history = [
        Message::new("user", "earlier"),
        Message::new("model", "reply"),
    ];
    let t =
        Template::parse("{{role \"system\"}}Be {{tone}}.\n{{history}}\n{{role \"user\"}}{{q}}\n")
            .expect("parses");
    let out = t
        .render(
            &json!({"tone": "brief", "q": "why?"}),
            &RenderEnv {
                partials: &NoPartials,
                history: &history,
            },
        )
        .expect("renders");
    assert_eq!(
        out.messages,
        [
            Message::new("system", "Be brief.\n"),
            Message::new("user", "earlier"),
            Message::new("model", "reply"),
            Message::new("user", "why?\n"),
        ]
    );
    assert!(t.uses_roles());
}

#[test]
fn partials_with_context_pairs_and_nesting() {
    let named = partials(&[
        ("greet", "Hi {{name}}!"),
        ("outer", "[{{> greet}}]"),
        ("loop", "{{> loop}}"),
    ]);
    let out = render_with(
        "{{> greet name=who}} {{> outer}}",
        json!({"who": "Ada", "name": "Bo"}),
        &named,
    );
    assert_eq!(out.expect("renders").text(), "Hi Ada! [Hi Bo!]");
    let out = render_with("{{> greet user}}", json!({"user": {"name": "Cy"}}), &named);
    assert_eq!(out.expect("renders").text(), "Hi Cy!");
}

#[test]
fn a_missing_or_circular_partial_is_placed() {
    let named = partials(&[("a", "x{{> b}}"), ("b", "\n  {{> a}}")]);
    let missing = render_with("line\n  {{> nope}}", json!({}), &named).expect_err("missing");
    assert_eq!(
        (missing.pos.line, missing.pos.col, missing.partial.clone()),
        (2, 3, None)
    );
    assert_eq!(missing.to_string(), "no partial `nope`");
    let circular = render_with("{{> a}}", json!({}), &named).expect_err("circular");
    assert_eq!(circular.to_string(), "circular partials: a → b → a");
    assert_eq!(
        (
            circular.partial.as_deref(),
            circular.pos.line,
            circular.pos.col
        ),
        (Some("b"), 2, 3)
    );
}

#[test]
fn standalone_lines_and_tildes() {
    let t = "List:\n{{#each xs}}\n  - {{this}}\n{{/each}}\nEnd\n";
    assert_eq!(
        render(t, json!({"xs": [1, 2]})),
        "List:\n  - 1\n  - 2\nEnd\n"
    );
    assert_eq!(render("{{! note }}\nText", json!({})), "Text");
    assert_eq!(
        render("a  {{~#if x~}}  b  {{~/if~}}  c", json!({"x": true})),
        "abc"
    );
    assert_eq!(render(r"\{{literal}}", json!({})), "{{literal}}");
}

#[test]
fn positioned_syntax_errors() {
    insta::assert_snapshot!(errors("{{#if a}}\n  {{#each b}}\n{{/if}}"), @r"
    1:1: `{{#if}}` is never closed (add `{{/if}}`)
    2:3: `{{#each}}` is never closed (add `{{/each}}`)
    3:1: `{{/if}}` does not close the open `{{#each}}` block
    ");
    insta::assert_snapshot!(errors("ok {{/if}} {{else}}"), @r"
    1:4: `{{/if}}` closes no open block
    1:12: `{{else}}` outside any block
    ");
    insta::assert_snapshot!(errors("Hi\n  {{name"), @"2:3: unclosed tag: `{{` has no matching `}}` (write `\\{{` for a literal `{{`)");
    insta::assert_snapshot!(errors("{{#loop x}}{{/loop}}\n{{shout name}} {{#ifEquals a}}{{/ifEquals}}"), @r"
    1:4: unknown block helper `loop` (known: if, unless, each, with, ifEquals, unlessEquals)
    2:3: unknown helper `shout` (known: json, role, history; a variable takes no arguments)
    2:19: `ifEquals` takes 2 arguments, found 1
    ");
    insta::assert_snapshot!(errors("{{role system}} {{x (y)}}"), @r#"
    1:3: `role` takes one quoted role name, e.g. {{role "system"}}
    1:21: subexpressions `( … )` are not supported
    "#);
}

#[test]
fn inspection_finds_input_variables_partials_and_conditions() {
    let t = Template::parse(
        "{{a}} {{#each items as |it|}}{{it.x}} {{name}} {{../b}} {{@root.c}}{{/each}}\n{{#if d}}{{> p e}}{{/if}}{{#ifEquals f 1}}{{/ifEquals}}",
    )
    .expect("parses");
    let names: Vec<_> = t.variables().into_iter().map(|v| v.name).collect();
    assert_eq!(names, ["a", "items", "b", "c", "d", "e", "f"]);
    let p = &t.partials()[0];
    assert_eq!((p.name.as_str(), p.pos.line, p.pos.col), ("p", 2, 10));
    let kinds: Vec<_> = t.conditions().iter().map(|c| c.kind.name()).collect();
    assert_eq!(kinds, ["if", "ifEquals"]);
    assert_eq!(t.conditions()[1].args[1], Expr::Literal(json!(1)));
}

proptest! {
    #[test]
    fn parsing_and_rendering_never_panic(text in "\\PC{0,60}", value in "\\PC{0,20}") {
        if let Ok(t) = Template::parse(&text) {
            let input = json!({"a": value, "b": [value.clone(), 1], "c": {"d": value}});
            let _ = t.render(&input, &RenderEnv { partials: &NoPartials, history: &[] });
            let _ = (t.variables(), t.partials(), t.conditions());
        }
    }

    #[test]
    fn tag_heavy_text_never_panics(text in "[{}#/^>!~&@. ifelsa\"'=|\n]{0,50}") {
        if let Ok(t) = Template::parse(&text) {
            let _ = t.render(&json!({"a": true}), &RenderEnv { partials: &NoPartials, history: &[] });
        }
    }

    #[test]
    fn values_holding_template_syntax_come_out_literally(
        noise in "\\PC{0,12}",
        syntax in prop_oneof![Just("{{x}}"), Just("{{#if x}}y{{/if}}"), Just("{{> p}}"), Just("{{role \"system\"}}"), Just("{{history}}")],
    ) {
        let value = format!("{noise}{syntax}{noise}");
        let out = render_with("<{{v}}>", json!({"v": value, "x": "X"}), &partials(&[("p", "P")])).expect("renders");
        prop_assert_eq!(out.text(), format!("<{value}>"));
    }

    #[test]
    fn text_without_braces_renders_unchanged(text in "[^{}\\\\]*") {
        let out = render_with(&text, json!({}), &partials(&[])).expect("renders");
        if text.trim().is_empty() {
            prop_assert!(out.messages.is_empty());
        } else {
            prop_assert_eq!(out.text(), text);
        }
    }
}
