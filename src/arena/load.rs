//! Reading a `kind: Arena` file and every file it names, as PromptArena's loader
//! does: each problem in any of them reported at its `FILE:LINE:COL`, keys
//! PromptArena does not define refused with a "did you mean", keys it defines that
//! nothing here plays warned about by name.

use std::path::Path;

use indexmap::IndexMap;

use crate::doc::{
    Checker, Diagnostic, Diagnostics, Fields, Loaded, Node, Pos, Rejected, UnknownKeys, finish,
};

use super::compile::{self, Parts};
use super::envelope::{envelope, read};
use super::eval_file::eval_file;
use super::model::*;
use super::prompt_config::{prompt_config, tool_file};
use super::spec;

/// Keys of an Arena's `spec` kept as data and reported as not played.
const EXTRAS_UNPLAYED: &[&str] = &[
    "agents",
    "compositions",
    "deploy",
    "state_store",
    "voices",
    "pack_evals",
    "pack_file",
    "provider_specs",
    "scenario_specs",
    "eval_specs",
    "tool_specs",
    "judge_specs",
    "prompt_specs",
    "tts_providers",
    "stt_providers",
    "embedding_providers",
    "image_providers",
];

/// Reads the Arena project at `path` and compiles its pack. With `check_files`,
/// the files its RuntimeConfig names must exist (what `validate` wants).
pub(crate) fn load(path: &Path, check_files: bool) -> Result<Loaded<Project>, Rejected> {
    let mut file = read(path).map_err(Rejected)?;
    let mut found = Diagnostics::default();
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let read = walk(&mut file.cx, &file.root, path, &dir, &mut found);
    let mut all = std::mem::take(&mut file.cx.diagnostics);
    all.extend(found);
    let Some((arena, parts)) = read else {
        return Err(Rejected(all));
    };
    if all.has_errors() {
        return Err(Rejected(all));
    }
    match compile::compile(arena, parts, check_files) {
        Ok(loaded) => {
            all.extend(loaded.warnings);
            finish(loaded.value, all)
        }
        Err(Rejected(problems)) => {
            all.extend(problems);
            Err(Rejected(all))
        }
    }
}

/// The Arena's `spec`, read key by key in a fixed order (the order its problems
/// are reported in), then checked for keys PromptArena does not define.
fn walk(
    cx: &mut Checker,
    root: &Node,
    path: &Path,
    dir: &Path,
    found: &mut Diagnostics,
) -> Option<(Arena, Parts)> {
    let (name, spec_node) = envelope(cx, root, "Arena")?;
    let mut f = cx.map(spec_node, "spec")?;
    let mut parts = Parts::default();
    let mut arena = empty_arena(name, path, dir, spec_node.pos);
    read_named_files(cx, &mut f, spec_node.pos, &mut arena, &mut parts, found);
    read_settings(cx, &mut f, spec_node.pos, &mut arena, &mut parts);
    read_runtime(cx, &mut f, &mut arena, &mut parts);
    keep_extras(&mut f, &mut arena);
    cx.unknown_keys(&f, "spec", UnknownKeys::Error);
    Some((arena, parts))
}

/// An Arena with nothing read yet; without a `metadata.name` it is named after
/// its file.
fn empty_arena(name: Option<String>, path: &Path, dir: &Path, spec_pos: Pos) -> Arena {
    Arena {
        path: path.to_path_buf(),
        dir: dir.to_path_buf(),
        name: name.unwrap_or_else(|| {
            path.file_stem()
                .map_or_else(|| "arena".into(), |s| s.to_string_lossy().into_owned())
        }),
        prompt_configs: Vec::new(),
        providers: Vec::new(),
        scenarios: Vec::new(),
        tools: Vec::new(),
        judges: Vec::new(),
        judge_defaults: None,
        self_play: None,
        workflow: None,
        defaults: Defaults::default(),
        // Until `defaults` is read, problems about it point at `spec`.
        defaults_pos: spec_pos,
        conversation_assertions: Vec::new(),
        runtime: None,
        extras: IndexMap::new(),
        evals: Vec::new(),
    }
}

