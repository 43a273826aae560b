//! What is linted: one template, from a PromptKind JSON file, a `.prompt` file or
//! the library, read leniently. Whatever cannot be read becomes a problem of the
//! `invalid-front-matter` rule instead of stopping the lint.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::doc::{Checker, Fields, JsonStringCursor, Node, Pos, Value, parse_json, parse_yaml};

use super::super::slots::{Slot, read_slots};

/// Where a decoded string's text sits in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum At {
    /// A JSON string literal whose opening quote is at this byte and place.
    Json { offset: usize, pos: Pos },
    /// Text copied as it is from this byte of the file on.
    Raw { offset: usize },
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
            At::Raw { offset } => raw_pos(&self.text, offset + decoded),
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

/// The line and column (in characters) of byte `at` of `text`.
pub(crate) fn raw_pos(text: &str, at: usize) -> Pos {
    let before = text.get(..at).unwrap_or(text);
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Pos {
        line: before.matches('\n').count() as u32 + 1,
        col: before[line_start..].chars().count() as u32 + 1,
    }
}

/// The file stem: the id of a file that names none.
fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
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
    let mut subject = Subject::empty(label.clone(), text, stem(&label));
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
    let mut cx = Checker::new(&label, subject.text.clone());
    if let Some(mut f) = cx.map(&root, "the template") {
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
        read_common(&mut cx, &mut f, &mut subject);
        f.allow(JSON_KEYS);
        cx.unknown_keys(&f, "the template", crate::doc::UnknownKeys::Error);
        if let Some((text, node)) = template {
            subject.body = Some(Piece {
                text,
                at: At::Json {
                    offset: node.offset,
                    pos: node.pos,
                },
            });
        }
    }
    subject.take(cx);
    subject
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

/// The names an input schema declares: a JSON Schema's `properties`, or the keys of
/// a Picoschema (`name?(string, what it is)` declares `name`).
fn schema_names(cx: &mut Checker, schema: &Node) -> Option<Vec<(String, Pos)>> {
    let Value::Map(entries) = &schema.value else {
        // `schema: SomeType` names a registered type: nothing is declared here.
        return None;
    };
    let is_json_schema = entries
        .iter()
        .any(|(k, _)| k.name == "properties" || k.name == "type");
    let declared = match is_json_schema {
        true => match entries.iter().find(|(k, _)| k.name == "properties") {
            Some((_, props)) => match &props.value {
                Value::Map(props) => props.iter().map(|(k, _)| (k.name.clone(), k.pos)).collect(),
                _ => {
                    cx.map(props, "input.schema.properties");
                    Vec::new()
                }
            },
            None => Vec::new(),
        },
        false => entries
            .iter()
            .filter(|(k, _)| !k.name.starts_with('(') && !k.name.is_empty())
            .map(|(k, _)| {
                let end = k.name.find(['?', '(']).unwrap_or(k.name.len());
                (k.name[..end].trim().to_string(), k.pos)
            })
            .collect(),
    };
    Some(declared)
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

/// A `.prompt` file: YAML front matter between `---` lines, then the body.
pub(crate) fn from_prompt(label: PathBuf, text: String) -> Subject {
    let mut subject = Subject::empty(label.clone(), text, stem(&label));
    subject.dotprompt = true;
    subject.pieces.push(Piece {
        text: subject.text.clone(),
        at: At::Raw { offset: 0 },
    });
    let Some((front, body_at)) = split_front_matter(&subject.text) else {
        subject.problems.push((
            Pos::START,
            "the front matter opened by `---` is never closed by a `---` line".into(),
        ));
        return subject;
    };
    subject.body = Some(Piece {
        text: subject.text[body_at..].to_string(),
        at: At::Raw { offset: body_at },
    });
    let Some(front) = front else {
        return subject;
    };
    // The opening `---` line stays as an empty line, so places are the file's own.
    let yaml = format!("\n{front}");
    let root = match parse_yaml(&label, &yaml) {
        Ok(root) => root,
        Err(d) => {
            subject
                .problems
                .push((d.pos.unwrap_or(Pos::START), d.message));
            return subject;
        }
    };
    if matches!(root.value, Value::Null) {
        return subject;
    }
    let mut cx = Checker::new(&label, yaml.clone());
    if let Some(mut f) = cx.map(&root, "the front matter") {
        if let Some(name) = f.get("name").and_then(|n| cx.nonempty_string(n, "name")) {
            subject.id = name;
        }
        read_common(&mut cx, &mut f, &mut subject);
        // PromptKind's own fields, as `promptkind.KEY` (or under `promptkind:`).
        let nested: Vec<(crate::doc::Key, Node)> = match &root.value {
            Value::Map(entries) => entries
                .iter()
                .flat_map(|(k, v)| match (k.name.as_str(), &v.value) {
                    ("promptkind", Value::Map(inner)) => inner.clone(),
                    (name, _) => name
                        .strip_prefix("promptkind.")
                        .map(|short| {
                            let mut key = k.clone();
                            key.name = short.to_string();
                            vec![(key, v.clone())]
                        })
                        .unwrap_or_default(),
                })
                .collect(),
            _ => Vec::new(),
        };
        let mut ext = Fields::new(&nested);
        read_common(&mut cx, &mut ext, &mut subject);
        if let Some(n) = ext.get("format") {
            subject.dotprompt = cx
                .choice(
                    n,
                    "promptkind.format",
                    &[("dotprompt", true), ("plain", false)],
                )
                .unwrap_or(true);
        }
        if let Some(n) = ext.get("title") {
            cx.string(n, "promptkind.title");
        }
    }
    subject.take(cx);
    subject
}

/// The front matter (`None` when the file has none) and the byte the body starts
/// at; `None` when a front matter is opened and never closed.
fn split_front_matter(text: &str) -> Option<(Option<&str>, usize)> {
    let first_end = text.find('\n').map_or(text.len(), |i| i + 1);
    if text[..first_end].trim_end() != "---" {
        return Some((None, 0));
    }
    let mut at = first_end;
    while at < text.len() {
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
        if text[at..end].trim_end() == "---" {
            return Some((Some(&text[first_end..at]), end));
        }
        at = end;
    }
    None
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
    fn an_unclosed_front_matter_is_a_problem() {
        let s = from_prompt("p.prompt".into(), "---\nname: x\nHello\n".into());
        assert!(s.body.is_none());
        assert!(s.problems[0].1.contains("never closed"));
    }
}
