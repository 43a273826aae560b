//! The Arena's Provider files, its inline `runtime`, its `mcp_servers` and the
//! bindings of its Tool files compiled into one RuntimeConfig, read by the
//! config's own loader; every problem found is placed back in the file it came
//! from and said in that file's words.

use std::path::PathBuf;

use crate::config::{self, RuntimeConfig};
use crate::doc::{Diagnostic, Diagnostics, Node, Pos, Rejected, Value};

use super::compile::Parts;
use super::envelope::API_VERSION;
use super::model::*;
use super::provider_file::{provider_spec, provider_words};
use super::source_map::{Out, OutKey, SourceMap};

/// Each Provider file read, in order: its file, its group, and where it is listed.
type Groups = Vec<(PathBuf, String, Pos)>;

pub(super) fn build_config(
    arena: &mut Arena,
    parts: &Parts,
    check_files: bool,
    found: &mut Diagnostics,
) -> Option<(RuntimeConfig, SourceMap)> {
    // On a line of its own, so its positions are not taken for the pack's.
    let mut map = SourceMap::on_line(2);
    let top = map.file(&arena.path);
    let start = Pos::START;
    let mut spec = inline_runtime(parts);
    let (providers, groups, ok) = provider_specs(arena, parts, &mut map, found);
    spec.push((OutKey::new("providers", start), Out::Seq(providers, start)));
    let tools = bound_tools(&mut spec, arena, parts, &mut map);
    if !tools.is_empty() {
        spec.push((OutKey::new("tools", start), Out::Map(tools, start)));
    }
    merge_mcp_servers(&mut spec, parts);
    let text = map.write(&runtime_config_document(spec), top);
    // Relative paths in the inline runtime, the MCP servers and exec tools mean
    // what they mean beside the Arena file; the compiled config is read from memory
    // under a name of its own, and never written there.
    let base_dir = std::env::current_dir()
        .map(|cwd| cwd.join(&arena.dir))
        .unwrap_or_else(|_| arena.dir.clone());
    let mut config = load_compiled(arena, &map, &groups, text, &base_dir, check_files, found)?;
    // A Provider file that could not be read leaves the config incomplete: its
    // other problems are reported, but it is not played.
    if !ok {
        return None;
    }
    config.path = Some(arena.path.clone());
    config.base_dir = base_dir;
    let config = with_runtime_file(config, arena, check_files, found)?;
    for (provider, (_, group, _)) in config.providers.iter().zip(groups) {
        arena.providers.push(ArenaProvider {
            provider: provider.clone(),
            group,
        });
    }
    Some((config, map))
}

/// The inline `runtime`'s keys but `providers` (the Provider files give those).
fn inline_runtime(parts: &Parts) -> Vec<(OutKey, Out)> {
    let mut spec = Vec::new();
    if let Some(Node {
        value: Value::Map(entries),
        ..
    }) = &parts.runtime
    {
        for (key, node) in entries {
            if key.name != "providers" {
                spec.push((OutKey::renamed(key, &key.name), Out::Node(node.clone())));
            }
        }
    }
    spec
}

/// Each Provider file's spec, placed in its file, with the groups of those read;
/// `false` when any could not be read (the config is then still checked, for its
/// other problems, but not kept).
fn provider_specs(
    arena: &Arena,
    parts: &Parts,
    map: &mut SourceMap,
    found: &mut Diagnostics,
) -> (Vec<Out>, Groups, bool) {
    let mut providers = Vec::new();
    let mut groups = Vec::new();
    let mut ok = true;
    for (file, group, pos) in &parts.providers {
        let Some(spec_node) = provider_spec(file, &arena.dir, found) else {
            ok = false;
            continue;
        };
        let index = map.file(file);
        providers.push(Out::In(index, Box::new(Out::Node(spec_node))));
        groups.push((file.clone(), group.clone(), *pos));
    }
    (providers, groups, ok)
}

/// The config's `tools`, taken out of `spec`: the Tool files bind their tools,
/// over any tool of the inline runtime.
fn bound_tools(
    spec: &mut Vec<(OutKey, Out)>,
    arena: &Arena,
    parts: &Parts,
    map: &mut SourceMap,
) -> Vec<(OutKey, Out)> {
    let mut tools: Vec<(OutKey, Out)> = match spec.iter().position(|(k, _)| k.name == "tools") {
        Some(at) => match spec.remove(at).1 {
            Out::Node(Node {
                value: Value::Map(entries),
                ..
            }) => entries
                .into_iter()
                .filter(|(k, _)| !arena.tools.iter().any(|t| t.name == k.name))
                .map(|(k, v)| (OutKey::new(k.name, k.pos), Out::Node(v)))
                .collect(),
            _ => Vec::new(),
        },
        None => Vec::new(),
    };
    for ((file, _), (tool, binding)) in parts
        .tools
        .iter()
        .zip(arena.tools.iter().zip(&parts.bindings))
    {
        let index = map.file(file);
        tools.push((
            OutKey::in_file(tool.name.clone(), tool.pos, index),
            Out::In(index, Box::new(Out::Node(binding.clone()))),
        ));
    }
    tools
}

