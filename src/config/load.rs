use std::path::Path;

use crate::doc::{Checker, Diagnostic, Loaded, Rejected, finish, parse_by_extension};

use super::RuntimeConfig;
use super::resolve::resolve;

pub type LoadError = Rejected;

/// Reads and resolves the RuntimeConfig at `path`. With `check_files`, commands,
/// working directories and mock files it names must exist (what `validate` wants;
/// other commands report a missing file when they need it).
pub fn load(path: &Path, check_files: bool) -> Result<Loaded<RuntimeConfig>, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|err| {
        Rejected(Diagnostic::whole_file(path, format!("cannot read file: {err}")).into())
    })?;
    let cwd = std::env::current_dir().unwrap_or_default();
    let base_dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => cwd.join(parent),
        _ => cwd,
    };
    load_text(path, text, &base_dir, check_files)
}

/// Resolves RuntimeConfig `text`, named `path` in messages (its extension says how
/// to parse it), with relative paths starting from `base_dir`: a config compiled
/// from other files, which is never written where they are.
pub fn load_text(
    path: &Path,
    text: String,
    base_dir: &Path,
    check_files: bool,
) -> Result<Loaded<RuntimeConfig>, LoadError> {
    let root = parse_by_extension(path, &text).map_err(|d| Rejected(d.into()))?;
    let mut checker = Checker::new(path, text);
    let mut config = resolve(&root, base_dir, check_files, &mut checker);
    config.path = Some(path.to_path_buf());
    finish(config, checker.diagnostics)
}
