//! PromptArena projects: a `kind: Arena` file and the PromptConfig, Provider, Tool
//! and Scenario files it names, read as PromptArena reads them. The prompt configs
//! and tools compile into one PromptPack and the providers into one RuntimeConfig,
//! each checked by its own loader, with every problem placed back at the
//! `FILE:LINE:COL` it was written at. What other players act on (self-play,
//! judges, the workflow, the extras) is kept as plain data.

mod check;
mod compile;
mod compile_config;
mod envelope;
mod eval_file;
mod inside;
mod load;
mod model;
mod prompt_config;
mod provider_file;
mod source_map;
mod spec;

pub(crate) use compile::place_pack_diagnostics;
pub(crate) use envelope::kind_of;
pub(crate) use eval_file::{EVAL_PROMPT, EvalFile};
pub(crate) use load::load;
pub(crate) use model::*;

/// Whether the file at `path` is an Arena project (a YAML document of `kind: Arena`).
pub(crate) fn is_arena(path: &std::path::Path) -> bool {
    let yaml = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"));
    yaml && kind_of(path).as_deref() == Some("Arena")
}