/// The Arena's `mcp_servers` joined to those of the inline runtime, which come
/// first, at the end of `spec`.
fn merge_mcp_servers(spec: &mut Vec<(OutKey, Out)>, parts: &Parts) {
    let Some(Node {
        value: Value::Seq(items),
        pos,
        ..
    }) = &parts.mcp_servers
    else {
        return;
    };
    let mut servers: Vec<Out> = items.iter().map(|n| Out::Node(n.clone())).collect();
    if let Some(at) = spec.iter().position(|(k, _)| k.name == "mcp_servers")
        && let (
            _,
            Out::Node(Node {
                value: Value::Seq(inline),
                ..
            }),
        ) = &spec[at]
    {
        let mut all: Vec<Out> = inline.iter().map(|n| Out::Node(n.clone())).collect();
        all.append(&mut servers);
        servers = all;
        spec.remove(at);
    }
    spec.push((OutKey::new("mcp_servers", *pos), Out::Seq(servers, *pos)));
}

/// `spec` inside the envelope of a RuntimeConfig document.
fn runtime_config_document(spec: Vec<(OutKey, Out)>) -> Out {
    let start = Pos::START;
    let entries = vec![
        (
            OutKey::new("apiVersion", start),
            Out::Str(API_VERSION.into(), start),
        ),
        (
            OutKey::new("kind", start),
            Out::Str("RuntimeConfig".into(), start),
        ),
        (OutKey::new("spec", start), Out::Map(spec, start)),
    ];
    Out::Map(entries, start)
}

/// The compiled config read by the config's loader; its warnings and problems
/// placed back in the files they came from, in those files' words.
fn load_compiled(
    arena: &Arena,
    map: &SourceMap,
    groups: &Groups,
    text: String,
    base_dir: &std::path::Path,
    check_files: bool,
    found: &mut Diagnostics,
) -> Option<RuntimeConfig> {
    let compiled = arena.dir.join("(compiled runtime config).json");
    let loaded = config::load_text(&compiled, text, base_dir, check_files);
    let provider_files: Vec<PathBuf> = groups.iter().map(|(f, ..)| f.clone()).collect();
    let words = |d: Diagnostic| config_words(d, &provider_files, arena);
    match loaded {
        Ok(loaded) => {
            for d in map.place_all(&loaded.warnings, &compiled).iter() {
                found.push(words(d.clone()));
            }
            Some(loaded.value)
        }
        Err(Rejected(problems)) => {
            for d in map.place_all(&problems, &compiled).iter() {
                found.push(words(d.clone()));
            }
            None
        }
    }
}

/// A config's path (`spec.providers[0]...`, `spec.tools.NAME...`, `spec...`) said
/// in the words of the file it was placed in.
fn config_words(mut d: Diagnostic, provider_files: &[PathBuf], arena: &Arena) -> Diagnostic {
    if provider_files.contains(&d.file) {
        d.message = provider_words(&d.message);
    } else if let Some(tool) = arena.tools.iter().find(|t| t.file == d.file) {
        let from = format!("spec.runtime.tools.{}", tool.name);
        d.message = d
            .message
            .replace(&from, "spec")
            .replace(&format!("spec.tools.{}", tool.name), "spec");
    } else if d.file == arena.path {
        d.message = d.message.replacen("spec.", "spec.runtime.", 1);
    }
    d
}

/// With `runtime` naming a file, that RuntimeConfig is played, with the compiled
/// config's providers and, after its own, its MCP servers.
fn with_runtime_file(
    mut config: RuntimeConfig,
    arena: &Arena,
    check_files: bool,
    found: &mut Diagnostics,
) -> Option<RuntimeConfig> {
    let Some(file) = &arena.runtime else {
        return Some(config);
    };
    match config::load(file, check_files) {
        Ok(loaded) => {
            found.extend(loaded.warnings);
            let mut runtime = loaded.value;
            runtime.providers = std::mem::take(&mut config.providers);
            for (name, server) in std::mem::take(&mut config.mcp_servers) {
                runtime.mcp_servers.entry(name).or_insert(server);
            }
            Some(runtime)
        }
        Err(Rejected(problems)) => {
            found.extend(problems);
            None
        }
    }
}
