//! A `kind: Provider` file read for the compiled config: its `spec`, with the
//! file names in it made absolute, and its problems said in its own words.

use std::path::{Path, PathBuf};

use crate::doc::{Diagnostics, Node, Value};

use super::envelope::{envelope, read};

/// `spec.providers[N].x` of the compiled config is `spec.x` of the Provider file.
pub(super) fn provider_words(message: &str) -> String {
    let Some(start) = message.find("spec.providers[") else {
        return message.to_string();
    };
    let rest = &message[start + "spec.providers[".len()..];
    let Some(end) = rest.find(']') else {
        return message.to_string();
    };
    format!("{}spec{}", &message[..start], &rest[end + 1..])
}

/// A Provider file's `spec`, its file names made absolute: `mock_config` against
/// the Arena's folder, as PromptArena resolves it (else beside the provider file),
/// `credential_file` beside the provider file.
pub(super) fn provider_spec(
    file: &Path,
    arena_dir: &Path,
    found: &mut Diagnostics,
) -> Option<Node> {
    let mut read = match read(file) {
        Ok(read) => read,
        Err(problems) => {
            found.extend(problems);
            return None;
        }
    };
    let spec = envelope(&mut read.cx, &read.root, "Provider").map(|(_, spec)| spec.clone());
    let ok = !read.cx.diagnostics.has_errors();
    found.extend(read.cx.diagnostics);
    let mut spec = spec.filter(|_| ok)?;
    let beside = file.parent().unwrap_or(Path::new(""));
    if let Value::Map(entries) = &mut spec.value {
        for (key, node) in entries.iter_mut() {
            match key.name.as_str() {
                "additional_config" => {
                    rewrite(node, "mock_config", |name| {
                        let first = arena_dir.join(name);
                        if first.is_file() {
                            first
                        } else {
                            beside.join(name)
                        }
                    });
                    // A replay provider's recording is opened as PromptKit opens
                    // it, from where the run starts: PromptArena's examples name it
                    // from their repository's root, so a folder above the Arena's
                    // that holds it is where it is looked for.
                    let absolute = std::env::current_dir()
                        .map(|cwd| cwd.join(arena_dir))
                        .unwrap_or_else(|_| arena_dir.to_path_buf());
                    rewrite(node, "recording", |name| {
                        absolute
                            .ancestors()
                            .map(|dir| dir.join(name))
                            .find(|path| path.is_file())
                            .unwrap_or_else(|| arena_dir.join(name))
                    });
                }
                "credential" => rewrite(node, "credential_file", |name| beside.join(name)),
                _ => {}
            }
        }
    }
    Some(spec)
}

/// The string under `name` in the mapping `node`, made an absolute path by `to`.
fn rewrite(node: &mut Node, name: &str, to: impl Fn(&str) -> PathBuf) {
    let Value::Map(entries) = &mut node.value else {
        return;
    };
    for (key, value) in entries.iter_mut() {
        if key.name == name
            && let Value::Str(text) = &mut value.value
            && !Path::new(text.as_str()).is_absolute()
        {
            let path = to(text);
            let absolute = std::env::current_dir()
                .map(|cwd| cwd.join(&path))
                .unwrap_or(path);
            *text = absolute.to_string_lossy().into_owned();
        }
    }
}
