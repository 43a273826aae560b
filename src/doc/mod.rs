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
pub(crate) mod snippet;
mod suggest;

pub(crate) use check::{Checker, UnknownKeys, one_of, pointer};
pub(crate) use diagnostic::{Diagnostic, Diagnostics, Severity};
pub(crate) use fields::Fields;
pub(crate) use json_string::{JsonStringCursor, locate_in_json_string};
pub(crate) use node::{Key, Node, Pos, Value, parse_by_extension, parse_json, parse_yaml};
pub(crate) use snippet::Sources;
pub(crate) use suggest::{did_you_mean, suggest};

mod loaded;
pub(crate) use loaded::{Loaded, Rejected, finish};
