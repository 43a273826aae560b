//! PromptKind prompt templates: the JSON template format with slot rules, the
//! library that stores, versions and audits them, and signed sharing.

mod folder;
mod inject;
pub(crate) mod lint;
mod parallel;
mod picoschema;
mod prompt_file;
mod render;
mod share;
mod sign;
mod slots;
mod store;
mod template_check;
mod template_file;
mod template_set;
mod yaml_out;

pub use folder::{FolderPrompt, FolderState, FolderStatus, SiblingPartials, compare, read_folder};
pub use inject::{ChatMessages, Placement};
pub use prompt_file::{file_name_for, to_prompt_file};
pub use render::{
    LibraryPartials, RenderFailure, RenderedPrompt, record_prompt_use, redacted, render_prompt,
    render_prompt_taking, render_stored, stored_template,
};
pub use share::{
    BUNDLE_FORMAT, BundleInfo, ManifestEntry, Receiving, ShareError, VerifiedPacket, check_packet,
    inspect_bundle, make_bundle, make_packet, open_bundle,
};
pub use sign::{
    KeyPair, SignError, canonical_json, content_hash, read_key_file, sha256_hex, validate_did,
    verify, write_key_files,
};
pub use slots::Slot;
pub use store::{
    Added, AuditBreak, AuditRecord, AuditVerified, Checks, DayUses, Library, LibraryError,
    ListOrder, OpenFailure, PromptUse, SearchHit, StoredPrompt, USAGE_DAYS, VersionInfo,
    VersionStats,
};
pub use template_file::{
    Body, PromptTemplate, is_prompt_file, load_template_file, parse_prompt_template,
    parse_template, plain_text,
};
pub use template_set::{TemplateSet, load_template_set, template_files_in};
