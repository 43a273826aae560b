//! One PromptKind template: its JSON format (`id`, `title`, `template`, `slots`, …)
//! or a `.prompt` file, with a plain `{{slot}}` body or a dotprompt one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::{Map, Value as Json};

use crate::doc::{
    Checker, Diagnostic, Diagnostics, Loaded, Pos, Rejected, finish, locate_in_json_string,
    parse_json, suggest,
};
use crate::dotprompt::{self, Message, NoPartials, RenderEnv, Rendered};
use crate::template::Template;

use super::prompt_file::read_prompt_file;
use super::slots::Slot;
use super::template_check::{pos_at, resolve};

#[derive(Debug, Clone)]
pub struct PromptTemplate {
    pub path: PathBuf,
    pub id: String,
    pub title: String,
    pub description: String,
    pub body: Body,
    /// A plain template needs every slot filled, with a value its rules accept; a
    /// dotprompt one applies the rules of the slots it is given.
    pub slots: Vec<Slot>,
    pub tags: Vec<String>,
    pub owner: String,
    pub auditable: bool,
    pub version: Option<String>,
    pub metadata: Json,
    /// dotprompt's `input.default`.
    pub input_default: Map<String, Json>,
    /// dotprompt's `input.schema`, as JSON Schema.
    pub input_schema: Option<Json>,
    pub(super) text: String,
    pub(super) origin: Origin,
    /// The template as the library stores it.
    pub(super) library: Json,
}

/// The template's text, parsed.
#[derive(Debug, Clone)]
pub enum Body {
    /// `{{slot}}` and nothing else.
    Plain(Template),
    /// dotprompt's language.
    Dotprompt(Arc<dotprompt::Template>),
}

/// Where the template's text stands in the file it was read from.
#[derive(Debug, Clone)]
pub(super) enum Origin {
    /// A JSON string starting at this node (escapes move positions).
    JsonString { offset: usize, pos: Pos },
    /// Verbatim from this byte on (a `.prompt` file's body).
    Verbatim { start: usize },
}

impl PromptTemplate {
    fn file_pos(&self, at: usize) -> Pos {
        match self.origin {
            Origin::JsonString { offset, pos } => {
                locate_in_json_string(&self.text, offset, pos, at)
            }
            Origin::Verbatim { start } => pos_at(&self.text, start + at),
        }
    }

    /// Whether the template is in dotprompt's language.
    pub fn is_dotprompt(&self) -> bool {
        matches!(self.body, Body::Dotprompt(_))
    }

    /// Renders the template into one text, with no partials and no history.
    pub fn render(&self, inputs: &IndexMap<String, Json>) -> Result<String, Diagnostics> {
        let env = RenderEnv {
            partials: &NoPartials,
            history: &[],
        };
        self.render_with(inputs, &env).map(|r| r.text())
    }

