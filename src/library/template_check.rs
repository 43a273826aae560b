//! Checking a template's tree, from a JSON file or a `.prompt` file alike: required
//! fields, slots, and a body that parses, with every placeholder accounted for.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value as Json};

use crate::doc::{Checker, Fields, JsonStringCursor, Node, Pos, UnknownKeys, suggest};
use crate::dotprompt;
use crate::template::Template;

use super::picoschema::to_json_schema;
use super::slots::{Slot, read_slots};
use super::template_file::{Body, Origin, PromptTemplate, declared_names};

/// dotprompt's own front-matter keys, kept as they are.
const DOTPROMPT_KEYS: &[&str] = &[
    "input", "model", "config", "output", "tools", "variant", "toolDefs", "raw", "ext",
];

fn required<'a>(
    f: &mut Fields<'a>,
    cx: &mut Checker,
    root: &Node,
    key: &'static str,
) -> Option<(String, &'a Node)> {
    match f.get(key) {
        Some(n) => cx.nonempty_string(n, key).map(|s| (s, n)),
        None => {
            cx.error(root.pos, format!("missing key `{key}`"));
            None
        }
    }
}

/// Checks the template tree `root` of the file at `path`; `origin` says where the
/// template's text stands in the file.
pub(super) fn resolve(
    root: &Node,
    path: &Path,
    cx: &mut Checker,
    origin: Origin,
) -> Option<PromptTemplate> {
    let mut f = cx.map(root, "the template")?;
    let id = required(&mut f, cx, root, "id");
    let title = required(&mut f, cx, root, "title");
    let template = required(&mut f, cx, root, "template");
    let string = |f: &mut Fields<'_>, cx: &mut Checker, key: &'static str| {
        f.get(key)
            .and_then(|n| cx.string(n, key))
            .unwrap_or_default()
    };
    let description = string(&mut f, cx, "description");
    let owner = string(&mut f, cx, "owner");
    let version = f.get("version").and_then(|n| cx.string(n, "version"));
    let slots = f
        .get("slots")
        .map(|n| read_slots(cx, n))
        .unwrap_or_default();
    let tags = f
        .get("tags")
        .and_then(|n| cx.string_list(n, "tags"))
        .unwrap_or_default();
    let auditable = f
        .get("auditable")
        .and_then(|n| cx.boolean(n, "auditable"))
        .unwrap_or(false);
    let metadata = f.get("metadata").map_or(Json::Null, |n| {
        cx.map(n, "metadata");
        n.to_json()
    });
    let dotprompt = match f.get("format") {
        None => false,
        Some(n) => cx.choice(n, "format", &[("dotprompt", true), ("plain", false)])?,
    };
    f.allow(&["created_at", "updated_at"]);
    let input = if dotprompt {
        f.allow(DOTPROMPT_KEYS);
        read_input(&mut f, cx)
    } else {
        Input::default()
    };
    if dotprompt {
        // Namespaced keys (`ext.name: …`) belong to other dotprompt readers.
        let unknown: Vec<_> = f
            .unknown()
            .filter(|k| !k.name.contains('.'))
            .cloned()
            .collect();
        for key in unknown {
            cx.warning(
                key.pos,
                format!(
                    "unknown key `{}` in the template; it is kept but not used",
                    key.name
                ),
            );
        }
    } else {
        cx.unknown_keys(&f, "the template", UnknownKeys::Error);
    }

    let (text, node) = template?;
    let body = if dotprompt {
        dotprompt_body(&text, node, cx, &origin, &slots, &input)?
    } else {
        plain_body(&text, node, cx, &slots)?
    };
    Some(PromptTemplate {
        path: path.to_path_buf(),
        id: id?.0,
        title: title?.0,
        description,
        body,
        slots,
        tags: tags.into_iter().map(|(t, _)| t).collect(),
        owner,
        auditable,
        version,
        metadata,
        input_default: input.default,
        input_schema: input.schema,
        text: cx.text.clone(),
        library: library_json(root),
        origin: match origin {
            Origin::JsonString { .. } => Origin::JsonString {
                offset: node.offset,
                pos: node.pos,
            },
            verbatim => verbatim,
        },
    })
}

#[derive(Default)]
struct Input {
    default: Map<String, Json>,
    schema: Option<Json>,
}

