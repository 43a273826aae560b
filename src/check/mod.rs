//! `check`: conformance probes and schema-driven fuzzing for every extension a config
//! binds. [`subjects`] makes each extension ready to probe, [`run`] is the engine
//! (a [`CheckPlan`] in, a [`CheckRecord`] out). Drivers run an extension and record
//! what it did; each probe is a small pure verdict over that record.

mod ending;
mod error;
pub(crate) mod fuzz;
mod fuzzing;
mod line;
mod line_process;
mod mcp;
mod oneshot;
mod revisions;
mod run;
#[cfg(test)]
mod run_tests;
mod subject;
mod subjects;
mod verdict;

pub(crate) use crate::report::{CheckRecord, CheckedKind, ExtensionCheck, Probe, ProbeResult};
pub(crate) use run::{CheckError, CheckEvent, CheckPlan, run};
pub(crate) use subject::{
    LineServer, McpSubject, OneShot, Options, ReplyShape, Subject, ToolSchemas,
};
pub(crate) use subjects::{extension_names, subjects};
