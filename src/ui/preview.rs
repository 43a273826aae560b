//! The editor's live preview: a draft read as a `.prompt` file, rendered with the
//! values given over its defaults (library prompts are its partials, as for `prompt
//! render`), and linted as `prompt lint` would lint the file.

use std::sync::Arc;

use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::response::Response;
use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::{Value as Json, json};

use crate::doc::{Diagnostics, Rejected};
use crate::dotprompt::RenderEnv;
use crate::library::lint::{self, Partials};
use crate::library::{Library, LibraryPartials, parse_prompt_template};
use crate::report::lint_json;

use super::State as Served;
use super::prompts::{body, draft_label, in_library};
use super::reply::{ApiError, json_of, problems_json};

/// The id a draft is read as when the page names none.
const DRAFT_ID: &str = "draft";

#[derive(Debug, Deserialize)]
pub(super) struct PreviewRequest {
    text: String,
    #[serde(default)]
    inputs: IndexMap<String, Json>,
    id: Option<String>,
}

pub(super) async fn preview(
    State(state): State<Arc<Served>>,
    request: Result<axum::Json<PreviewRequest>, JsonRejection>,
) -> Result<Response, ApiError> {
    let request = body(request)?;
    in_library(&state, move |library, state| {
        let id = request.id.as_deref().unwrap_or(DRAFT_ID);
        let (messages, problems) = render(library, id, &request.text, &request.inputs);
        let lint = lint_draft(library, id, &request.text, &state.lint);
        json_of(&json!({
            "ok": !problems.has_errors(),
            "messages": messages,
            "errors": problems_json(&problems),
            "lint": lint,
        }))
    })
    .await
}

/// The rendered messages as `{role, text}`, and every problem met on the way.
fn render(
    library: &Library,
    id: &str,
    text: &str,
    inputs: &IndexMap<String, Json>,
) -> (Vec<Json>, Diagnostics) {
    let loaded = match parse_prompt_template(&draft_label(id), text) {
        Ok(loaded) => loaded,
        Err(Rejected(problems)) => return (Vec::new(), problems),
    };
    let partials = LibraryPartials::new(library);
    let env = RenderEnv {
        partials: &partials,
        history: &[],
    };
    let mut problems = loaded.warnings;
    match loaded.value.render_with(inputs, &env) {
        Ok(rendered) => {
            let messages = rendered
                .messages
                .iter()
                .map(|m| json!({"role": m.role, "text": m.text}))
                .collect();
            (messages, problems)
        }
        Err(errors) => {
            problems.extend(errors);
            (Vec::new(), problems)
        }
    }
}

/// `prompt lint --format json` of the draft, with the library's latest prompts as
/// the partials it may name. Only the partials it reaches are read, so a keystroke
/// costs the same in a library of any size.
fn lint_draft(library: &Library, id: &str, text: &str, config: &lint::Config) -> Json {
    let draft = lint::from_prompt(draft_label(id), text.to_string());
    let mut partials = Partials::default();
    partials.add_included(&draft, |name| {
        let stored = library.get(name, None).ok()?;
        let body = stored.content.get("template")?.as_str()?.to_string();
        let dotprompt = stored.content.get("format").and_then(Json::as_str) == Some("dotprompt");
        Some((body, dotprompt))
    });
    let findings = lint::lint(&draft, &partials, config);
    lint_json(&findings, 1)
}
