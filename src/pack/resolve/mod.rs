//! PromptPack resolution: one [`Resolver`](document::Resolver) walks the document,
//! each file adding the methods for its subject.

mod document;
mod evals;
mod prompts;
mod tools;
mod validators;

pub use document::resolve;
pub use evals::resolve_when;
