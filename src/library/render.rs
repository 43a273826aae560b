//! A stored prompt rendered the way every command renders one: its template (plain
//! `{{slot}}` or dotprompt) over the given inputs, with `{{> name}}` partials taken
//! from the library, and its use recorded in the audit log with the values of
//! sensitive slots redacted.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::{Map, Value as Json};

use crate::doc::{Diagnostics, Rejected};
use crate::dotprompt::{self, Message, Partials, RenderEnv};

use super::store::{AuditRecord, Library, LibraryError, PromptUse, StoredPrompt};
use super::template_file::{PromptTemplate, parse_template};

/// A library prompt, rendered.
#[derive(Debug, Clone)]
pub struct RenderedPrompt {
    pub id: String,
    pub version: u64,
    /// The version's content hash, as the library stores it.
    pub content_hash: String,
    /// A plain template is one user message; a dotprompt one has its own roles.
    pub messages: Vec<Message>,
    /// Every message's text, one after the other.
    pub text: String,
    /// Whether the prompt asks for each render to be audited.
    pub auditable: bool,
    /// The inputs as the audit log keeps them (sensitive slots redacted).
    pub variables: Json,
}

/// Why a library prompt was not rendered.
#[derive(Debug, thiserror::Error)]
pub enum RenderFailure {
    #[error(transparent)]
    Library(#[from] LibraryError),
    /// The stored template does not read, or the inputs do not fit it.
    #[error("prompt `{id}` cannot be rendered")]
    Template { id: String, problems: Diagnostics },
}

/// `{{> name}}`: the latest version of the library prompt `name`. A partial is a
/// dotprompt template or a plain one (whose text reads the same in dotprompt). Each
/// is read once per render, however often it is included.
pub struct LibraryPartials<'a> {
    library: &'a Library,
    read: RefCell<HashMap<String, Option<Arc<dotprompt::Template>>>>,
}

impl<'a> LibraryPartials<'a> {
    pub fn new(library: &'a Library) -> Self {
        LibraryPartials {
            library,
            read: RefCell::default(),
        }
    }
}

impl Partials for LibraryPartials<'_> {
    fn partial(&self, name: &str) -> Option<Arc<dotprompt::Template>> {
        if let Some(known) = self.read.borrow().get(name) {
            return known.clone();
        }
        let found = self.library.get(name, None).ok().and_then(|stored| {
            let text = stored.content.get("template")?.as_str()?;
            dotprompt::Template::parse(text).ok().map(Arc::new)
        });
        self.read
            .borrow_mut()
            .insert(name.to_string(), found.clone());
        found
    }
}

/// The stored prompt's template, read and checked.
pub fn stored_template(stored: &StoredPrompt) -> Result<PromptTemplate, RenderFailure> {
    let label = PathBuf::from(format!("{}@v{}", stored.id, stored.version));
    parse_template(&label, &stored.content.to_string())
        .map(|loaded| loaded.value)
        .map_err(|Rejected(problems)| RenderFailure::Template {
            id: stored.id.clone(),
            problems,
        })
}

/// Renders version `version` (else the latest) of prompt `id` over `inputs`,
/// without recording anything.
pub fn render_prompt(
    lib: &Library,
    id: &str,
    version: Option<u64>,
    inputs: &IndexMap<String, Json>,
) -> Result<RenderedPrompt, RenderFailure> {
    render(lib, id, version, inputs, false)
}

/// Renders as [`render_prompt`] does, over only those of `inputs` the template
/// takes: its slots and a dotprompt template's declared inputs (a dotprompt
/// template that declares none takes them all). A run's variables feed its pack
/// as well as the library prompt.
pub fn render_prompt_taking(
    lib: &Library,
    id: &str,
    version: Option<u64>,
    inputs: &IndexMap<String, Json>,
) -> Result<RenderedPrompt, RenderFailure> {
    render(lib, id, version, inputs, true)
}

fn render(
    lib: &Library,
    id: &str,
    version: Option<u64>,
    inputs: &IndexMap<String, Json>,
    only_taken: bool,
) -> Result<RenderedPrompt, RenderFailure> {
    let stored = lib.get(id, version)?;
    let template = stored_template(&stored)?;
    let taken;
    let inputs = if only_taken {
        taken = taken_inputs(&template, inputs);
        &taken
    } else {
        inputs
    };
    let env = RenderEnv {
        partials: &LibraryPartials::new(lib),
        history: &[],
    };
    let rendered =
        template
            .render_with(inputs, &env)
            .map_err(|problems| RenderFailure::Template {
                id: id.to_string(),
                problems,
            })?;
    Ok(RenderedPrompt {
        id: stored.id,
        version: stored.version,
        content_hash: stored.content_hash,
        text: rendered.text(),
        messages: rendered.messages,
        auditable: template.auditable,
        variables: redacted(&template, inputs),
    })
}

