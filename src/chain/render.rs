//! A step's prompt rendered into the messages its model call shows: a plain
//! `{{slot}}` template is one user message; a dotprompt template (`"format":
//! "dotprompt"`) renders its own roles, over its `input.default`, with partials
//! taken from the library.

use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::{Map, Value as Json};

use crate::dotprompt::{self, Partials, RenderEnv};
use crate::library::{Library, PromptTemplate, StoredPrompt, parse_template};

use super::record::RenderedMessage;

/// A library prompt ready to render.
pub(crate) enum Body {
    Plain(Box<PromptTemplate>),
    Dotprompt(Dotprompt),
}

pub(crate) struct Dotprompt {
    template: dotprompt::Template,
    defaults: Map<String, Json>,
    /// Every name the input may have: the template's variables, the schema's
    /// properties and the defaults.
    names: Vec<String>,
    sensitive: Vec<String>,
}

/// Why a prompt cannot be rendered, or a render failed.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub(crate) struct RenderFailed(pub String);

impl Body {
    /// The stored prompt's template, parsed.
    pub(crate) fn of(stored: &StoredPrompt) -> Result<Body, RenderFailed> {
        let content = &stored.content;
        if content.get("format").and_then(Json::as_str) == Some("dotprompt") {
            return dotprompt_body(content).map(Body::Dotprompt);
        }
        let label = std::path::PathBuf::from(format!("{}@v{}", stored.id, stored.version));
        match parse_template(&label, &content.to_string()) {
            Ok(loaded) => Ok(Body::Plain(Box::new(loaded.value))),
            Err(rejected) => Err(RenderFailed(
                rejected
                    .0
                    .iter()
                    .next()
                    .map(|d| d.message.clone())
                    .unwrap_or_default(),
            )),
        }
    }

    /// The names a binding may give; for a plain template, each slot (all required).
    pub(crate) fn names(&self) -> Vec<&str> {
        match self {
            Body::Plain(t) => t.slots.iter().map(|s| s.name.as_str()).collect(),
            Body::Dotprompt(d) => d.names.iter().map(String::as_str).collect(),
        }
    }

    /// Whether every name must be bound (a plain template's slots must).
    pub(crate) fn all_required(&self) -> bool {
        matches!(self, Body::Plain(_))
    }

    /// Whether the audit log redacts the value of `name`.
    pub(crate) fn sensitive(&self, name: &str) -> bool {
        match self {
            Body::Plain(t) => t.slot(name).is_some_and(|s| s.sensitive),
            Body::Dotprompt(d) => d.sensitive.iter().any(|s| s == name),
        }
    }

    /// The messages the step's model call shows.
    pub(crate) fn render(
        &self,
        values: &IndexMap<String, Json>,
        library: &Library,
    ) -> Result<Vec<RenderedMessage>, RenderFailed> {
        match self {
            Body::Plain(t) => {
                let text = t.render(values).map_err(|problems| {
                    let said: Vec<String> = problems.iter().map(|d| d.message.clone()).collect();
                    RenderFailed(said.join("; "))
                })?;
                Ok(vec![RenderedMessage {
                    role: "user".into(),
                    text,
                }])
            }
            Body::Dotprompt(d) => {
                let mut input = d.defaults.clone();
                for (name, value) in values {
                    input.insert(name.clone(), value.clone());
                }
                let env = RenderEnv {
                    partials: &LibraryPartials(library),
                    history: &[],
                };
                let rendered = d
                    .template
                    .render(&Json::Object(input), &env)
                    .map_err(|err| match &err.partial {
                        Some(partial) => {
                            RenderFailed(format!("partial `{partial}` at {}: {err}", err.pos))
                        }
                        None => RenderFailed(format!("template at {}: {err}", err.pos)),
                    })?;
                Ok(rendered
                    .messages
                    .into_iter()
                    .map(|m| RenderedMessage {
                        role: m.role,
                        text: m.text,
                    })
                    .collect())
            }
        }
    }
}

