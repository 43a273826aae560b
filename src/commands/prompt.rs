use crate::cli::args::RenderArgs;
use crate::cli::{CliError, Exit, print_diagnostics, write_stdout};
use crate::doc::one_of;
use crate::library::load_template_file;
use crate::pack::{self, Pack, Prompt};

use super::{lookup, vars};

/// `prompt render`: the rendered text alone on stdout; warnings and errors on stderr.
pub fn render(args: &RenderArgs) -> Result<Exit, CliError> {
    let inputs = vars::collect(&args.vars)?;
    let text = if let Some(file) = &args.file {
        let loaded = load_template_file(file)?;
        print_diagnostics(&loaded.warnings);
        loaded.value.render(&inputs).map_err(CliError::Invalid)?
    } else if let Some(pack_path) = &args.pack {
        let loaded = pack::load(pack_path)?;
        print_diagnostics(&loaded.warnings);
        let pack = loaded.value;
        let prompt = choose_prompt(&pack, args.prompt.as_deref())?;
        pack::render_prompt(&pack, prompt, &inputs).map_err(CliError::Invalid)?
    } else {
        return Err(CliError::Usage(
            "give --file TEMPLATE or --pack PACK".into(),
        ));
    };
    write_stdout(&text)?;
    Ok(Exit::Success)
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
