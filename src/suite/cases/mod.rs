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

pub use bind::{BoundTool, HookPoint, bind_hook, bind_tool, decision_words};
pub use discover::{CASE_FILE_ENDINGS, case_files};
pub use file_name::file_name_part;
pub use judge::{
    CaseStatus, HookSeen, SnapshotCheck, Stored, ToolSeen, Verdict, judge_hook, judge_tool,
};
pub use load::load;
pub use matchers::{
    Difference, check_matches, check_pointer, check_result, first_difference, same, show, show_text,
};
pub use model::{
    CallStatus, Case, CaseFile, HookCase, HookExpect, Located, Target, ToolCase, ToolExpect,
};
pub use snapshot::{SNAPSHOT_DIR, slug, snapshot_path};

/// Reading and writing snapshot files.
pub mod snapshots {
    pub use super::snapshot::{read, write};
}
