//! `prompt …`: rendering a template, the library and signed sharing, over one way
//! of opening the library store.

pub(super) mod library;
pub(super) mod render;
pub(super) mod share;
pub(super) mod store;
