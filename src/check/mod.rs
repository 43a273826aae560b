//! `check`: conformance probes and schema-driven fuzzing for every extension a config
//! binds. Drivers run an extension and record what it did; each probe is a small pure
//! verdict over that record.

pub mod fuzz;
mod verdict;

pub use verdict::{CheckReport, CheckedKind, ExtensionCheck, Probe, ProbeResult};
