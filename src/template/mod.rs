//! `{{name}}` templates: parsed once into text and placeholders with their positions,
//! then rendered by inserting values as plain text.
//!
//! Grammar: `{{ name }}` is a placeholder (spaces inside the braces are allowed; a name
//! is ASCII letters, digits, `_`, `-` and `.`, starting with a letter or `_`;
//! `{{fragments.NAME}}` inserts a pack fragment). `{{{{` is a
//! literal `{{`. Any other `{` or `}` is literal text. Nothing is HTML-escaped, and
//! inserted values are never parsed again.
//!
//! PromptKit's time variables (`current_date` and the like) are filled from the clock
//! when a template uses them and nothing else gives them a value.

mod clock;
mod parse;
mod render;

pub use clock::{TIME_VARIABLES, TimeError, is_time_variable, parse_rfc3339, time_value};

pub use parse::{Placeholder, Segment, SyntaxError, Template};
pub use render::Unfilled;
