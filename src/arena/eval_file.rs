//! `kind: Eval` files: a saved conversation (a recording) and the assertions judged
//! over it, read as PromptArena's schema defines them (`spec.recording`,
//! `spec.turns[].all_turns.assertions`, `spec.conversation_assertions`), each
//! problem at its `FILE:LINE:COL`.

use std::path::{Path, PathBuf};

use crate::doc::{Checker, Diagnostics, Node, Pos, UnknownKeys};

use super::envelope::{envelope, read};
use super::model::RawAssertion;
use super::spec::assertions;

/// One Eval file: a test case over the recording it names.
#[derive(Debug, Clone)]
pub(crate) struct EvalFile {
    pub path: PathBuf,
    /// `spec.id`, else `metadata.name`, else the file's stem.
    pub id: String,
    pub description: String,
    /// `spec.recording.path`, resolved against the Eval file's folder.
    pub recording: PathBuf,
    pub recording_pos: Pos,
    /// `spec.turns[].all_turns.assertions`: checked on every assistant turn.
    pub turn_assertions: Vec<RawAssertion>,
    pub conversation_assertions: Vec<RawAssertion>,
    pub tags: Vec<String>,
    pub pos: Pos,
}

/// The prompt an Arena of Eval files compiles to (it has no prompt config).
pub(crate) const EVAL_PROMPT: &str = "recorded-conversation";

/// Recording types PromptArena names.
const RECORDING_TYPES: &[&str] = &["session", "arena_output", "transcript", "generic"];

/// Reads the Eval file at `path`; its problems (warnings too) go to `found`.
pub(crate) fn eval_file(path: &Path, found: &mut Diagnostics) -> Option<EvalFile> {
    let mut file = match read(path) {
        Ok(file) => file,
        Err(problems) => {
            found.extend(problems);
            return None;
        }
    };
    let read = walk(&mut file.cx, &file.root, path);
    let problems = std::mem::take(&mut file.cx.diagnostics);
    let failed = problems.has_errors();
    found.extend(problems);
    if failed { None } else { read }
}

fn walk(cx: &mut Checker, root: &Node, path: &Path) -> Option<EvalFile> {
    let (name, spec_node) = envelope(cx, root, "Eval")?;
    let mut f = cx.map(spec_node, "spec")?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let id = f
        .get("id")
        .and_then(|n| cx.nonempty_string(n, "spec.id"))
        .or(name)
        .unwrap_or_else(|| {
            path.file_stem()
                .map_or_else(|| "eval".into(), |s| s.to_string_lossy().into_owned())
        });
    let description = match f.get("description") {
        Some(n) => cx.string(n, "spec.description").unwrap_or_default(),
        None => {
            cx.error(spec_node.pos, "spec: missing key `description`");
            String::new()
        }
    };
    let recording = match f.get("recording") {
        Some(n) => recording(cx, n, &dir),
        None => {
            cx.error(spec_node.pos, "spec: missing key `recording`");
            None
        }
    };
    let mut turn_assertions = Vec::new();
    if let Some(items) = f.get("turns").and_then(|n| cx.list(n, "spec.turns")) {
        for (i, item) in items.iter().enumerate() {
            let at = format!("spec.turns[{i}]");
            let Some(mut t) = cx.map(item, &at) else {
                continue;
            };
            if let Some(all) = t.get("all_turns") {
                let at = format!("{at}.all_turns");
                if let Some(mut a) = cx.map(all, &at) {
                    if let Some(list) = a.get("assertions") {
                        turn_assertions.extend(assertions(cx, list, &format!("{at}.assertions")));
                    }
                    cx.unknown_keys(&a, &at, UnknownKeys::Error);
                }
            }
            cx.unknown_keys(&t, &at, UnknownKeys::Error);
        }
    }
    let conversation_assertions = f
        .get("conversation_assertions")
        .map(|n| assertions(cx, n, "spec.conversation_assertions"))
        .unwrap_or_default();
    let mut tags = Vec::new();
    if let Some(items) = f.get("tags").and_then(|n| cx.list(n, "spec.tags")) {
        for (i, item) in items.iter().enumerate() {
            tags.extend(cx.string(item, &format!("spec.tags[{i}]")));
        }
    }
    // How fast a recording is replayed: a saved conversation is read at once here.
    f.allow(&["mode", "speed"]);
    cx.unknown_keys(&f, "spec", UnknownKeys::Error);
    let (recording, recording_pos) = recording?;
    Some(EvalFile {
        path: path.to_path_buf(),
        id,
        description,
        recording,
        recording_pos,
        turn_assertions,
        conversation_assertions,
        tags,
        pos: spec_node.pos,
    })
}

/// `spec.recording`: its file and where it is named. Its `type` is checked; the file
/// itself tells how it is read.
fn recording(cx: &mut Checker, node: &Node, dir: &Path) -> Option<(PathBuf, Pos)> {
    let mut f = cx.map(node, "spec.recording")?;
    let path = match f.get("path") {
        Some(n) => cx
            .nonempty_string(n, "spec.recording.path")
            .map(|s| (dir.join(s), n.pos)),
        None => {
            cx.error(node.pos, "spec.recording: missing key `path`");
            None
        }
    };
    if let Some(n) = f.get("type")
        && let Some(kind) = cx.string(n, "spec.recording.type")
        && !RECORDING_TYPES.contains(&kind.as_str())
    {
        cx.error(
            n.pos,
            format!(
                "spec.recording.type: `{kind}` is not a recording type (expected {}){}",
                crate::doc::one_of(RECORDING_TYPES),
                crate::doc::suggest(&kind, RECORDING_TYPES.iter().copied())
            ),
        );
    }
    cx.unknown_keys(&f, "spec.recording", UnknownKeys::Error);
    let (path, pos) = path?;
    if !path.is_file() {
        cx.error(
            pos,
            format!(
                "spec.recording.path: file `{}` does not exist",
                path.display()
            ),
        );
        return None;
    }
    Some((path, pos))
}
