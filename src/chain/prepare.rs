//! Before any model call: each step's prompt found in the library and its slots
//! matched with the step's bindings, and the chain's inputs given their values.

use indexmap::IndexMap;
use serde_json::Value as Json;

use crate::doc::{Diagnostic, Diagnostics, suggest};
use crate::library::{
    Library, LibraryError, PromptTemplate, RenderFailure, StoredPrompt, stored_template,
};

use super::Chain;

/// Every step's prompt at the version it plays, in step order, its template read and
/// the step's bindings checked against it; each problem at the step that names it.
pub(crate) fn prepare(chain: &Chain, lib: &Library) -> Result<Vec<StoredPrompt>, Diagnostics> {
    let mut problems = Diagnostics::default();
    let mut prepared = Vec::new();
    let mut known: Option<Vec<String>> = None;
    for (i, step) in chain.steps.iter().enumerate() {
        let what = format!("steps[{i}].prompt");
        let at = |message: String| Diagnostic::error(&chain.path, step.prompt.pos, message);
        let stored = match lib.get(&step.prompt.id, step.prompt.version) {
            Ok(stored) => stored,
            Err(LibraryError::NotFound(id)) => {
                let ids = known.get_or_insert_with(|| {
                    lib.list(&[])
                        .map(|all| all.into_iter().map(|p| p.id).collect())
                        .unwrap_or_default()
                });
                let hint = suggest(&id, ids.iter().map(String::as_str));
                problems.push(at(format!(
                    "{what}: the library has no prompt `{id}`{hint}"
                )));
                continue;
            }
            Err(err) => {
                problems.push(at(format!("{what}: {err}")));
                continue;
            }
        };
        let template = match stored_template(&stored) {
            Ok(template) => template,
            Err(err) => {
                problems.push(at(format!(
                    "{what}: prompt `{}` v{} cannot be rendered: {}",
                    stored.id,
                    stored.version,
                    failure(&err)
                )));
                continue;
            }
        };
        check_slots(chain, i, &template, &mut problems);
        prepared.push(stored);
    }
    if problems.has_errors() {
        return Err(problems);
    }
    Ok(prepared)
}

/// What a library render refused, in words.
pub(super) fn failure(err: &RenderFailure) -> String {
    match err {
        RenderFailure::Library(err) => err.to_string(),
        RenderFailure::Template { problems, .. } => {
            let said: Vec<String> = problems.iter().map(|d| d.message.clone()).collect();
            said.join("; ")
        }
    }
}

/// The names a prompt's inputs may have, as the library's render reads them: a
/// plain template's slots; a dotprompt template's slots, schema properties and
/// defaults (`None` when it declares none, and takes any).
fn declared(template: &PromptTemplate) -> Option<Vec<&str>> {
    let mut names: Vec<&str> = template.slots.iter().map(|s| s.name.as_str()).collect();
    if !template.is_dotprompt() {
        return Some(names);
    }
    let properties = template
        .input_schema
        .as_ref()
        .and_then(|s| s.get("properties"))
        .and_then(Json::as_object);
    if names.is_empty() && properties.is_none() {
        return None;
    }
    names.extend(
        properties
            .into_iter()
            .flat_map(|p| p.keys().map(String::as_str)),
    );
    names.extend(template.input_default.keys().map(String::as_str));
    Some(names)
}

/// Every binding names an input the prompt declares, and every slot of a plain
/// template is bound.
fn check_slots(chain: &Chain, i: usize, template: &PromptTemplate, problems: &mut Diagnostics) {
    let step = &chain.steps[i];
    let id = &template.id;
    let Some(names) = declared(template) else {
        return;
    };
    for binding in &step.with {
        if !names.contains(&binding.slot.as_str()) {
            let hint = suggest(&binding.slot, names.iter().copied());
            problems.push(Diagnostic::error(
                &chain.path,
                binding.pos,
                format!(
                    "steps[{i}].with: prompt `{id}` has no slot `{}`{hint}",
                    binding.slot
                ),
            ));
        }
    }
    if template.is_dotprompt() {
        return;
    }
    for slot in names {
        if !step.with.iter().any(|b| b.slot == slot) {
            problems.push(Diagnostic::error(
                &chain.path,
                step.prompt.pos,
                format!(
                    "steps[{i}]: slot `{slot}` of prompt `{id}` is not bound; give it under `with`"
                ),
            ));
        }
    }
}

/// A value given for an input the chain does not declare, or an input left without one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum InputError {
    #[error("--var {name}: the chain has no input `{name}`{hint} ({declared})")]
    Unknown {
        name: String,
        hint: String,
        declared: String,
    },
    #[error("input `{0}` has no default; give it with --var {0}=VALUE")]
    Missing(String),
}

/// The inputs' values: each default, with `given` over them.
pub(crate) fn resolve_inputs(
    chain: &Chain,
    given: &IndexMap<String, Json>,
) -> Result<IndexMap<String, Json>, InputError> {
    for name in given.keys() {
        if !chain.inputs.contains_key(name) {
            let names: Vec<&str> = chain.inputs.keys().map(String::as_str).collect();
            return Err(InputError::Unknown {
                name: name.clone(),
                hint: suggest(name, names.iter().copied()),
                declared: if names.is_empty() {
                    "it declares none".into()
                } else {
                    format!("it declares {}", crate::doc::one_of(&names))
                },
            });
        }
    }
    let mut values = IndexMap::new();
    for (name, input) in &chain.inputs {
        let value = given
            .get(name)
            .or(input.as_ref())
            .ok_or_else(|| InputError::Missing(name.clone()))?;
        values.insert(name.clone(), value.clone());
    }
    Ok(values)
}
