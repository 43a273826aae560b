//! `.prompt` files (dotprompt): YAML front matter between `---` lines, then the
//! template. PromptKind's own fields live in the front matter as dotprompt extension
//! keys (`promptkind.title`, `promptkind.tags`, …), so Genkit and other dotprompt
//! readers keep them, and a library prompt goes to a file and back unchanged.

use std::path::Path;

use serde_json::{Map, Value as Json};

use crate::doc::{Diagnostic, Key, Node, Pos, Value, parse_yaml};

use super::template_check::pos_at;
use super::yaml_out::write_yaml;

/// The front-matter keys that are library JSON keys under another name, in the order
/// a written file lists them after dotprompt's own keys.
const RENAMED: &[(&str, &str)] = &[
    ("name", "id"),
    ("promptkind.title", "title"),
    ("promptkind.owner", "owner"),
    ("promptkind.tags", "tags"),
    ("promptkind.auditable", "auditable"),
    ("promptkind.slots", "slots"),
    ("promptkind.created_at", "created_at"),
    ("promptkind.updated_at", "updated_at"),
];

/// dotprompt's own keys, in the order a written file lists them.
const DOTPROMPT_ORDER: &[&str] = &[
    "description",
    "version",
    "variant",
    "model",
    "config",
    "input",
    "output",
    "tools",
    "toolDefs",
    "raw",
    "ext",
    "metadata",
];

/// `promptkind.format: plain` marks a plain `{{slot}}` template; without it the
/// template is dotprompt's language.
const FORMAT_KEY: &str = "promptkind.format";

/// A `.prompt` file read as the tree of a library template: front-matter keys under
/// their library names, the template at the byte where it starts in the file.
pub(super) struct PromptFileTree {
    pub root: Node,
    /// Byte offset of the template in the file.
    pub body_start: usize,
}

/// Reads `text` (the file at `path`) into the tree a library template is checked from.
pub(super) fn read_prompt_file(path: &Path, text: &str) -> Result<PromptFileTree, Diagnostic> {
    let (front, body_start) = split(text).ok_or_else(|| {
        Diagnostic::error(
            path,
            Pos::START,
            "the front matter opened by `---` is never closed by a `---` line",
        )
    })?;
    let mut entries: Vec<(Key, Node)> = Vec::new();
    let mut format = "dotprompt".to_string();
    if let Some(FrontMatter {
        text: front_text,
        start: front_start,
    }) = front
    {
        let node = if front_text.trim().is_empty() {
            None
        } else {
            let mut node = parse_yaml(path, front_text).map_err(|d| shifted(d, FRONT_LINE))?;
            shift(&mut node, front_start, FRONT_LINE);
            Some(node)
        };
        match node.map(|n| (n.pos, n.value)) {
            None | Some((_, Value::Null)) => {}
            Some((_, Value::Map(found))) => {
                for (mut key, value) in found {
                    if key.name == FORMAT_KEY {
                        format = value.as_str().unwrap_or("?").to_string();
                        if format != "plain" && format != "dotprompt" {
                            return Err(Diagnostic::error(
                                path,
                                value.pos,
                                format!(
                                    "`{FORMAT_KEY}` is `plain` or `dotprompt`, found {}",
                                    value.kind()
                                ),
                            ));
                        }
                        continue;
                    }
                    if let Some((_, library)) = RENAMED.iter().find(|(k, _)| *k == key.name) {
                        key.name = (*library).to_string();
                    }
                    entries.push((key, value));
                }
            }
            Some((pos, _)) => {
                return Err(Diagnostic::error(
                    path,
                    pos,
                    "the front matter is a mapping of keys",
                ));
            }
        }
    }
    let body_pos = pos_at(text, body_start);
    let stem = id_of_file(path);
    let has = |name: &str, entries: &[(Key, Node)]| entries.iter().any(|(k, _)| k.name == name);
    if !has("id", &entries) {
        entries.push(synthetic("id", Value::Str(stem), body_pos, body_start));
    }
    if !has("title", &entries) {
        let id = entries
            .iter()
            .find(|(k, _)| k.name == "id")
            .and_then(|(_, n)| n.as_str())
            .unwrap_or_default();
        entries.push(synthetic(
            "title",
            Value::Str(id.to_string()),
            body_pos,
            body_start,
        ));
    }
    if format == "dotprompt" {
        entries.push(synthetic(
            "format",
            Value::Str(format),
            body_pos,
            body_start,
        ));
    }
    entries.push(synthetic(
        "template",
        Value::Str(text[body_start..].to_string()),
        body_pos,
        body_start,
    ));
    Ok(PromptFileTree {
        root: Node {
            pos: Pos::START,
            offset: 0,
            value: Value::Map(entries),
        },
        body_start,
    })
}

/// A file's front matter: its text, and the byte it starts at (on the file's line 2).
#[derive(Debug, PartialEq, Eq)]
struct FrontMatter<'t> {
    text: &'t str,
    start: usize,
}

/// The line a front matter starts on, after its opening `---`.
const FRONT_LINE: u32 = 2;

