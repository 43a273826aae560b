//! What is linted: one template, from a PromptKind JSON file, a `.prompt` file or
//! the library, read leniently. Whatever cannot be read becomes a problem of the
//! `invalid-front-matter` rule instead of stopping the lint.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::doc::{Checker, Fields, JsonStringCursor, Node, Pos, Value, parse_json};

use super::super::picoschema::to_json_schema;
use super::super::prompt_file::{id_of_file, read_prompt_file};
use super::super::slots::{Slot, read_slots};
use super::super::template_check::pos_at;

/// Where a decoded string's text sits in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum At {
    /// A JSON string literal whose opening quote is at this byte and place.
    Json { offset: usize, pos: Pos },
    /// Text copied as it is from this byte of the file on.
    Raw { offset: usize },
    /// Decoded text whose characters cannot be placed one by one (a YAML string
    /// with escapes): all of it is at this place.
    Whole(Pos),
}

/// A piece of decoded text and where it comes from.
#[derive(Debug, Clone)]
pub(crate) struct Piece {
    pub text: String,
    pub at: At,
}

/// One template, read as far as it reads.
#[derive(Debug, Clone)]
pub(crate) struct Subject {
    /// The file, or `ID@vN` for a library prompt.
    pub label: PathBuf,
    /// The text as read (the library's JSON, pretty-printed).
    pub text: String,
    /// `label` names a library prompt, not a file.
    pub in_library: bool,
    /// The id partials name it by: `id`, `name`, else the file stem.
    pub id: String,
    pub description: String,
    pub owner: String,
    pub tags: Vec<String>,
    pub auditable: bool,
    pub slots: Vec<Slot>,
    /// The inputs `input.schema` declares, when it is given.
    pub schema: Option<Vec<(String, Pos)>>,
    /// Read with the dotprompt language rather than as a plain `{{slot}}` template.
    pub dotprompt: bool,
    /// The template's body, when there is one.
    pub body: Option<Piece>,
    /// What could not be read, each where it is.
    pub problems: Vec<(Pos, String)>,
    /// Every string of the document, decoded, for the text rules.
    pub pieces: Vec<Piece>,
}

impl Subject {
    /// The file place of byte `decoded` of a piece at `at`.
    pub(crate) fn locate(&self, at: At, decoded: usize) -> Pos {
        match at {
            At::Json { offset, pos } => {
                JsonStringCursor::new(&self.text, offset, pos).locate(decoded)
            }
            At::Raw { offset } => pos_at(&self.text, offset + decoded),
            At::Whole(pos) => pos,
        }
    }

    fn empty(label: PathBuf, text: String, id: String) -> Self {
        Subject {
            label,
            text,
            in_library: false,
            id,
            description: String::new(),
            owner: String::new(),
            tags: Vec::new(),
            auditable: false,
            slots: Vec::new(),
            schema: None,
            dotprompt: false,
            body: None,
            problems: Vec::new(),
            pieces: Vec::new(),
        }
    }

    fn take(&mut self, cx: Checker) {
        self.problems.extend(
            cx.diagnostics
                .iter()
                .map(|d| (d.pos.unwrap_or(Pos::START), d.message.clone())),
        );
    }
}

/// Reads a file: `.prompt` as dotprompt, anything else as PromptKind JSON.
pub(crate) fn read_file(path: &Path) -> std::io::Result<Subject> {
    let text = std::fs::read_to_string(path)?;
    let is_prompt = path.extension().is_some_and(|e| e == "prompt");
    Ok(match is_prompt {
        true => from_prompt(path.to_path_buf(), text),
        false => from_json(path.to_path_buf(), text),
    })
}

/// Keys a PromptKind template may have, dotprompt's own included.
const JSON_KEYS: &[&str] = &[
    "id",
    "title",
    "description",
    "template",
    "slots",
    "tags",
    "owner",
    "auditable",
    "version",
    "metadata",
    "format",
    "input",
    "model",
    "config",
    "output",
    "tools",
    "created_at",
    "updated_at",
];

/// A PromptKind template in JSON (`"format": "dotprompt"` for a dotprompt body).
pub(crate) fn from_json(label: PathBuf, text: String) -> Subject {
    let mut subject = Subject::empty(label.clone(), text, id_of_file(&label));
    let root = match parse_json(&label, &subject.text) {
        Ok(root) => root,
        Err(d) => {
            subject
                .problems
                .push((d.pos.unwrap_or(Pos::START), d.message));
            return subject;
        }
    };
    collect_strings(&root, &mut subject.pieces);
    read_tree(&mut subject, &root, None);
    subject
}

