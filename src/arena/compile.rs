//! An Arena's files compiled into what the suite plays: the PromptConfig and Tool
//! files into one PromptPack, the Provider files (with the inline `runtime` and the
//! `mcp_servers`) into one RuntimeConfig. Each is written as JSON and read by the
//! pack's and the config's own loaders, so they are checked exactly as a pack or a
//! config would be; every problem found is placed back in the file it came from.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;

use crate::agents::{OfferedTool, RuntimeSpec};
use crate::doc::{Diagnostic, Diagnostics, Loaded, Node, Pos, Rejected, Value, finish};
use crate::pack;

use super::eval_file::EVAL_PROMPT;
use super::model::*;
use super::source_map::{Out, OutKey, SourceMap};

/// What the Arena file names, read and waiting to be compiled.
#[derive(Default)]
pub(super) struct Parts {
    /// Each PromptConfig: its file, its `task_type`, the pack prompt it becomes.
    pub prompts: Vec<(PathBuf, String, Out)>,
    /// Each Tool: its file and the pack tool it becomes (in the order of
    /// `Arena::tools`).
    pub tools: Vec<(PathBuf, Out)>,
    /// Each Provider file, its group, and where it is listed.
    pub providers: Vec<(PathBuf, String, Pos)>,
    /// Each Tool file's keys that say how it runs (in the order of `tools`).
    pub bindings: Vec<Node>,
    /// `runtime`, when it is written inline.
    pub runtime: Option<Node>,
    pub mcp_servers: Option<Node>,
    /// `workflow`: the pack's workflow.
    pub workflow: Option<Node>,
    /// `a2a_agents`, `memory` and `skills`, as written.
    pub runtime_tools: IndexMap<String, Raw>,
}

/// The keys of an Arena's `spec` that declare the tools its runtime answers.
pub(super) const RUNTIME_KEYS: &[&str] = &["a2a_agents", "memory", "skills"];

pub(super) fn compile(
    mut arena: Arena,
    parts: Parts,
    check_files: bool,
) -> Result<Loaded<Project>, Rejected> {
    let mut found = Diagnostics::default();
    let (runtime, offered) = runtime_tools(&arena, &parts, &mut found);
    let pack = build_pack(&arena, &parts, &offered, &mut found);
    let config = super::compile_config::build_config(&mut arena, &parts, check_files, &mut found);
    found.extend(super::check::check(&arena));
    let (Some((mut pack, source_map)), Some((mut config, config_map))) = (pack, config) else {
        return Err(Rejected(found));
    };
    offer_runtime_tools(&mut pack, &offered);
    config.runtime_tools = runtime;
    // The Arena's defaults for what a provider does not set itself.
    for p in &mut config.providers {
        let d = &arena.defaults;
        p.defaults.temperature = p.defaults.temperature.or(d.temperature);
        p.defaults.max_tokens = p.defaults.max_tokens.or(d.max_tokens);
    }
    for (p, played) in arena.providers.iter_mut().zip(&config.providers) {
        p.provider = played.clone();
    }
    // A judge eval names a judge, which the judge set maps to its provider.
    config.judges = arena
        .judges
        .iter()
        .map(|j| (j.name.clone(), j.provider.clone()))
        .collect();
    let project = Project {
        arena,
        pack,
        source_map,
        config_map,
        config,
    };
    finish(project, found)
}

/// A scratch file in the temporary folder for the compiled pack (a pack names no
/// file, so it can be read from anywhere).
fn scratch(text: &str) -> Result<tempfile::NamedTempFile, Diagnostic> {
    let made = tempfile::Builder::new().suffix(".json").tempfile();
    let mut file =
        made.map_err(|err| Diagnostic::plain(format!("cannot write a scratch file: {err}")))?;
    std::io::Write::write_all(&mut file, text.as_bytes())
        .map_err(|err| Diagnostic::plain(format!("cannot write a scratch file: {err}")))?;
    Ok(file)
}