/// `input.default` (a mapping) and `input.schema` (Picoschema or JSON Schema).
fn read_input(f: &mut Fields<'_>, cx: &mut Checker) -> Input {
    let mut input = Input::default();
    let Some(node) = f.get("input") else {
        return input;
    };
    let Some(mut fields) = cx.map(node, "input") else {
        return input;
    };
    if let Some(default) = fields.get("default")
        && cx.map(default, "input.default").is_some()
        && let Json::Object(map) = default.to_json()
    {
        input.default = map;
    }
    if let Some(schema) = fields.get("schema") {
        match to_json_schema(&schema.to_json()) {
            Ok(converted) => input.schema = Some(converted),
            Err(e) => cx.error(schema.pos, format!("input.schema: {e}")),
        }
    }
    cx.unknown_keys(&fields, "input", UnknownKeys::Warn);
    input
}

fn plain_body(text: &str, node: &Node, cx: &mut Checker, slots: &[Slot]) -> Option<Body> {
    let parsed = match Template::parse(text) {
        Ok(t) => t,
        Err(errors) => {
            let mut file = JsonStringCursor::new(&cx.text, node.offset, node.pos);
            let placed: Vec<_> = errors.iter().map(|e| file.locate(e.offset)).collect();
            for (e, pos) in errors.iter().zip(placed) {
                cx.error(pos, format!("template: {e}"));
            }
            return None;
        }
    };
    let slot_names: HashSet<&str> = slots.iter().map(|s| s.name.as_str()).collect();
    let unlisted: Vec<_> = {
        let mut file = JsonStringCursor::new(&cx.text, node.offset, node.pos);
        parsed
            .placeholders()
            .filter(|p| !slot_names.contains(p.name.as_str()))
            .map(|p| (p, file.locate(p.offset)))
            .collect()
    };
    for (p, pos) in unlisted {
        let hint = suggest(&p.name, slots.iter().map(|s| s.name.as_str()));
        cx.error(
            pos,
            format!(
                "placeholder `{{{{{}}}}}` is not listed in `slots`{hint}",
                p.name
            ),
        );
    }
    let used: HashSet<&str> = parsed.placeholders().map(|p| p.name.as_str()).collect();
    warn_unused(cx, slots, &used);
    Some(Body::Plain(parsed))
}

/// A dotprompt body: it parses, and when slots or a schema declare the input, every
/// variable it reads is declared.
fn dotprompt_body(
    text: &str,
    node: &Node,
    cx: &mut Checker,
    origin: &Origin,
    slots: &[Slot],
    input: &Input,
) -> Option<Body> {
    let place = |cx: &Checker, offset: usize| match origin {
        Origin::JsonString { .. } => {
            JsonStringCursor::new(&cx.text, node.offset, node.pos).locate(offset)
        }
        Origin::Verbatim { start } => pos_at(&cx.text, start + offset),
    };
    let parsed = match dotprompt::Template::parse(text) {
        Ok(t) => t,
        Err(errors) => {
            for e in errors {
                let pos = place(cx, e.offset);
                cx.error(pos, format!("template: {e}"));
            }
            return None;
        }
    };
    let declared = declared_names(slots, input.schema.as_ref(), &input.default);
    if let Some(declared) = &declared {
        for var in parsed.variables() {
            if !declared.contains(&var.name.as_str()) {
                let hint = suggest(&var.name, declared.iter().copied());
                let pos = place(cx, var.offset);
                cx.error(
                    pos,
                    format!(
                        "`{}` is not declared in `input.schema` or `slots`{hint}",
                        var.name
                    ),
                );
            }
        }
    }
    let used: HashSet<String> = parsed.variables().into_iter().map(|v| v.name).collect();
    let used: HashSet<&str> = used.iter().map(String::as_str).collect();
    warn_unused(cx, slots, &used);
    Some(Body::Dotprompt(Arc::new(parsed)))
}

fn warn_unused(cx: &mut Checker, slots: &[Slot], used: &HashSet<&str>) {
    for slot in slots {
        if !used.contains(slot.name.as_str()) {
            cx.warning(
                slot.pos,
                format!(
                    "slot `{}` is listed but the template never uses it",
                    slot.name
                ),
            );
        }
    }
}

/// The line and column of byte `offset` of `text`.
pub(super) fn pos_at(text: &str, offset: usize) -> Pos {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() as u32 + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
    Pos { line, col }
}

/// The template as the library stores it: a `format` of `plain` is the default and
/// left out, so a prompt has one stored form however it was written.
fn library_json(root: &Node) -> Json {
    let mut json = root.to_json();
    if let Some(map) = json.as_object_mut()
        && map.get("format").and_then(Json::as_str) == Some("plain")
    {
        map.remove("format");
    }
    json
}