/// Reads the template's fields from its tree. `body_start` is the byte a `.prompt`
/// file's body starts at; `None` for JSON, whose `template` is a string literal.
fn read_tree(subject: &mut Subject, root: &Node, body_start: Option<usize>) {
    let mut cx = Checker::new(&subject.label, subject.text.clone());
    if let Some(mut f) = cx.map(root, "the template") {
        let template = match f.get("template") {
            Some(node) => cx.string(node, "template").map(|text| (text, node)),
            None => {
                cx.error(root.pos, "missing key `template`");
                None
            }
        };
        for key in ["id", "title"] {
            if f.get(key).is_none() {
                cx.error(root.pos, format!("missing key `{key}`"));
            }
        }
        if let Some(id) = f.get("id").and_then(|n| cx.nonempty_string(n, "id")) {
            subject.id = id;
        }
        if let Some(n) = f.get("title") {
            cx.nonempty_string(n, "title");
        }
        subject.dotprompt = f
            .get("format")
            .and_then(|n| cx.choice(n, "format", &[("dotprompt", true), ("plain", false)]))
            .unwrap_or(false);
        read_common(&mut cx, &mut f, subject);
        if body_start.is_none() {
            // A `.prompt` file's front matter may hold any extension key.
            f.allow(JSON_KEYS);
            cx.unknown_keys(&f, "the template", crate::doc::UnknownKeys::Error);
        }
        if let Some((text, node)) = template {
            let at = match body_start {
                Some(offset) => At::Raw { offset },
                None => At::Json {
                    offset: node.offset,
                    pos: node.pos,
                },
            };
            subject.body = Some(Piece { text, at });
        }
    }
    subject.take(cx);
}

/// The fields JSON templates and front matter share; each one given replaces what
/// was read before.
fn read_common(cx: &mut Checker, f: &mut Fields<'_>, subject: &mut Subject) {
    if let Some(text) = f
        .get("description")
        .and_then(|n| cx.string(n, "description"))
    {
        subject.description = text;
    }
    if let Some(text) = f.get("owner").and_then(|n| cx.string(n, "owner")) {
        subject.owner = text;
    }
    if let Some(n) = f.get("version")
        && !matches!(n.value, Value::Str(_) | Value::Int(_) | Value::Float(_))
    {
        cx.error(
            n.pos,
            format!("version: expected a string, found {}", n.kind()),
        );
    }
    if let Some(tags) = f.get("tags").and_then(|n| cx.string_list(n, "tags")) {
        subject.tags = tags.into_iter().map(|(t, _)| t).collect();
    }
    if let Some(yes) = f.get("auditable").and_then(|n| cx.boolean(n, "auditable")) {
        subject.auditable = yes;
    }
    if let Some(n) = f.get("slots") {
        subject.slots = read_slots(cx, n);
    }
    if let Some(n) = f.get("metadata") {
        cx.map(n, "metadata");
    }
    if let Some(input) = f.get("input")
        && let Some(mut fields) = cx.map(input, "input")
        && let Some(schema) = fields.get("schema")
    {
        subject.schema = schema_names(cx, schema);
    }
}

/// The names an input schema declares (the properties of the JSON Schema it stands
/// for, Picoschema included), each at its key when it has one.
fn schema_names(cx: &mut Checker, schema: &Node) -> Option<Vec<(String, Pos)>> {
    if let Value::Str(_) = schema.value {
        // `schema: SomeType` names a registered type: nothing is declared here.
        return None;
    }
    let json_schema = match to_json_schema(&schema.to_json()) {
        Ok(s) => s,
        Err(e) => {
            cx.error(schema.pos, format!("input.schema: {e}"));
            return None;
        }
    };
    let keys: Vec<&crate::doc::Key> = match &schema.value {
        Value::Map(entries) => {
            let props = entries.iter().find(|(k, _)| k.name == "properties");
            match props.map(|(_, n)| &n.value) {
                Some(Value::Map(props)) => props.iter().map(|(k, _)| k).collect(),
                _ => entries.iter().map(|(k, _)| k).collect(),
            }
        }
        _ => Vec::new(),
    };
    let names = json_schema
        .get("properties")
        .and_then(Json::as_object)
        .map(|props| {
            props
                .keys()
                .map(|name| {
                    let pos = keys
                        .iter()
                        .find(|k| {
                            let end = k.name.find(['?', '(']).unwrap_or(k.name.len());
                            k.name[..end].trim() == name
                        })
                        .map_or(schema.pos, |k| k.pos);
                    (name.clone(), pos)
                })
                .collect()
        })
        .unwrap_or_default();
    Some(names)
}