/// The runtime tools the Arena declares (`a2a_agents` with mocked `responses`,
/// `memory.enabled`, `skills`), checked by starting them once, and the tools they
/// offer.
fn runtime_tools(
    arena: &Arena,
    parts: &Parts,
    found: &mut Diagnostics,
) -> (Option<RuntimeSpec>, Vec<(OfferedTool, Pos)>) {
    let kept = &parts.runtime_tools;
    if kept.is_empty() {
        return (None, Vec::new());
    }
    let mut spec = RuntimeSpec {
        agents: kept.get("a2a_agents").map(|r| r.value.clone()),
        memory: kept
            .get("memory")
            .is_some_and(|r| r.value.get("enabled") == Some(&serde_json::Value::Bool(true))),
        ..RuntimeSpec::default()
    };
    if let Some(raw) = kept.get("skills") {
        for entry in raw.value.as_array().into_iter().flatten() {
            let Some(path) = entry.get("path").and_then(|p| p.as_str()) else {
                found.push(Diagnostic::error(
                    &raw.file,
                    raw.pos,
                    "spec.skills: each entry needs a `path` (a skill folder or a folder of them)",
                ));
                continue;
            };
            let dir = arena.dir.join(path);
            if entry.get("preload") == Some(&serde_json::Value::Bool(true)) {
                spec.preload.push(dir.clone());
            }
            spec.skills.push(dir);
        }
    }
    let (spec, offered) = match spec.checked() {
        Ok(checked) => checked,
        Err(error) => {
            let at = kept
                .get(if matches!(error, crate::agents::SpecError::Agents(_)) {
                    "a2a_agents"
                } else {
                    "skills"
                })
                .or_else(|| kept.values().next());
            if let Some(raw) = at {
                found.push(Diagnostic::error(
                    &raw.file,
                    raw.pos,
                    format!("spec.{error}"),
                ));
            }
            return (None, Vec::new());
        }
    };
    if let Some(raw) = kept.get("a2a_agents")
        && !offered.iter().any(|t| t.name.starts_with("a2a__"))
    {
        found.push(Diagnostic::warning(
            &raw.file,
            raw.pos,
            "spec.a2a_agents: no agent has mocked `responses`; promptexec offers none of them",
        ));
    }
    let offered = offered
        .into_iter()
        .map(|tool| {
            let key = match tool.name.split("__").next() {
                Some("a2a") => "a2a_agents",
                Some("skill") => "skills",
                _ => "memory",
            };
            let pos = kept.get(key).map_or(Pos::START, |r| r.pos);
            (tool, pos)
        })
        .collect();
    (Some(spec), offered)
}

/// Each runtime tool joins the pack's tools and is offered to every prompt, as
/// PromptKit offers its implicit `a2a__`, `memory__` and `skill__` tools whatever
/// `allowed_tools` says.
fn offer_runtime_tools(pack: &mut pack::Pack, offered: &[(OfferedTool, Pos)]) {
    for (tool, pos) in offered {
        pack.tools
            .entry(tool.name.clone())
            .or_insert_with(|| pack::ToolDef {
                name: tool.name.clone(),
                description: tool.description.clone(),
                parameters: tool.input_schema.clone(),
                output_schema: None,
                pos: *pos,
            });
        for prompt in pack.prompts.values_mut() {
            if !prompt.tools.iter().any(|(name, _)| *name == tool.name) {
                prompt.tools.push((tool.name.clone(), *pos));
            }
        }
    }
}

fn build_pack(
    arena: &Arena,
    parts: &Parts,
    runtime: &[(OfferedTool, Pos)],
    found: &mut Diagnostics,
) -> Option<(pack::Pack, SourceMap)> {
    let mut map = SourceMap::on_line(1);
    let top = map.file(&arena.path);
    let start = Pos::START;
    let mut prompts = Vec::new();
    let defined: Vec<&str> = arena.tools.iter().map(|t| t.name.as_str()).collect();
    let runtime: Vec<&str> = runtime.iter().map(|(t, _)| t.name.as_str()).collect();
    for (file, task_type, prompt) in &parts.prompts {
        let index = map.file(file);
        let prompt = offered_tools(clone_out(prompt), (&defined, &runtime), file, found);
        prompts.push((
            OutKey::in_file(task_type.clone(), start, index),
            Out::In(index, Box::new(prompt)),
        ));
    }
    if prompts.is_empty() && !arena.evals.is_empty() {
        // Eval files play no prompt: their recordings hold the answers.
        let field = |k: &str, v: &str| (OutKey::new(k, start), Out::Str(v.into(), start));
        let prompt = [
            ("id", EVAL_PROMPT),
            ("name", EVAL_PROMPT),
            ("version", "v1"),
        ];
        let mut fields: Vec<_> = prompt.iter().map(|(k, v)| field(k, v)).collect();
        fields.push(field("system_template", "A saved conversation, judged."));
        prompts.push((OutKey::new(EVAL_PROMPT, start), Out::Map(fields, start)));
    }
    if prompts.is_empty() {
        found.push(Diagnostic::error(
            &arena.path,
            arena.defaults_pos,
            "spec.prompt_configs: the Arena names no prompt config for its scenarios to play",
        ));
        return None;
    }
    let mut tools = Vec::new();
    for ((file, def), tool) in parts.tools.iter().zip(&arena.tools) {
        let index = map.file(file);
        tools.push((
            OutKey::in_file(tool.name.clone(), tool.pos, index),
            Out::In(index, Box::new(clone_out(def))),
        ));
    }
    let mut entries = vec![
        (
            OutKey::new("id", start),
            Out::Str(arena.name.clone(), start),
        ),
        (
            OutKey::new("name", start),
            Out::Str(arena.name.clone(), start),
        ),
        (OutKey::new("version", start), Out::Str("v1".into(), start)),
    ];
    if !prompts.is_empty() {
        entries.push((OutKey::new("prompts", start), Out::Map(prompts, start)));
    }
    if !tools.is_empty() {
        entries.push((OutKey::new("tools", start), Out::Map(tools, start)));
    }
    if let Some(workflow) = &parts.workflow {
        entries.push((
            OutKey::new("workflow", workflow.pos),
            Out::Node(workflow.clone()),
        ));
    }
    let text = map.write(&Out::Map(entries, start), top);
    // A pack names no file: it can be compiled anywhere.
    let scratch = match scratch(&text) {
        Ok(file) => file,
        Err(problem) => {
            found.push(problem);
            return None;
        }
    };
    let compiled = scratch.path().to_path_buf();
    let rename = |d: Diagnostic| pack_words(d, parts, arena);
    match pack::load(&compiled) {
        Ok(loaded) => {
            for d in map.place_all(&loaded.warnings, &compiled).iter() {
                found.push(rename(d.clone()));
            }
            let mut pack = loaded.value;
            pack.path = arena.path.clone();
            Some((pack, map))
        }
        Err(Rejected(problems)) => {
            for d in map.place_all(&problems, &compiled).iter() {
                found.push(rename(d.clone()));
            }
            None
        }
    }
}

