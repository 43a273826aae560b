//! `kind: PromptConfig` and `kind: Tool` files, each read into the part of a
//! PromptPack it becomes, as PromptArena's compiler makes it: a prompt keyed by its
//! `task_type` (`allowed_tools` are its tools), a tool with its `input_schema` as
//! parameters. What the pack checks (variables, validators, tool policy, evals) is
//! passed on as written and checked by the pack, at the file's own positions.

use std::path::Path;

use crate::doc::{Checker, Diagnostics, Fields, Node, Pos, UnknownKeys};

use super::envelope::{envelope, read};
use super::model::ArenaTool;
use super::source_map::{Out, OutKey};

/// PromptConfig keys the pack reads under the same name.
const PASSED_ON: &[&str] = &[
    "variables",
    "tool_policy",
    "validators",
    "evals",
    "media",
    "parameters",
    "model_overrides",
    "tested_models",
];

/// PromptConfig keys that only describe the prompt.
const DESCRIPTIVE: &[&str] = &["metadata", "compilation"];

/// One PromptConfig file, read.
pub(super) struct PromptConfig {
    pub task_type: String,
    /// The pack prompt it becomes.
    pub prompt: Out,
}

/// Reads the PromptConfig at `path`; `None` when it has errors (they are in
/// `found`).
pub(super) fn prompt_config(path: &Path, found: &mut Diagnostics) -> Option<PromptConfig> {
    let mut file = match read(path) {
        Ok(file) => file,
        Err(problems) => {
            found.extend(problems);
            return None;
        }
    };
    let out = walk_prompt(&mut file.cx, &file.root);
    let ok = !file.cx.diagnostics.has_errors();
    found.extend(file.cx.diagnostics);
    let (task_type, prompt) = out?;
    ok.then_some(PromptConfig { task_type, prompt })
}

fn walk_prompt(cx: &mut Checker, root: &Node) -> Option<(String, Out)> {
    let (name, spec) = envelope(cx, root, "PromptConfig")?;
    let mut f = cx.map(spec, "spec")?;
    let task_type = required(cx, &mut f, spec, "task_type");
    let version = required(cx, &mut f, spec, "version");
    let description = required(cx, &mut f, spec, "description");
    let template = match f.entry("system_template") {
        Some((key, node)) => {
            cx.nonempty_string(node, "spec.system_template")?;
            Some((key, node))
        }
        None => {
            cx.error(spec.pos, "spec: missing key `system_template`");
            None
        }
    };
    let mut entries: Vec<(OutKey, Out)> = Vec::new();
    let task_type = task_type?;
    let (task_pos, version) = (version.as_ref().map_or(spec.pos, |v| v.1), version?);
    entries.push((
        OutKey::new("id", task_pos),
        Out::Str(task_type.0.clone(), task_type.1),
    ));
    let display = name.unwrap_or_else(|| task_type.0.clone());
    entries.push((OutKey::new("name", spec.pos), Out::Str(display, spec.pos)));
    entries.push((
        OutKey::new("version", version.1),
        Out::Str(version.0, version.1),
    ));
    if let Some((text, pos)) = description {
        entries.push((OutKey::new("description", pos), Out::Str(text, pos)));
    }
    let (key, node) = template?;
    entries.push((
        OutKey::renamed(key, "system_template"),
        Out::Node(node.clone()),
    ));
    if let Some((key, node)) = f.entry("allowed_tools") {
        entries.push((OutKey::renamed(key, "tools"), Out::Node(node.clone())));
    }
    for name in PASSED_ON {
        if let Some((key, node)) = f.entry(name) {
            entries.push((OutKey::renamed(key, name), Out::Node(node.clone())));
        }
    }
    if let Some((key, _)) = f.entry("fragments") {
        cx.warning(
            key.pos,
            "spec.fragments: fragment files are not applied; write their text into `system_template`",
        );
    }
    if let Some(node) = f.get("template_engine") {
        template_engine(cx, node);
    }
    f.allow(DESCRIPTIVE);
    cx.unknown_keys(&f, "spec", UnknownKeys::Error);
    Some((task_type.0, Out::Map(entries, spec.pos)))
}

