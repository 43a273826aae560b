//! The tool-surface lock: what every tool a model can be offered looks like (name,
//! description, schemas, annotations) and what every exec extension runs (its
//! command and the files it executes), pinned in `promptexec.lock` so that a later
//! reading can be compared with it. A reading is also scanned for text that tries
//! to steer the model (see [`scan`]).
//!
//! The file is JSON with sorted keys, pretty-printed, with a trailing newline:
//! every pinned value is kept in its RFC 8785 canonical form beside the SHA-256 of
//! that form, so a review sees what changed and a tool can check the hash alone.

mod drift;
mod files;
mod fingerprint;
mod reading;
mod render;
mod scan;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use crate::library::{canonical_json as canonical, sha256_hex};

pub(crate) use drift::{Change, compare};
pub(crate) use files::extension_files;
pub(crate) use fingerprint::fingerprint;
pub(crate) use reading::read;
pub(crate) use render::{changes_human, findings_human, findings_sarif, report_json};
pub(crate) use scan::{Finding, scan};

/// The version of the file's format; a file of another version is refused.
pub(crate) const FORMAT_VERSION: u64 = 1;

/// The file's name beside the config.
pub(crate) const FILE_NAME: &str = "promptexec.lock";

/// A whole lock file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Lock {
    /// [`FORMAT_VERSION`].
    pub version: u64,
    /// Every tool, by the name a model calls it (`mcp__server__tool` for MCP).
    #[serde(default)]
    pub tools: BTreeMap<String, ToolEntry>,
    /// Every hook with a command, by name.
    #[serde(default)]
    pub hooks: BTreeMap<String, ExecEntry>,
    /// Every eval with a command, by name.
    #[serde(default)]
    pub evals: BTreeMap<String, ExecEntry>,
}

/// One tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ToolEntry {
    /// `pack`, `config` (bound, not in the pack) or `mcp:SERVER`.
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<Pinned>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<Pinned>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Pinned>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Pinned>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Pinned>,
    /// How the config runs it, for a tool with an exec block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec: Option<ExecEntry>,
}

/// A value in canonical form and the SHA-256 of that form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Pinned {
    pub sha256: String,
    pub value: Json,
}

impl Pinned {
    /// `value` pinned: canonicalized per RFC 8785 and hashed.
    pub(crate) fn of(value: &Json) -> Pinned {
        let canonical = canonical(value);
        let sha256 = sha256_hex(canonical.as_bytes());
        // Read back from its canonical text, the value's keys are sorted whatever
        // map serde_json keeps.
        let value = serde_json::from_str(&canonical).unwrap_or_else(|_| value.clone());
        Pinned { sha256, value }
    }
}

/// What an exec extension runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExecEntry {
    /// The program and its arguments; paths inside the config's folder written
    /// relative to it.
    pub command: Vec<String>,
    /// The SHA-256 of each file it runs (see [`files`]), by path as in `command`.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
}

/// Why a lock could not be made, read or compared.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LockError {
    #[error("no lock file at {}; run `promptexec lock` to write one", .0.display())]
    Missing(PathBuf),
    #[error("cannot read the lock file {}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the lock file {} is not a promptexec lock: {reason}", path.display())]
    Unreadable { path: PathBuf, reason: String },
    #[error("cannot write the lock file {}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("MCP server `{server}` could not be asked for its tools: {reason}")]
    Server { server: String, reason: String },
    #[error("cannot load the config: {0}")]
    Config(String),
    #[error("cannot load the pack: {0}")]
    Pack(String),
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
    #[error("interrupted")]
    Interrupted,
}

/// Where the lock of the config at `config_path` is: beside it.
pub(crate) fn default_path(config_path: Option<&Path>) -> PathBuf {
    match config_path.and_then(Path::parent) {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(FILE_NAME),
        _ => PathBuf::from(FILE_NAME),
    }
}

impl Lock {
    /// The file's text: sorted keys, two-space indents, a trailing newline.
    pub(crate) fn text(&self) -> String {
        let value = serde_json::to_value(self).unwrap_or(Json::Null);
        let sorted: Json = serde_json::from_str(&canonical(&value)).unwrap_or(value);
        let mut text = serde_json::to_string_pretty(&sorted).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Writes the lock to `path`, atomically.
    pub(crate) fn write(&self, path: &Path) -> Result<(), LockError> {
        crate::atomic_file::write_atomic(path, self.text().as_bytes()).map_err(|source| {
            LockError::Write {
                path: path.to_path_buf(),
                source,
            }
        })
    }

    /// The lock written at `path`.
    pub(crate) fn load(path: &Path) -> Result<Lock, LockError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return Err(LockError::Missing(path.to_path_buf()));
            }
            Err(source) => {
                return Err(LockError::Read {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        let unreadable = |reason: String| LockError::Unreadable {
            path: path.to_path_buf(),
            reason,
        };
        let value: Json = serde_json::from_str(&text).map_err(|e| unreadable(e.to_string()))?;
        match value.get("version").and_then(Json::as_u64) {
            Some(FORMAT_VERSION) => {}
            Some(other) => {
                return Err(unreadable(format!(
                    "format version {other}, this promptexec reads version {FORMAT_VERSION}"
                )));
            }
            None => return Err(unreadable("no format `version`".into())),
        }
        serde_json::from_value(value).map_err(|e| unreadable(e.to_string()))
    }

    /// How many entries of each kind: tools, hooks, evals.
    pub(crate) fn counts(&self) -> (usize, usize, usize) {
        (self.tools.len(), self.hooks.len(), self.evals.len())
    }
}

/// `--locked`: a fresh reading of the surface of the config at `config_path`
/// (none: an empty one) and of the pack at `pack` (a file that is not JSON is left
/// out) compared with the lock beside the config. `Ok(None)` when they are the
/// same; `Ok(Some(diff))` when anything changed, the diff as text for people.
pub(crate) fn gate(
    config_path: Option<&Path>,
    pack: Option<&Path>,
) -> Result<Option<String>, LockError> {
    let path = default_path(config_path);
    let pinned = Lock::load(&path)?;
    let config = match config_path {
        Some(file) => {
            crate::config::load(file, false)
                .map_err(|err| LockError::Config(err.to_string()))?
                .value
        }
        None => crate::config::RuntimeConfig::default(),
    };
    // A pack is JSON; anything else given where a pack goes (an Arena project) pins
    // the config's side alone.
    let pack = pack
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        })
        .map(|p| crate::pack::load(p).map(|loaded| loaded.value))
        .transpose()
        .map_err(|err| LockError::Pack(err.to_string()))?;
    let fresh = read(&config, pack.as_ref())?;
    let changes = compare(&pinned, &fresh);
    Ok((!changes.is_empty()).then(|| {
        format!(
            "the tool surface differs from {}:\n{}",
            path.display(),
            changes_human(&changes)
        )
    }))
}
