use crate::cli::args::RenderArgs;
use crate::cli::{CliError, Exit, print_diagnostics, write_stdout};
use crate::doc::one_of;
use std::path::PathBuf;

use crate::library::{load_template_file, parse_template};
use crate::pack::{self, Pack, Prompt};

use super::{library, lookup, vars};

/// `prompt render`: the rendered text alone on stdout; warnings and errors on stderr.
pub fn render(args: &RenderArgs) -> Result<Exit, CliError> {
    let inputs = vars::collect(&args.vars)?;
    let text = if let Some(id) = &args.id {
        render_from_library(args, id, &inputs)?
    } else if let Some(file) = &args.file {
        let loaded = load_template_file(file)?;
        print_diagnostics(&loaded.warnings);
        loaded.value.render(&inputs).map_err(CliError::Invalid)?
    } else if let Some(pack_path) = &args.pack {
        let loaded = pack::load(pack_path)?;
        print_diagnostics(&loaded.warnings);
        let pack = loaded.value;
        let prompt = choose_prompt(&pack, args.prompt.as_deref())?;
        let now = args.vars.now.unwrap_or_else(std::time::SystemTime::now);
        pack::render_prompt_at(&pack, prompt, &inputs, now).map_err(CliError::Invalid)?
    } else {
        return Err(CliError::Usage(
            "give a library prompt ID, --file TEMPLATE or --pack PACK".into(),
        ));
    };
    write_stdout(&text)?;
    Ok(Exit::Success)
}

/// Renders a library prompt; a render of an `auditable` prompt is recorded, with
/// the values of `sensitive` slots redacted.
fn render_from_library(
    args: &RenderArgs,
    id: &str,
    inputs: &crate::pack::VarInputs,
) -> Result<String, CliError> {
    let mut lib = library::open(&args.library)?;
    let stored = lib.get(id, args.version).map_err(library::refused)?;
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
            &library::who(&args.library),
            id,
            stored.version,
            serde_json::Value::Object(variables),
        )
        .map_err(library::refused)?;
    }
    Ok(text)
}

/// The named prompt, or the pack's only one.
pub(super) fn choose_prompt<'p>(pack: &'p Pack, id: Option<&str>) -> Result<&'p Prompt, CliError> {
    let ids: Vec<&str> = pack.prompts.keys().map(String::as_str).collect();
    match id {
        Some(id) => lookup(
            &pack.prompts,
            id,
            "prompt",
            &pack.path.display().to_string(),
        ),
        None => match pack.prompts.values().next() {
            Some(only) if pack.prompts.len() == 1 => Ok(only),
            _ => Err(CliError::Usage(format!(
                "{} has several prompts; choose one with --prompt: {}",
                pack.path.display(),
                one_of(&ids)
            ))),
        },
    }
}
