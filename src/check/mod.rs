//! `check`: conformance probes and schema-driven fuzzing for every extension a config
//! binds. Drivers run an extension and record what it did; each probe is a small pure
//! verdict over that record.

mod ending;
mod error;
pub(crate) mod fuzz;
mod fuzzing;
mod line;
mod line_process;
mod mcp;
mod oneshot;
mod run;
mod subject;
mod verdict;

pub(crate) use run::check;
pub(crate) use subject::{
    LineServer, McpSubject, OneShot, Options, ReplyShape, Subject, ToolSchemas,
};
pub(crate) use verdict::{CheckReport, CheckedKind, ExtensionCheck, Probe, ProbeResult};
