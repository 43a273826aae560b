//! PromptPack resolution: one [`Resolver`](document::Resolver) walks the document,
//! each file adding the methods for its subject.

mod document;
mod evals;
mod prompts;
#[cfg(test)]
mod tests;
mod tools;
mod validators;

pub(super) use document::resolve;
pub use evals::resolve_when;
