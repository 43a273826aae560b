//! The PromptPack: prompts, their variables and templates, tools with JSON Schemas,
//! evals and fragments; loaded with positions and checked across references.
//! `builtin` holds the checks built into promptexec that a pack's evals and
//! validators name: the pack checks their params when it is read, and `evals` runs
//! them at their triggers.

pub(crate) mod builtin;
mod check;
mod load;
mod model;
mod render;
mod resolve;
pub mod workflow;

pub use check::{check_against_config, unbound_tools};
pub use load::load;
pub use model::{
    Bound, Direction, EvalDef, Pack, Prompt, TemplateText, Threshold, ToolDef, ToolPolicy, Trigger,
    Validation, Validator, VarType, Variable, When,
};
pub use render::{VarInputs, render_prompt, render_prompt_at};
pub use resolve::resolve_when;
