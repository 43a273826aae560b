//! What every PromptArena file shares: read with positions, its `apiVersion`,
//! `kind` and `metadata` checked, its `spec` handed on.

use std::path::Path;

use crate::doc::{Checker, Diagnostic, Diagnostics, Node, UnknownKeys, parse_by_extension};

/// The only API version there is.
pub(crate) const API_VERSION: &str = "promptkit.altairalabs.ai/v1alpha1";

/// A file read and parsed, with the checker its problems go to.
pub(super) struct File {
    pub root: Node,
    pub cx: Checker,
}

/// Reads and parses `path` (YAML, or JSON by its extension).
pub(super) fn read(path: &Path) -> Result<File, Diagnostics> {
    let text = std::fs::read_to_string(path)
        .map_err(|err| Diagnostic::whole_file(path, format!("cannot read file: {err}")))?;
    let root = parse_by_extension(path, &text)?;
    Ok(File {
        root,
        cx: Checker::new(path, text),
    })
}

/// The `kind` written at the top of the document at `path`, if it reads as a
/// mapping with one.
pub(crate) fn kind_of(path: &Path) -> Option<String> {
    let file = read(path).ok()?;
    let crate::doc::Value::Map(entries) = &file.root.value else {
        return None;
    };
    entries
        .iter()
        .find(|(key, _)| key.name == "kind")
        .and_then(|(_, node)| node.as_str().map(str::to_string))
}

/// The header of a `kind` file checked; its `metadata.name` and its `spec`.
pub(super) fn envelope<'n>(
    cx: &mut Checker,
    root: &'n Node,
    kind: &str,
) -> Option<(Option<String>, &'n Node)> {
    let what = format!("the {kind} file");
    let mut top = cx.map(root, &what)?;
    match top.get("apiVersion") {
        Some(node) => {
            // PromptArena's schema asks only for a string here.
            if let Some(version) = cx.string(node, "apiVersion")
                && version != API_VERSION
            {
                cx.warning(
                    node.pos,
                    format!("apiVersion: `{version}` is read as `{API_VERSION}`, the only version there is"),
                );
            }
        }
        None => cx.error(root.pos, format!("{what}: missing key `apiVersion`")),
    }
    match top.get("kind") {
        Some(node) => {
            if let Some(found) = cx.string(node, "kind")
                && found != kind
            {
                cx.error(
                    node.pos,
                    format!("kind: expected `{kind}`, found `{found}`"),
                );
            }
        }
        None => cx.error(root.pos, format!("{what}: missing key `kind`")),
    }
    let name = top.get("metadata").and_then(|node| metadata(cx, node));
    top.allow(&["$schema"]);
    let spec = top.get("spec");
    cx.unknown_keys(&top, &what, UnknownKeys::Error);
    match spec {
        Some(spec) => Some((name, spec)),
        None => {
            cx.error(root.pos, format!("{what}: missing key `spec`"));
            None
        }
    }
}

fn metadata(cx: &mut Checker, node: &Node) -> Option<String> {
    let mut f = cx.map(node, "metadata")?;
    let name = f.get("name").and_then(|n| cx.string(n, "metadata.name"));
    f.allow(&["namespace", "labels", "annotations"]);
    cx.unknown_keys(&f, "metadata", UnknownKeys::Error);
    name
}