/// A pack's pointer (`/prompts/ID/...`, `/tools/NAME/...`, `/workflow`) said in the
/// words of the file it was placed in.
fn pack_words(mut d: Diagnostic, parts: &Parts, arena: &Arena) -> Diagnostic {
    if d.file == arena.path {
        d.message = d.message.replace("/workflow", "/spec/workflow");
    }
    for (file, task_type, _) in &parts.prompts {
        if d.file == *file {
            let from = format!("/prompts/{task_type}");
            d.message = d
                .message
                .replace(&format!("{from}/tools"), "/spec/allowed_tools")
                .replace(&from, "/spec");
        }
    }
    for tool in &arena.tools {
        if d.file == tool.file {
            let from = format!("/tools/{}", tool.name);
            d.message = d
                .message
                .replace(&format!("{from}/parameters"), "/spec/input_schema")
                .replace(&from, "/spec");
        }
    }
    d
}

/// A diagnostic found after loading that points into the compiled pack (rendering,
/// evals) or config (providers), placed and said in the words of the file it
/// points into.
pub(crate) fn place_pack_diagnostics(project: &Project, found: &Diagnostics) -> Diagnostics {
    found
        .iter()
        .map(|d| {
            let placed = project.source_map.place(d, &project.arena.path);
            let placed = project.config_map.place(&placed, &project.arena.path);
            let mut words = placed;
            for p in &project.arena.prompt_configs {
                if words.file == p.file {
                    let from = format!("/prompts/{}", p.task_type);
                    words.message = words.message.replace(&from, "/spec");
                }
            }
            words
        })
        .collect()
}

/// A prompt's `tools` without the names no Tool file defines: PromptArena offers
/// those from elsewhere (MCP servers, sandboxes, skills, A2A agents); here they are
/// not offered, each named in a warning. MCP tools (`mcp__...`) stay: the config's
/// MCP servers bring them. The runtime's own tools leave the list quietly: they
/// join every prompt once the pack is read.
fn offered_tools(
    prompt: Out,
    (defined, runtime): (&[&str], &[&str]),
    file: &Path,
    found: &mut Diagnostics,
) -> Out {
    let Out::Map(entries, pos) = prompt else {
        return prompt;
    };
    let entries = entries
        .into_iter()
        .map(|(key, value)| {
            let Out::Node(Node {
                value: Value::Seq(items),
                pos: list_pos,
                offset,
            }) = value
            else {
                return (key, value);
            };
            if key.name != "tools" {
                let node = Node {
                    value: Value::Seq(items),
                    pos: list_pos,
                    offset,
                };
                return (key, Out::Node(node));
            }
            let kept = items
                .into_iter()
                .filter(|item| match item.as_str() {
                    Some(name) if runtime.contains(&name) => false,
                    Some(name) if !defined.contains(&name) && !name.starts_with("mcp__") => {
                        found.push(Diagnostic::warning(
                            file,
                            item.pos,
                            format!("spec.allowed_tools: no Tool file of the Arena defines `{name}`; it is not offered"),
                        ));
                        false
                    }
                    _ => true,
                })
                .collect();
            let node = Node {
                value: Value::Seq(kept),
                pos: list_pos,
                offset,
            };
            (key, Out::Node(node))
        })
        .collect();
    Out::Map(entries, pos)
}

fn clone_out(out: &Out) -> Out {
    match out {
        Out::Node(node) => Out::Node(node.clone()),
        Out::Str(s, pos) => Out::Str(s.clone(), *pos),
        Out::Map(entries, pos) => Out::Map(
            entries
                .iter()
                .map(|(k, v)| (OutKey::new(k.name.clone(), k.pos), clone_out(v)))
                .collect(),
            *pos,
        ),
        Out::Seq(items, pos) => Out::Seq(items.iter().map(clone_out).collect(), *pos),
        Out::In(file, value) => Out::In(*file, Box::new(clone_out(value))),
    }
}
