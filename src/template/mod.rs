//! `{{name}}` templates: parsed once into text and placeholders with their positions,
//! then rendered by inserting values as plain text.
//!
//! Grammar: `{{ name }}` is a placeholder (spaces inside the braces are allowed; a name
//! is ASCII letters, digits, `_`, `-` and `.`, starting with a letter or `_`;
//! `{{fragments.NAME}}` inserts a pack fragment). `{{{{` is a
//! literal `{{`. Any other `{` or `}` is literal text. Nothing is HTML-escaped, and
//! inserted values are never parsed again.

mod parse;
mod render;

pub use parse::{Placeholder, Segment, SyntaxError, Template};
pub use render::Unfilled;
