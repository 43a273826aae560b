//! `prompt render`: a template from the library, a file or a pack, rendered.

use std::path::PathBuf;

use crate::cli::args::RenderArgs;
use crate::cli::{CliError, Console, Exit, UsageError};
use crate::library::{load_template_file, parse_template};
use crate::pack;

use super::store::{open, refused, who};
use crate::commands::common::load;

/// `prompt render`: the rendered text alone on stdout; warnings and errors on stderr.
pub(in crate::commands) fn render(
    args: &RenderArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let inputs = load::vars(&args.vars)?;
    let text = if let Some(id) = &args.id {
        render_from_library(args, id, &inputs)?
    } else if let Some(file) = &args.file {
        let loaded = load_template_file(file)?;
        console.diagnostics(&loaded.warnings);
        loaded.value.render(&inputs).map_err(CliError::Invalid)?
    } else if let Some(pack_path) = &args.pack {
        let pack = load::pack(pack_path, console)?;
        let prompt = load::choose_prompt(&pack, args.prompt.as_deref())?;
        let now = args.vars.now.unwrap_or_else(std::time::SystemTime::now);
        pack::render_prompt_at(&pack, prompt, &inputs, now).map_err(CliError::Invalid)?
    } else {
        return Err(UsageError::Nothing(
            "give a library prompt ID, --file TEMPLATE or --pack PACK".into(),
        )
        .into());
    };
    console.out(&text)?;
    Ok(Exit::Success)
}

/// Renders a library prompt; a render of an `auditable` prompt is recorded, with
/// the values of `sensitive` slots redacted.
fn render_from_library(
    args: &RenderArgs,
    id: &str,
    inputs: &crate::pack::VarInputs,
) -> Result<String, CliError> {
    let mut lib = open(&args.library)?;
    let stored = lib.get(id, args.version).map_err(refused)?;
    let label = PathBuf::from(format!("{id}@v{}", stored.version));
    let template = parse_template(&label, &stored.content.to_string())?.value;
    let text = template.render(inputs).map_err(CliError::Invalid)?;
    if template.auditable {
        let variables: serde_json::Map<String, serde_json::Value> = inputs
            .iter()
            .map(|(name, value)| {
                let sensitive = template.slot(name).is_some_and(|s| s.sensitive);
                let value = if sensitive {
                    serde_json::Value::String("[redacted]".into())
                } else {
                    value.clone()
                };
                (name.clone(), value)
            })
            .collect();
        lib.record_render(
            &who(&args.library),
            id,
            stored.version,
            serde_json::Value::Object(variables),
        )
        .map_err(refused)?;
    }
    Ok(text)
}