/// The keys that name other files: prompt configs, providers, scenarios, tools
/// and evals, each file read (or checked to exist) where it is named.
fn read_named_files(
    cx: &mut Checker,
    f: &mut Fields<'_>,
    spec_pos: Pos,
    arena: &mut Arena,
    parts: &mut Parts,
    found: &mut Diagnostics,
) {
    let dir = arena.dir.clone();
    if let Some(node) = f.get("prompt_configs") {
        prompt_configs(cx, node, &dir, arena, parts, found);
    }
    match f.get("providers") {
        Some(node) => providers(cx, node, &dir, parts),
        None => cx.error(spec_pos, "spec: missing key `providers`"),
    }
    if let Some(node) = f.get("scenarios") {
        scenarios(cx, node, &dir, arena);
    }
    if let Some(node) = f.get("tools") {
        tools(cx, node, &dir, arena, parts, found);
    }
    if let Some(node) = f.get("evals") {
        evals(cx, node, &dir, arena, found);
    }
}

/// `scenarios`: each file is kept even when missing, so the error is its only
/// consequence.
fn scenarios(cx: &mut Checker, node: &Node, dir: &Path, arena: &mut Arena) {
    for (file, pos) in spec::file_refs(cx, node, "spec.scenarios", dir) {
        if !file.is_file() {
            cx.error(
                pos,
                format!("spec.scenarios: file `{}` does not exist", file.display()),
            );
        }
        arena.scenarios.push((file, pos));
    }
}

/// `tools`: each Tool file read into the tool the Arena knows, the pack tool it
/// becomes and the binding that says how it runs.
fn tools(
    cx: &mut Checker,
    node: &Node,
    dir: &Path,
    arena: &mut Arena,
    parts: &mut Parts,
    found: &mut Diagnostics,
) {
    for (file, pos) in spec::file_refs(cx, node, "spec.tools", dir) {
        if !file.is_file() {
            cx.error(
                pos,
                format!("spec.tools: file `{}` does not exist", file.display()),
            );
            continue;
        }
        if let Some(tool) = tool_file(&file, found) {
            arena.tools.push(tool.tool);
            parts.tools.push((file, tool.def));
            parts.bindings.push(tool.binding);
        }
    }
}

/// `evals`: each Eval file read into the evals it holds.
fn evals(cx: &mut Checker, node: &Node, dir: &Path, arena: &mut Arena, found: &mut Diagnostics) {
    for (file, pos) in spec::file_refs(cx, node, "spec.evals", dir) {
        if file.is_file() {
            arena.evals.extend(eval_file(&file, found));
        } else {
            let shown = file.display();
            cx.error(pos, format!("spec.evals: file `{shown}` does not exist"));
        }
    }
}

/// The keys written inline that say how the suite plays: judges, self-play, the
/// workflow, the defaults and the conversation-wide assertions.
fn read_settings(
    cx: &mut Checker,
    f: &mut Fields<'_>,
    spec_pos: Pos,
    arena: &mut Arena,
    parts: &mut Parts,
) {
    if let Some(node) = f.get("judges") {
        arena.judges = spec::judges(cx, node);
    }
    if let Some(node) = f.get("judge_defaults") {
        arena.judge_defaults = Some(spec::judge_defaults(cx, node));
    }
    if let Some(node) = f.get("self_play") {
        arena.self_play = spec::self_play(cx, node, &arena.dir);
    }
    if let Some(node) = f.get("workflow") {
        arena.workflow = Some(raw(node, &arena.path));
        parts.workflow = Some(node.clone());
    }
    match f.get("defaults") {
        Some(node) => {
            arena.defaults = spec::defaults(cx, node, &arena.dir);
            arena.defaults_pos = node.pos;
        }
        None => cx.error(spec_pos, "spec: missing key `defaults`"),
    }
    if let Some(node) = f.get("globals") {
        arena.conversation_assertions = spec::globals(cx, node);
    }
}

/// The keys that make up the RuntimeConfig: `runtime` (a file, or written
/// inline), `mcp_servers`, and the runtime tools (`a2a_agents`, `memory`,
/// `skills`), kept for compiling.
fn read_runtime(cx: &mut Checker, f: &mut Fields<'_>, arena: &mut Arena, parts: &mut Parts) {
    if let Some(node) = f.get("runtime") {
        match &node.value {
            crate::doc::Value::Str(file) => arena.runtime = Some(arena.dir.join(file)),
            _ => {
                cx.map(node, "spec.runtime");
                parts.runtime = Some(node.clone());
            }
        }
    }
    if let Some(node) = f.get("mcp_servers") {
        cx.list(node, "spec.mcp_servers");
        parts.mcp_servers = Some(node.clone());
    }
    for key in compile::RUNTIME_KEYS {
        if let Some((k, node)) = f.entry(key) {
            let mut kept = raw(node, &arena.path);
            kept.pos = k.pos;
            parts.runtime_tools.insert((*key).to_string(), kept);
        }
    }
}

