//! PromptKind prompt templates: the JSON template format, and (later) the library
//! that stores, versions and signs them.

mod template_file;

pub use template_file::{PromptTemplate, load_template_file};
