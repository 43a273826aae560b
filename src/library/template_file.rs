//! One PromptKind template in its JSON format: `id`, `title`, `template`, `slots`, …

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde_json::Value as Json;

use crate::doc::{
    Checker, Diagnostic, Diagnostics, Fields, JsonStringCursor, Loaded, Node, Pos, Rejected,
    UnknownKeys, finish, locate_in_json_string, parse_json, suggest,
};
use crate::template::Template;

use super::slots::{Slot, read_slots};

#[derive(Debug, Clone)]
pub struct PromptTemplate {
    pub path: PathBuf,
    pub id: String,
    pub title: String,
    pub description: String,
    pub template: Template,
    /// Every slot must be filled to render, with a value its rules accept.
    pub slots: Vec<Slot>,
    pub tags: Vec<String>,
    pub owner: String,
    pub auditable: bool,
    pub version: Option<String>,
    pub metadata: Json,
    text: String,
    template_node: (usize, Pos),
}

impl PromptTemplate {
    fn file_pos(&self, at: usize) -> Pos {
        locate_in_json_string(&self.text, self.template_node.0, self.template_node.1, at)
    }

    /// Fills every slot with its value as plain text.
    pub fn render(&self, inputs: &IndexMap<String, Json>) -> Result<String, Diagnostics> {
        let mut problems = Diagnostics::default();
        for (name, value) in inputs {
            let Some(slot) = self.slot(name) else {
                let hint = suggest(name, self.slots.iter().map(|s| s.name.as_str()));
                problems.push(Diagnostic::plain(format!(
                    "template `{}` has no slot `{name}`{hint}",
                    self.id
                )));
                continue;
            };
            if let Some(why) = slot.refuse(&plain_text(value)) {
                problems.push(Diagnostic::plain(why));
            }
        }
        let values: HashMap<String, String> = inputs
            .iter()
            .map(|(k, v)| (k.clone(), plain_text(v)))
            .collect();
        match self.template.render(&values) {
            Ok(text) if !problems.has_errors() => return Ok(text),
            Ok(_) => {}
            Err(unfilled) => {
                for p in unfilled.0 {
                    problems.push(Diagnostic::error(
                        &self.path,
                        self.file_pos(p.offset),
                        format!("slot `{}` of template `{}` has no value", p.name, self.id),
                    ));
                }
            }
        }
        Err(problems)
    }
}

impl PromptTemplate {
    pub fn slot(&self, name: &str) -> Option<&Slot> {
        self.slots.iter().find(|s| s.name == name)
    }

    /// The file's text, as it was read.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// A value as the text that goes into the template.
pub fn plain_text(value: &Json) -> String {
    match value {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Reads and checks a template file: required fields, and every placeholder a slot.
pub fn load_template_file(path: &Path) -> Result<Loaded<PromptTemplate>, Rejected> {
    let text = std::fs::read_to_string(path).map_err(|err| {
        Rejected(Diagnostic::whole_file(path, format!("cannot read file: {err}")).into())
    })?;
    parse_template(path, &text)
}

/// Checks a template's JSON `text`; `path` names it in messages.
pub fn parse_template(path: &Path, text: &str) -> Result<Loaded<PromptTemplate>, Rejected> {
    let root = parse_json(path, text).map_err(|d| Rejected(d.into()))?;
    let mut cx = Checker::new(path, text);
    let template = resolve(&root, path, &mut cx);
    match template {
        Some(t) => finish(t, cx.diagnostics),
        None => Err(Rejected(cx.diagnostics)),
    }
}

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

fn resolve(root: &Node, path: &Path, cx: &mut Checker) -> Option<PromptTemplate> {
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
    f.allow(&["created_at", "updated_at"]);
    cx.unknown_keys(&f, "the template", UnknownKeys::Error);

    let (text, node) = template?;
    let parsed = match Template::parse(&text) {
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
    for slot in &slots {
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
    Some(PromptTemplate {
        path: path.to_path_buf(),
        id: id?.0,
        title: title?.0,
        description,
        template: parsed,
        slots,
        tags: tags.into_iter().map(|(t, _)| t).collect(),
        owner,
        auditable,
        version,
        metadata,
        text: cx.text.clone(),
        template_node: (node.offset, node.pos),
    })
}