fn collect_strings(node: &Node, out: &mut Vec<Piece>) {
    let at = |offset, pos| At::Json { offset, pos };
    match &node.value {
        Value::Str(text) => out.push(Piece {
            text: text.clone(),
            at: at(node.offset, node.pos),
        }),
        Value::Seq(items) => items.iter().for_each(|n| collect_strings(n, out)),
        Value::Map(entries) => {
            for (key, value) in entries {
                out.push(Piece {
                    text: key.name.clone(),
                    at: at(key.offset, key.pos),
                });
                collect_strings(value, out);
            }
        }
        _ => {}
    }
}

/// A `.prompt` file: YAML front matter between `---` lines, then the body, read
/// as `prompt add` reads it (PromptKind's fields as `promptkind.KEY`).
pub(crate) fn from_prompt(label: PathBuf, text: String) -> Subject {
    let mut subject = Subject::empty(label.clone(), text, id_of_file(&label));
    subject.pieces.push(Piece {
        text: subject.text.clone(),
        at: At::Raw { offset: 0 },
    });
    match read_prompt_file(&label, &subject.text) {
        Ok(tree) => {
            escaped_strings(&tree.root, &subject.text, &mut subject.pieces);
            read_tree(&mut subject, &tree.root, Some(tree.body_start));
        }
        Err(d) => subject
            .problems
            .push((d.pos.unwrap_or(Pos::START), d.message)),
    }
    subject
}

/// The double-quoted YAML strings whose escapes spell something else than the file
/// shows (`"\u200b"`): the text rules read them decoded too.
fn escaped_strings(node: &Node, text: &str, out: &mut Vec<Piece>) {
    match &node.value {
        Value::Str(value) => {
            let raw = text.get(node.offset..).unwrap_or_default();
            if raw.starts_with('"') && !raw[1..].starts_with(value.as_str()) {
                out.push(Piece {
                    text: value.clone(),
                    at: At::Whole(node.pos),
                });
            }
        }
        Value::Seq(items) => items.iter().for_each(|n| escaped_strings(n, text, out)),
        Value::Map(entries) => entries
            .iter()
            .for_each(|(_, n)| escaped_strings(n, text, out)),
        _ => {}
    }
}

/// A library prompt's stored JSON, linted as its pretty-printed text.
pub(crate) fn from_library(id: &str, version: u64, content: &Json) -> Subject {
    let text = serde_json::to_string_pretty(content).unwrap_or_default();
    let mut subject = from_json(PathBuf::from(format!("{id}@v{version}")), text);
    subject.id = id.to_string();
    subject.in_library = true;
    subject
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_file_splits_into_front_matter_and_body_at_their_places() {
        let text = "---\nname: greet\ndescription: 7\n---\nHello {{name}}\n";
        let s = from_prompt("g.prompt".into(), text.into());
        assert_eq!(s.id, "greet");
        let body = s.body.as_ref().expect("a body");
        assert_eq!(body.text, "Hello {{name}}\n");
        assert_eq!(s.locate(body.at, 6), Pos { line: 5, col: 7 });
        assert_eq!(s.problems.len(), 1, "{:?}", s.problems);
        assert_eq!(s.problems[0].0, Pos { line: 3, col: 14 });
    }

    #[test]
    fn picoschema_and_json_schema_declare_names() {
        let text = "---\ninput:\n  schema:\n    topic?: string\n    items(array): string\n---\nx\n";
        let s = from_prompt("p.prompt".into(), text.into());
        let names: Vec<_> = s.schema.iter().flatten().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["topic", "items"]);
        let json = r#"{"id":"a","title":"A","template":"x","format":"dotprompt",
            "input":{"schema":{"type":"object","properties":{"q":{"type":"string"}}}}}"#;
        let s = from_json("a.json".into(), json.into());
        assert!(s.problems.is_empty(), "{:?}", s.problems);
        assert_eq!(
            s.schema,
            Some(vec![("q".to_string(), Pos { line: 2, col: 62 })])
        );
    }

    #[test]
    fn an_escaped_yaml_string_is_read_decoded_at_its_place() {
        let text = "---\ndescription: \"Nice\\u200B\"\n---\nx\n";
        let s = from_prompt("p.prompt".into(), text.into());
        assert!(s.problems.is_empty(), "{:?}", s.problems);
        let escaped: Vec<_> = s
            .pieces
            .iter()
            .filter(|p| matches!(p.at, At::Whole(_)))
            .collect();
        assert_eq!(escaped.len(), 1, "{:?}", s.pieces);
        assert_eq!(escaped[0].text, "Nice\u{200B}");
        assert_eq!(s.locate(escaped[0].at, 4), Pos { line: 2, col: 14 });
    }

    #[test]
    fn an_unclosed_front_matter_is_a_problem() {
        let s = from_prompt("p.prompt".into(), "---\nname: x\nHello\n".into());
        assert!(s.body.is_none());
        assert!(s.problems[0].1.contains("never closed"));
    }
}
