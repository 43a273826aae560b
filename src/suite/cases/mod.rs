//! Extension test cases: case files that call tools and hooks with given inputs and
//! say what must come back, checked without any conversation.
//!
//! `load` reads a file strictly, `bind` matches its names against the config,
//! `judge` decides each case from pure `matchers`, and `snapshot` keeps the stored
//! results; `plan` turns loaded files into a [`CasesPlan`] and [`run`] runs it to a
//! [`crate::report::TestRecord`], through the same engine as `invoke-tool` and
//! `hook test`.

mod bind;
mod discover;
mod file_name;
mod judge;
mod load;
mod matchers;
mod model;
mod plan;
mod run;
#[cfg(test)]
mod run_tests;
mod snapshot;

pub(crate) use discover::case_files;
pub(crate) use file_name::file_name_part;
pub(crate) use load::load;
pub(crate) use model::{CaseFile, Target};
pub(crate) use plan::{CasesPlan, PlannedFile, plan_files};
pub(crate) use run::{CaseEvent, CasesError, run};
