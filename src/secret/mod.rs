//! Secrets never written: one process-wide set of texts that no output of
//! promptexec may hold. It is filled when a config is resolved (provider keys and
//! headers, MCP servers' `env` and `headers`, hooks' `env` values, and the host
//! variables an `env` list passes on when their names look secret) and when a
//! provider reads its key; every sink (the console, the log, report files,
//! transcripts, recordings) replaces each of them by `***`.
//!
//! A secret is hidden as it is written and in the forms the writers give it: JSON
//! (once and twice escaped, as in a JSON string holding JSON) and XML. Texts too
//! short to be credentials are never registered, so that ordinary words stay.

mod registry;
mod writer;

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, PoisonError, RwLock};

pub(crate) use registry::{MIN_KEY, MIN_VALUE, Registry};
pub(crate) use writer::Redacting;

/// The set every sink reads, replaced whole when a secret is added.
static GLOBAL: LazyLock<RwLock<Arc<Registry>>> = LazyLock::new(Default::default);
/// Counts additions, so a writer can tell cheaply whether its copy is stale.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Adds `text` when it has at least `min` characters (after trimming).
fn register(text: &str, min: usize) {
    let text = text.trim();
    if text.chars().count() < min || current().holds(text) {
        return;
    }
    let mut global = GLOBAL.write().unwrap_or_else(PoisonError::into_inner);
    let mut next = Registry::clone(&global);
    next.add(text);
    *global = Arc::new(next);
    GENERATION.fetch_add(1, Ordering::Release);
}

/// An API key: hidden from [`MIN_KEY`] characters on.
pub(crate) fn register_key(key: &str) {
    register(key, MIN_KEY);
}

/// A configured value that may be a credential (an `env` value): hidden from
/// [`MIN_VALUE`] characters on.
pub(crate) fn register_value(value: &str) {
    register(value, MIN_VALUE);
}

/// A header value: the value, and for `Bearer TOKEN` (or any value with words) its
/// last word too, as a server may echo just that; each from [`MIN_VALUE`] characters.
pub(crate) fn register_header(value: &str) {
    let value = value.trim();
    register_value(value);
    if let Some(token) = value.rsplit(char::is_whitespace).next() {
        register_value(token);
    }
}

/// The set as it is now.
pub(crate) fn current() -> Arc<Registry> {
    Arc::clone(&GLOBAL.read().unwrap_or_else(PoisonError::into_inner))
}

fn generation() -> u64 {
    GENERATION.load(Ordering::Acquire)
}

/// `text` with every registered secret replaced by `***`.
pub(crate) fn redact(text: &str) -> Cow<'_, str> {
    current().redact(text)
}
