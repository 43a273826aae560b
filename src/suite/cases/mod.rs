//! Extension test cases: case files that call tools and hooks with given inputs and
//! say what must come back, checked without any conversation.
//!
//! `load` reads a file strictly, `bind` matches its names against the config,
//! `judge` decides each case from pure `matchers`, and `snapshot` keeps the stored
//! results. Running the calls is the `test` command's job, through the same engine
//! as `invoke-tool` and `hook test`.

mod bind;
mod discover;
mod file_name;
mod judge;
mod load;
mod matchers;
mod model;
mod snapshot;

pub(crate) use bind::{BoundTool, HookPoint, bind_hook, bind_tool};
pub(crate) use discover::case_files;
pub(crate) use file_name::file_name_part;
pub(crate) use judge::{
    CaseStatus, HookSeen, SnapshotCheck, ToolSeen, Verdict, judge_hook, judge_tool,
};
pub(crate) use load::load;
pub(crate) use model::{
    CallStatus, Case, CaseFile, HookCase, HookExpect, Target, ToolCase, ToolExpect,
};
pub(crate) use snapshot::snapshot_path;

/// Reading and writing snapshot files.
pub(crate) mod snapshots {
    pub(crate) use super::snapshot::{read, write};
}