/// Renders a library prompt as [`render_prompt`] does and, when the prompt is
/// `auditable`, records the use for `purpose` by `who`.
pub fn render_stored(
    lib: &mut Library,
    id: &str,
    version: Option<u64>,
    inputs: &IndexMap<String, Json>,
    who: &str,
    purpose: &str,
) -> Result<RenderedPrompt, RenderFailure> {
    let rendered = render_prompt(lib, id, version, inputs)?;
    if rendered.auditable {
        record_prompt_use(lib, &rendered, who, purpose, None, None)?;
    }
    Ok(rendered)
}

/// Appends a use of the rendered prompt to the audit log.
pub fn record_prompt_use(
    lib: &mut Library,
    rendered: &RenderedPrompt,
    who: &str,
    purpose: &str,
    success: Option<bool>,
    checks: Option<(u64, u64)>,
) -> Result<AuditRecord, LibraryError> {
    lib.record_use(&PromptUse {
        who,
        prompt_id: &rendered.id,
        version: rendered.version,
        content_hash: rendered.content_hash.clone(),
        variables: rendered.variables.clone(),
        purpose,
        success,
        checks,
    })
}

/// Those of `inputs` the template takes.
fn taken_inputs(
    template: &PromptTemplate,
    inputs: &IndexMap<String, Json>,
) -> IndexMap<String, Json> {
    let Some(declared) = template.declared_inputs() else {
        return inputs.clone();
    };
    inputs
        .iter()
        .filter(|(name, _)| declared.contains(&name.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The inputs with the value of each sensitive slot replaced by `[redacted]`.
pub fn redacted(template: &PromptTemplate, inputs: &IndexMap<String, Json>) -> Json {
    let values: Map<String, Json> = inputs
        .iter()
        .map(|(name, value)| {
            let value = if template.slot(name).is_some_and(|s| s.sensitive) {
                Json::String("[redacted]".into())
            } else {
                value.clone()
            };
            (name.clone(), value)
        })
        .collect();
    Json::Object(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn library() -> (tempfile::TempDir, Library) {
        let dir = tempfile::tempdir().expect("temp dir");
        let lib = Library::open(&dir.path().join("lib.db")).expect("library");
        (dir, lib)
    }

    fn inputs(pairs: &[(&str, Json)]) -> IndexMap<String, Json> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn a_dotprompt_prompt_renders_its_roles_with_library_partials() {
        let (_dir, mut lib) = library();
        lib.add(
            &json!({"id": "rules", "title": "Rules", "template": "Be brief."}),
            "test",
        )
        .expect("partial");
        lib.add(
            &json!({"id": "reply", "title": "Reply", "format": "dotprompt",
                    "template": "{{role \"system\"}}{{> rules}} Tone: {{tone}}.{{role \"user\"}}{{ticket}}",
                    "input": {"default": {"tone": "calm"}},
                    "slots": [{"name": "ticket", "sensitive": true}],
                    "auditable": true}),
            "test",
        )
        .expect("prompt");
        let got = render_stored(
            &mut lib,
            "reply",
            None,
            &inputs(&[("ticket", json!("it broke"))]),
            "tester",
            "render",
        )
        .expect("renders");
        let roles: Vec<(&str, &str)> = got
            .messages
            .iter()
            .map(|m| (m.role.as_str(), m.text.as_str()))
            .collect();
        assert_eq!(
            roles,
            [("system", "Be brief. Tone: calm."), ("user", "it broke")]
        );
        assert_eq!(got.version, 1);
        let audit = lib.audit(Some("reply"), None).expect("audit");
        assert_eq!(audit.len(), 1);
        assert_eq!(audit[0].variables, json!({"ticket": "[redacted]"}));
        assert_eq!(audit[0].purpose.as_deref(), Some("render"));
        assert_eq!(
            audit[0].content_hash.as_deref(),
            Some(got.content_hash.as_str())
        );
    }

    #[test]
    fn a_plain_prompt_is_one_user_message_and_is_not_audited_unless_auditable() {
        let (_dir, mut lib) = library();
        lib.add(
            &json!({"id": "greet", "title": "Greet", "template": "Hello {{name}}",
                    "slots": [{"name": "name"}]}),
            "test",
        )
        .expect("prompt");
        let got = render_stored(
            &mut lib,
            "greet",
            Some(1),
            &inputs(&[("name", json!("Ada"))]),
            "tester",
            "render",
        )
        .expect("renders");
        assert_eq!(got.text, "Hello Ada");
        assert_eq!(got.messages.len(), 1);
        assert_eq!(got.messages[0].role, "user");
        assert!(lib.audit(Some("greet"), None).expect("audit").is_empty());
        let missing = render_prompt(&lib, "greet", Some(7), &inputs(&[]));
        assert!(matches!(
            missing,
            Err(RenderFailure::Library(LibraryError::NoVersion { .. }))
        ));
        let unfilled = render_prompt(&lib, "greet", None, &inputs(&[]));
        assert!(matches!(unfilled, Err(RenderFailure::Template { .. })));
    }
}