fn dotprompt_body(content: &Json) -> Result<Dotprompt, RenderFailed> {
    let text = content
        .get("template")
        .and_then(Json::as_str)
        .ok_or_else(|| RenderFailed("it has no `template` text".into()))?;
    let template = dotprompt::Template::parse(text).map_err(|errors| {
        let first = errors.first().map(|e| format!("{}: {e}", e.pos));
        RenderFailed(format!("template {}", first.unwrap_or_default()))
    })?;
    let input = content.get("input");
    let defaults = input
        .and_then(|i| i.get("default"))
        .and_then(Json::as_object)
        .cloned()
        .unwrap_or_default();
    let mut names: Vec<String> = template.variables().into_iter().map(|v| v.name).collect();
    names.extend(defaults.keys().cloned());
    if let Some(schema) = input.and_then(|i| i.get("schema")) {
        // JSON Schema properties, or Picoschema's `name?(description): type` keys.
        let keys = schema
            .get("properties")
            .and_then(Json::as_object)
            .or_else(|| schema.as_object());
        for key in keys.into_iter().flat_map(|m| m.keys()) {
            let name = key.split(['?', '(', ' ']).next().unwrap_or(key);
            names.push(name.to_string());
        }
    }
    names.sort();
    names.dedup();
    let sensitive = content
        .get("slots")
        .and_then(Json::as_array)
        .into_iter()
        .flatten()
        .filter(|slot| slot.get("sensitive") == Some(&Json::Bool(true)))
        .filter_map(|slot| slot.get("name").and_then(Json::as_str).map(str::to_string))
        .collect();
    Ok(Dotprompt {
        template,
        defaults,
        names,
        sensitive,
    })
}

/// `{{> name}}`: the latest version of the library prompt `name`.
struct LibraryPartials<'a>(&'a Library);

impl Partials for LibraryPartials<'_> {
    fn partial(&self, name: &str) -> Option<Arc<dotprompt::Template>> {
        let stored = self.0.get(name, None).ok()?;
        let text = stored.content.get("template")?.as_str()?;
        dotprompt::Template::parse(text).ok().map(Arc::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_dotprompt_prompt_renders_its_roles_over_its_defaults_with_library_partials() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut library = Library::open(&dir.path().join("lib.db")).expect("library");
        library
            .add(
                &json!({"id": "house-rules", "title": "House rules", "format": "dotprompt",
                        "template": "Be brief with {{name}}."}),
                "test",
            )
            .expect("partial");
        let stored = library
            .add(
                &json!({
                    "id": "reply", "title": "Reply", "format": "dotprompt",
                    "template": "{{role \"system\"}}{{> house-rules}}{{role \"user\"}}{{#if urgent}}URGENT: {{/if}}{{ticket}}",
                    "input": {"default": {"name": "the customer"}, "schema": {"ticket": "string", "urgent?": "boolean"}},
                    "slots": [{"name": "ticket", "sensitive": true}]
                }),
                "test",
            )
            .expect("prompt");
        let body = Body::of(&stored).expect("parses");
        assert_eq!(body.names(), ["name", "ticket", "urgent"]);
        assert!(!body.all_required());
        assert!(body.sensitive("ticket") && !body.sensitive("name"));
        let values: IndexMap<String, Json> = [
            ("ticket".to_string(), json!("{{name}} is down")),
            ("urgent".to_string(), json!(true)),
        ]
        .into_iter()
        .collect();
        let rendered = body.render(&values, &library).expect("renders");
        let got: Vec<(&str, &str)> = rendered
            .iter()
            .map(|m| (m.role.as_str(), m.text.as_str()))
            .collect();
        // A value is inserted as it is, never read as template text.
        assert_eq!(
            got,
            [
                ("system", "Be brief with the customer."),
                ("user", "URGENT: {{name}} is down")
            ]
        );
    }
}