    /// Renders the template into messages: a plain one is a single user message.
    pub fn render_with(
        &self,
        inputs: &IndexMap<String, Json>,
        env: &RenderEnv<'_>,
    ) -> Result<Rendered, Diagnostics> {
        let mut problems = self.check_inputs(inputs);
        match &self.body {
            Body::Plain(template) => {
                let values: HashMap<String, String> = inputs
                    .iter()
                    .map(|(k, v)| (k.clone(), plain_text(v)))
                    .collect();
                match template.render(&values) {
                    Ok(text) if !problems.has_errors() => {
                        return Ok(Rendered {
                            messages: vec![Message::new("user", text)],
                        });
                    }
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
            Body::Dotprompt(template) => {
                let data = self.input_data(inputs, &mut problems);
                if problems.has_errors() {
                    return Err(problems);
                }
                template.render(&data, env).map_err(|e| {
                    let (file, pos) = match &e.partial {
                        None => (self.path.clone(), self.file_pos(e.offset)),
                        Some(name) => (PathBuf::from(format!("partial `{name}`")), e.pos),
                    };
                    Diagnostic::error(&file, pos, e.to_string()).into()
                })
            }
        }
    }

    /// Every input names a slot (or a declared input of a dotprompt template) and
    /// passes its rules.
    fn check_inputs(&self, inputs: &IndexMap<String, Json>) -> Diagnostics {
        let mut problems = Diagnostics::default();
        let declared = self.declared_inputs();
        for (name, value) in inputs {
            match self.slot(name) {
                Some(slot) => {
                    if let Some(why) = slot.refuse(&plain_text(value)) {
                        problems.push(Diagnostic::plain(why));
                    }
                }
                None if declared.as_ref().is_none_or(|d| d.contains(&name.as_str())) => {}
                None => {
                    let names = declared.iter().flatten().copied();
                    let hint = suggest(name, names);
                    problems.push(Diagnostic::plain(format!(
                        "template `{}` has no slot `{name}`{hint}",
                        self.id
                    )));
                }
            }
        }
        problems
    }

    /// The names inputs may have: the slots, and a dotprompt template's schema and
    /// defaults. `None`: a dotprompt template that declares nothing takes anything.
    pub fn declared_inputs(&self) -> Option<Vec<&str>> {
        match self.body {
            Body::Plain(_) => Some(self.slots.iter().map(|s| s.name.as_str()).collect()),
            Body::Dotprompt(_) => {
                declared_names(&self.slots, self.input_schema.as_ref(), &self.input_default)
            }
        }
    }

    /// A dotprompt template's data: its defaults with the inputs laid over them, text
    /// values read as the schema's numbers and booleans, checked against the schema.
    fn input_data(&self, inputs: &IndexMap<String, Json>, problems: &mut Diagnostics) -> Json {
        let mut data = self.input_default.clone();
        let properties = self
            .input_schema
            .as_ref()
            .and_then(|s| s.get("properties"))
            .and_then(Json::as_object);
        for (name, value) in inputs {
            let wanted = properties
                .and_then(|p| p.get(name))
                .and_then(|s| s.get("type"))
                .and_then(Json::as_str);
            data.insert(name.clone(), typed(value, wanted));
        }
        let data = Json::Object(data);
        if let Some(schema) = &self.input_schema {
            match jsonschema::validator_for(schema) {
                Ok(validator) => {
                    for error in validator.iter_errors(&data) {
                        let at = error.instance_path().to_string();
                        let at = if at.is_empty() {
                            "the input".to_string()
                        } else {
                            format!("input `{at}`")
                        };
                        problems.push(Diagnostic::plain(format!(
                            "template `{}`: {at}: {error}",
                            self.id
                        )));
                    }
                }
                Err(e) => problems.push(Diagnostic::plain(format!(
                    "template `{}`: input.schema is not a valid JSON Schema: {e}",
                    self.id
                ))),
            }
        }
        data
    }

    pub fn slot(&self, name: &str) -> Option<&Slot> {
        self.slots.iter().find(|s| s.name == name)
    }

    /// The file's text, as it was read.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// The input names a dotprompt template declares: its slots, its schema's properties
/// and its defaults; `None` when neither slots nor a schema declare any.
pub(super) fn declared_names<'a>(
    slots: &'a [Slot],
    schema: Option<&'a Json>,
    default: &'a Map<String, Json>,
) -> Option<Vec<&'a str>> {
    let properties = schema
        .and_then(|s| s.get("properties"))
        .and_then(Json::as_object);
    if slots.is_empty() && properties.is_none() {
        return None;
    }
    let mut names: Vec<&str> = slots.iter().map(|s| s.name.as_str()).collect();
    names.extend(
        properties
            .into_iter()
            .flat_map(|p| p.keys().map(String::as_str)),
    );
    names.extend(default.keys().map(String::as_str));
    Some(names)
}

/// A text value (from `--var`) as the number or boolean the schema asks for, when it
/// reads as one.
fn typed(value: &Json, wanted: Option<&str>) -> Json {
    let Json::String(text) = value else {
        return value.clone();
    };
    let read = match wanted {
        Some("integer") => text.parse::<i64>().ok().map(Json::from),
        Some("number") => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Json::Number),
        Some("boolean") => text.parse::<bool>().ok().map(Json::Bool),
        _ => None,
    };
    read.unwrap_or_else(|| value.clone())
}

/// A value as the text that goes into a plain template.
pub fn plain_text(value: &Json) -> String {
    match value {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Reads and checks a template file: a `.prompt` file, or PromptKind JSON.
pub fn load_template_file(path: &Path) -> Result<Loaded<PromptTemplate>, Rejected> {
    let text = std::fs::read_to_string(path).map_err(|err| {
        Rejected(Diagnostic::whole_file(path, format!("cannot read file: {err}")).into())
    })?;
    if is_prompt_file(path) {
        parse_prompt_template(path, &text)
    } else {
        parse_template(path, &text)
    }
}

/// Whether `path` names a `.prompt` file.
pub fn is_prompt_file(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("prompt"))
}

/// Checks a template's JSON `text`; `path` names it in messages.
pub fn parse_template(path: &Path, text: &str) -> Result<Loaded<PromptTemplate>, Rejected> {
    let root = parse_json(path, text).map_err(|d| Rejected(d.into()))?;
    let mut cx = Checker::new(path, text);
    let origin = Origin::JsonString {
        offset: 0,
        pos: Pos::START,
    };
    match resolve(&root, path, &mut cx, origin) {
        Some(t) => finish(t, cx.diagnostics),
        None => Err(Rejected(cx.diagnostics)),
    }
}

/// Checks a `.prompt` file's `text`; `path` names it in messages.
pub fn parse_prompt_template(path: &Path, text: &str) -> Result<Loaded<PromptTemplate>, Rejected> {
    let tree = read_prompt_file(path, text).map_err(|d| Rejected(d.into()))?;
    let mut cx = Checker::new(path, text);
    let origin = Origin::Verbatim {
        start: tree.body_start,
    };
    match resolve(&tree.root, path, &mut cx, origin) {
        Some(t) => finish(t, cx.diagnostics),
        None => Err(Rejected(cx.diagnostics)),
    }
}

impl PromptTemplate {
    /// The template as the library stores it (a `.prompt` file's keys under their
    /// library names).
    pub fn library_json(&self) -> &Json {
        &self.library
    }
}