/// The front matter, if any, and where the template starts; `None` when a front
/// matter is opened and never closed.
fn split(text: &str) -> Option<(Option<FrontMatter<'_>>, usize)> {
    let Some(after_open) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Some((None, 0));
    };
    let start = text.len() - after_open.len();
    let mut line_start = start;
    for line in after_open.split_inclusive('\n') {
        if line.trim_end_matches(['\n', '\r']) == "---" {
            let body = line_start + line.len();
            let front = FrontMatter {
                text: &text[start..line_start],
                start,
            };
            return Some((Some(front), body));
        }
        line_start += line.len();
    }
    None
}

fn synthetic(name: &str, value: Value, pos: Pos, offset: usize) -> (Key, Node) {
    (
        Key {
            name: name.to_string(),
            pos,
            offset,
        },
        Node { pos, offset, value },
    )
}

/// Positions in the front matter's own text moved to where it stands in the file.
fn shift(node: &mut Node, bytes: usize, first_line: u32) {
    node.pos.line += first_line - 1;
    node.offset += bytes;
    match &mut node.value {
        Value::Seq(items) => items.iter_mut().for_each(|n| shift(n, bytes, first_line)),
        Value::Map(entries) => {
            for (key, value) in entries {
                key.pos.line += first_line - 1;
                key.offset += bytes;
                shift(value, bytes, first_line);
            }
        }
        _ => {}
    }
}

fn shifted(mut d: Diagnostic, first_line: u32) -> Diagnostic {
    if let Some(pos) = &mut d.pos {
        pos.line += first_line - 1;
    }
    d
}

/// The `.prompt` text of a library template: deterministic, so that a changed prompt
/// is a small diff.
pub fn to_prompt_file(template: &Json) -> String {
    let Some(fields) = template.as_object() else {
        return String::new();
    };
    let mut front = Map::new();
    let library_name = |key: &str| RENAMED.iter().find(|(_, l)| *l == key).map(|(k, _)| *k);
    if let Some(id) = fields.get("id") {
        front.insert("name".into(), id.clone());
    }
    for key in DOTPROMPT_ORDER {
        if let Some(value) = fields.get(*key) {
            front.insert((*key).to_string(), value.clone());
        }
    }
    let mut others: Vec<(&String, &Json)> = fields
        .iter()
        .filter(|(k, _)| {
            !DOTPROMPT_ORDER.contains(&k.as_str())
                && library_name(k).is_none()
                && !matches!(k.as_str(), "template" | "format")
        })
        .collect();
    others.sort_by(|a, b| a.0.cmp(b.0));
    for (key, value) in others {
        front.insert(key.clone(), value.clone());
    }
    for (file_key, library_key) in RENAMED.iter().skip(1) {
        if let Some(value) = fields.get(*library_key) {
            front.insert((*file_key).to_string(), value.clone());
        }
    }
    if fields.get("format").and_then(Json::as_str) != Some("dotprompt") {
        front.insert(FORMAT_KEY.into(), Json::from("plain"));
    }
    let body = fields
        .get("template")
        .and_then(Json::as_str)
        .unwrap_or_default();
    format!("---\n{}---\n{body}", write_yaml(&Json::Object(front)))
}

/// A file name for a prompt id: characters other than letters, digits, `-`, `_` and
/// `.` (and a leading `.`) written as `%XX`, so any id has a file of its own.
pub fn file_name_for(id: &str) -> String {
    let mut out = String::new();
    for (i, byte) in id.bytes().enumerate() {
        let plain =
            byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_') || (byte == b'.' && i > 0);
        if plain {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    format!("{out}.prompt")
}

/// The id of a `.prompt` file whose front matter names none: its file name, `%XX`
/// decoded.
pub(super) fn id_of_file(path: &Path) -> String {
    path.file_stem()
        .map(|s| decode_file_name(&s.to_string_lossy()))
        .unwrap_or_default()
}

/// The id a file name stands for when its front matter names none.
fn decode_file_name(stem: &str) -> String {
    let bytes = stem.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn odd_ids_get_file_names_that_decode_back() {
        for id in ["greet", "team/greet v2", ".hidden", "ünï"] {
            let name = file_name_for(id);
            assert!(!name.contains('/') && !name.starts_with('.'), "{name}");
            assert_eq!(decode_file_name(name.trim_end_matches(".prompt")), id);
        }
    }

    #[test]
    fn a_template_is_written_with_dotprompt_keys_first_and_promptkind_keys_last() {
        let text = to_prompt_file(&json!({
            "id": "greet", "title": "Greeting", "template": "Hi {{name}}\n",
            "format": "dotprompt", "tags": ["a"], "description": "says hi",
            "input": {"schema": {"name": "string"}},
        }));
        assert_eq!(
            text,
            "---\nname: greet\ndescription: says hi\ninput:\n  schema:\n    name: string\npromptkind.title: Greeting\npromptkind.tags:\n  - a\n---\nHi {{name}}\n"
        );
    }

    #[test]
    fn the_front_matter_is_split_at_its_closing_line() {
        let (front, body) = split("---\na: 1\n---\nbody\n").expect("closed");
        assert_eq!(front.map(|f| f.text), Some("a: 1\n"));
        assert_eq!(body, 13);
        assert_eq!(split("no front matter"), Some((None, 0)));
        assert_eq!(split("---\nname: x\nbody\n"), None);
    }
}
