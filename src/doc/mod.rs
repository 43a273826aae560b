//! Documents with positions: YAML and JSON files read into a tree whose every node
//! knows its line and column, and the diagnostics that point back into them.
//!
//! Config and pack loaders walk this tree themselves instead of deriving serde structs,
//! so one pass can report every problem in a file, each with its `FILE:LINE:COL`.

mod check;
mod diagnostic;
mod fields;
mod json_nodes;
mod json_string;
#[cfg(test)]
mod json_tests;
mod node;
mod snippet;
mod suggest;

pub use check::{Checker, UnknownKeys, one_of, pointer};
pub use diagnostic::{Diagnostic, Diagnostics, Severity};
pub use fields::Fields;
pub use json_nodes::MAX_JSON_DEPTH;
pub use json_string::{JsonStringCursor, locate_in_json_string};
pub use node::{Key, Node, Pos, Source, Value, parse_by_extension, parse_json, parse_yaml};
pub use snippet::{Sources, snippet};
pub use suggest::{did_you_mean, suggest};

mod loaded;
pub use loaded::{Loaded, Rejected, finish};
