//! `prompt …`: rendering a template, the library and signed sharing, over one way
//! of opening the library store.

pub(super) mod chain;
pub(super) mod files;
pub(super) mod library;
pub(super) mod lint;
pub(super) mod render;
pub(super) mod share;
pub(super) mod stats;