/// The keys PromptArena defines that nothing here plays, kept as written.
fn keep_extras(f: &mut Fields<'_>, arena: &mut Arena) {
    for key in EXTRAS_UNPLAYED {
        if let Some((k, node)) = f.entry(key) {
            // Warned about once everything is read (with how many entries it has).
            let mut kept = raw(node, &arena.path);
            kept.pos = k.pos;
            arena.extras.insert((*key).to_string(), kept);
        }
    }
}

fn raw(node: &Node, path: &Path) -> Raw {
    Raw {
        value: node.to_json(),
        file: path.to_path_buf(),
        pos: node.pos,
    }
}

fn prompt_configs(
    cx: &mut Checker,
    node: &Node,
    dir: &Path,
    arena: &mut Arena,
    parts: &mut Parts,
    found: &mut Diagnostics,
) {
    let Some(items) = cx.list(node, "spec.prompt_configs") else {
        return;
    };
    for (i, item) in items.iter().enumerate() {
        let at = format!("spec.prompt_configs[{i}]");
        let Some(mut f) = cx.map(item, &at) else {
            continue;
        };
        let id = match f.get("id") {
            Some(n) => cx.nonempty_string(n, &format!("{at}.id")),
            None => {
                cx.error(item.pos, format!("{at}: missing key `id`"));
                None
            }
        };
        let file = match f.get("file") {
            Some(n) => cx
                .nonempty_string(n, &format!("{at}.file"))
                .map(|s| (dir.join(s), n.pos)),
            None => {
                cx.error(item.pos, format!("{at}: missing key `file`"));
                None
            }
        };
        let mut vars = IndexMap::new();
        if let Some(n) = f.get("vars")
            && cx.map(n, &format!("{at}.vars")).is_some()
            && let crate::doc::Value::Map(entries) = &n.value
        {
            for (key, value) in entries {
                let text = match &value.value {
                    crate::doc::Value::Str(s) => s.clone(),
                    _ => value.to_json().to_string(),
                };
                vars.insert(key.name.clone(), text);
            }
        }
        cx.unknown_keys(&f, &at, UnknownKeys::Error);
        let (Some(id), Some((file, file_pos))) = (id, file) else {
            continue;
        };
        if !file.is_file() {
            cx.error(
                file_pos,
                format!("{at}.file: file `{}` does not exist", file.display()),
            );
            continue;
        }
        let Some(config) = prompt_config(&file, found) else {
            continue;
        };
        if let Some(first) = arena
            .prompt_configs
            .iter()
            .find(|p| p.task_type == config.task_type)
        {
            found.push(Diagnostic::error(
                &file,
                crate::doc::Pos::START,
                format!(
                    "task_type `{}` is also the task_type of {}; each prompt config needs its own",
                    config.task_type,
                    first.file.display()
                ),
            ));
            continue;
        }
        arena.prompt_configs.push(PromptConfigRef {
            id,
            file: file.clone(),
            task_type: config.task_type.clone(),
            vars,
            pos: item.pos,
        });
        parts.prompts.push((file, config.task_type, config.prompt));
    }
}

fn providers(cx: &mut Checker, node: &Node, dir: &Path, parts: &mut Parts) {
    let Some(items) = cx.list(node, "spec.providers") else {
        return;
    };
    for (i, item) in items.iter().enumerate() {
        let at = format!("spec.providers[{i}]");
        let Some(mut f) = cx.map(item, &at) else {
            continue;
        };
        let file = match f.get("file") {
            Some(n) => cx
                .nonempty_string(n, &format!("{at}.file"))
                .map(|s| (dir.join(s), n.pos)),
            None => {
                cx.error(item.pos, format!("{at}: missing key `file`"));
                None
            }
        };
        let group = f
            .get("group")
            .and_then(|n| cx.string(n, &format!("{at}.group")))
            .filter(|g| !g.is_empty())
            .unwrap_or_else(|| "default".into());
        cx.unknown_keys(&f, &at, UnknownKeys::Error);
        let Some((file, pos)) = file else { continue };
        if !file.is_file() {
            cx.error(
                pos,
                format!("{at}.file: file `{}` does not exist", file.display()),
            );
            continue;
        }
        parts.providers.push((file, group, item.pos));
    }
}