/// The template syntax promptexec renders is `{{variable}}` (with fragments);
/// another asked for is a warning.
fn template_engine(cx: &mut Checker, node: &Node) {
    let Some(mut f) = cx.map(node, "spec.template_engine") else {
        return;
    };
    if let Some(n) = f.get("syntax")
        && let Some(syntax) = cx.string(n, "spec.template_engine.syntax")
        && syntax != "{{variable}}"
    {
        cx.warning(
            n.pos,
            format!("spec.template_engine.syntax: `{syntax}` is not applied; promptexec renders `{{{{variable}}}}` placeholders"),
        );
    }
    f.allow(&["version", "features"]);
    cx.unknown_keys(&f, "spec.template_engine", UnknownKeys::Error);
}

/// A string key that must be there, with where its value is written.
fn required(
    cx: &mut Checker,
    f: &mut Fields<'_>,
    parent: &Node,
    key: &'static str,
) -> Option<(String, Pos)> {
    match f.get(key) {
        Some(node) => cx
            .nonempty_string(node, &format!("spec.{key}"))
            .map(|s| (s, node.pos)),
        None => {
            cx.error(parent.pos, format!("spec: missing key `{key}`"));
            None
        }
    }
}

/// Tool keys that say how the tool runs: passed on to the RuntimeConfig's
/// `spec.tools`, which binds it.
const RUN_KEYS: &[&str] = &[
    "mode",
    "timeout_ms",
    "mock_result",
    "mock_template",
    "mock_parts",
    "http",
    "exec",
    "client",
];

/// One Tool file, read: the pack tool it becomes, and how it runs.
pub(super) struct ToolFile {
    pub tool: ArenaTool,
    pub def: Out,
    /// The keys of its `spec` that say how it runs, as a RuntimeConfig tool.
    pub binding: Node,
}

/// Reads the Tool at `path`; `None` when it has errors (they are in `found`).
pub(super) fn tool_file(path: &Path, found: &mut Diagnostics) -> Option<ToolFile> {
    let mut file = match read(path) {
        Ok(file) => file,
        Err(problems) => {
            found.extend(problems);
            return None;
        }
    };
    let out = walk_tool(&mut file.cx, &file.root, path);
    let ok = !file.cx.diagnostics.has_errors();
    found.extend(file.cx.diagnostics);
    out.filter(|_| ok)
}

fn walk_tool(cx: &mut Checker, root: &Node, path: &Path) -> Option<ToolFile> {
    let (meta_name, spec) = envelope(cx, root, "Tool")?;
    let mut f = cx.map(spec, "spec")?;
    let name = match f.get("name") {
        Some(node) => cx.nonempty_string(node, "spec.name").map(|s| (s, node.pos)),
        None => match meta_name {
            Some(name) => Some((name, root.pos)),
            None => {
                cx.error(spec.pos, "spec: missing key `name` (or `metadata.name`)");
                None
            }
        },
    };
    let description = required(cx, &mut f, spec, "description");
    // How it runs is the config's to read (its tool bindings).
    f.allow(RUN_KEYS);
    let mut entries: Vec<(OutKey, Out)> = Vec::new();
    let (name, name_pos) = name?;
    entries.push((
        OutKey::new("name", name_pos),
        Out::Str(name.clone(), name_pos),
    ));
    let (description, description_pos) = description?;
    entries.push((
        OutKey::new("description", description_pos),
        Out::Str(description, description_pos),
    ));
    for (from, to) in [
        ("input_schema", "parameters"),
        ("output_schema", "output_schema"),
    ] {
        if let Some((key, node)) = f.entry(from)
            && !is_empty_map(node)
        {
            entries.push((OutKey::renamed(key, to), Out::Node(node.clone())));
        }
    }
    cx.unknown_keys(&f, "spec", UnknownKeys::Error);
    let tool = ArenaTool {
        name,
        file: path.to_path_buf(),
        pos: spec.pos,
    };
    let mut binding = spec.clone();
    if let crate::doc::Value::Map(entries) = &mut binding.value {
        entries.retain(|(key, _)| RUN_KEYS.contains(&key.name.as_str()));
    }
    Some(ToolFile {
        tool,
        def: Out::Map(entries, spec.pos),
        binding,
    })
}

fn is_empty_map(node: &Node) -> bool {
    matches!(&node.value, crate::doc::Value::Map(entries) if entries.is_empty())
}
