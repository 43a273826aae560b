//! References inside a pack, and between a pack and a RuntimeConfig.

use crate::config::RuntimeConfig;
use crate::doc::{Checker, Diagnostic, Diagnostics, Pos, suggest};
use crate::template::{Placeholder, is_time_variable};

use super::render::check_value;
use super::{Pack, Prompt, TemplateText};

/// Placeholders that insert a fragment rather than a variable.
pub(super) const FRAGMENT_PREFIX: &str = "fragments.";

/// Calls `visit` for every placeholder the template uses, following fragments, with
/// the placeholder's position in the pack file. Reports unknown and circular fragments.
pub(super) fn walk_placeholders(
    pack: &Pack,
    template: &TemplateText,
    cx: &mut Checker,
    stack: &mut Vec<String>,
    visit: &mut dyn FnMut(&Placeholder, Pos, &mut Checker),
) {
    let mut file = template.file_cursor(&pack.text);
    for p in template.template.placeholders() {
        let pos = file.locate(p.offset);
        let Some(fragment) = p.name.strip_prefix(FRAGMENT_PREFIX) else {
            visit(p, pos, cx);
            continue;
        };
        let Some(inner) = pack.fragments.get(fragment) else {
            let hint = suggest(fragment, pack.fragments.keys().map(String::as_str));
            cx.error(
                pos,
                format!("`{{{{{}}}}}` names no fragment of this pack{hint}", p.name),
            );
            continue;
        };
        if stack.iter().any(|f| f == fragment) {
            cx.error(
                pos,
                format!(
                    "fragment `{fragment}` includes itself (through {})",
                    stack.join(" → ")
                ),
            );
            continue;
        }
        stack.push(fragment.to_string());
        walk_placeholders(pack, inner, cx, stack, visit);
        stack.pop();
    }
}

/// The pack's own references: placeholders, tool lists, defaults, tool schemas.
pub(super) fn check_pack(pack: &Pack, cx: &mut Checker) {
    for prompt in pack.prompts.values() {
        check_prompt(pack, prompt, cx);
    }
    for tool in pack.tools.values() {
        // An empty name is refused where it is read.
        if !tool.name.is_empty()
            && let Err(err) = crate::tools::check_tool_name(&tool.name)
        {
            cx.error(
                tool.pos,
                format!(
                    "/tools/{}: a model cannot be offered this tool: {err}",
                    tool.name.escape_debug()
                ),
            );
        }
        let schemas = std::iter::once(("parameters", &tool.parameters))
            .chain(tool.output_schema.iter().map(|s| ("output_schema", s)));
        for (field, schema) in schemas {
            if let Err(err) = jsonschema::validator_for(schema) {
                let at = err.instance_path().to_string();
                cx.error(
                    tool.pos,
                    format!(
                        "/tools/{}/{field}{at}: not a valid JSON Schema: {err}",
                        tool.name
                    ),
                );
            }
        }
    }
}

fn check_prompt(pack: &Pack, prompt: &Prompt, cx: &mut Checker) {
    let at = format!("/prompts/{}", prompt.id);
    let mut used: std::collections::HashSet<String> = std::collections::HashSet::new();
    walk_placeholders(
        pack,
        &prompt.system_template,
        cx,
        &mut Vec::new(),
        &mut |p, pos, cx| {
            if prompt.variable(&p.name).is_some() {
                used.insert(p.name.clone());
                return;
            }
            if is_time_variable(&p.name) {
                return;
            }
            // A workflow's session fills these itself.
            if pack.workflow.is_some()
                && (p.name == crate::pack::workflow::CONTEXT_VARIABLE
                    || p.name.starts_with("artifacts."))
            {
                return;
            }
            // PromptKit fills such names from the caller's context, so this is only a
            // warning; rendering without a value for it is the error.
            let hint = suggest(&p.name, prompt.variables.iter().map(|v| v.name.as_str()));
            cx.warning(
                pos,
                format!(
                    "placeholder `{{{{{}}}}}` is not a declared variable of prompt `{}`, so it needs a value when rendered (--var {}=…){hint}",
                    p.name, prompt.id, p.name
                ),
            );
        },
    );
    for var in &prompt.variables {
        if !used.contains(&var.name) {
            cx.warning(
                var.pos,
                format!(
                    "{at}: variable `{}` is declared but the template never uses it",
                    var.name
                ),
            );
        }
        if let Some(default) = &var.default
            && let Err(problem) = check_value(var, default)
        {
            cx.error(
                var.pos,
                format!("{at}: default of variable `{}`: {problem}", var.name),
            );
        }
    }
    for (tool, pos) in &prompt.tools {
        // MCP tools come from their servers; the config says which exist.
        if !pack.tools.contains_key(tool) && !crate::mcp::is_mcp(tool) {
            let hint = suggest(tool, pack.tools.keys().map(String::as_str));
            cx.error(
                *pos,
                format!("{at}/tools: prompt `{}` offers tool `{tool}`, which the pack does not define{hint}", prompt.id),
            );
        }
    }
}

/// Tools bound in the config must exist in the pack; tools the pack's prompts offer
/// should be bound, or calls to them cannot run.
pub fn check_against_config(pack: &Pack, config: &RuntimeConfig) -> Diagnostics {
    let mut out = Diagnostics::default();
    let Some(config_path) = &config.path else {
        return out;
    };
    for tool in config.tools.values() {
        if !pack.tools.contains_key(&tool.name) {
            let hint = suggest(&tool.name, pack.tools.keys().map(String::as_str));
            out.push(Diagnostic::error(
                config_path,
                tool.pos,
                format!(
                    "tool `{}` is bound here but {} does not define it{hint}",
                    tool.name,
                    pack.path.display()
                ),
            ));
        }
    }
    for prompt in pack.prompts.values() {
        out.extend(unbound_tools(pack, prompt, config));
    }
    out.extend(unprovided_tools(pack, config, config_path));
    out
}

/// The tools `prompt` offers that nothing provides: an exec tool with no binding, or
/// an `mcp__…` entry naming a server the config does not bind. Calls to them cannot run.
pub fn unbound_tools(pack: &Pack, prompt: &Prompt, config: &RuntimeConfig) -> Diagnostics {
    let mut out = Diagnostics::default();
    let Some(config_path) = &config.path else {
        return out;
    };
    for (tool, pos) in &prompt.tools {
        if crate::mcp::is_mcp(tool) && !pack.tools.contains_key(tool) {
            if !names_a_bound_server(tool, config) {
                out.push(Diagnostic::warning(
                    &pack.path,
                    *pos,
                    format!(
                        "`{tool}` names no MCP server of {}; calls to it cannot run{}",
                        config_path.display(),
                        server_hint(tool, config)
                    ),
                ));
            }
            continue;
        }
        if pack.tools.contains_key(tool) && !provided(tool, config) {
            out.push(Diagnostic::warning(
                &pack.path,
                *pos,
                format!(
                    "tool `{tool}` has no `exec` binding in {} (nor `mode: mock` or `mode: live`); calls to it cannot run",
                    config_path.display()
                ),
            ));
        }
    }
    out
}

/// The pack's tools that no prompt offers and nothing provides.
fn unprovided_tools(
    pack: &Pack,
    config: &RuntimeConfig,
    config_path: &std::path::Path,
) -> Diagnostics {
    let mut out = Diagnostics::default();
    for tool in pack.tools.values() {
        let offered = pack
            .prompts
            .values()
            .any(|p| p.tools.iter().any(|(name, _)| *name == tool.name));
        if !offered && !provided(&tool.name, config) {
            out.push(Diagnostic::warning(
                &pack.path,
                tool.pos,
                format!(
                    "tool `{}` is defined here but neither a binding in {} nor an MCP server provides it",
                    tool.name,
                    config_path.display()
                ),
            ));
        }
    }
    out
}

/// Whether the config runs tool `name`: an exec, mock or live binding, or a bound
/// MCP server's tool.
fn provided(name: &str, config: &RuntimeConfig) -> bool {
    let bound = config.tools.get(name).is_some_and(|t| t.run.callable());
    let runtime = config
        .runtime_tools
        .as_ref()
        .is_some_and(|tools| tools.offers(name));
    bound || runtime || (crate::mcp::is_mcp(name) && names_a_bound_server(name, config))
}

/// Whether an `mcp__<server>__…` name (or glob) can reach a server the config binds.
fn names_a_bound_server(entry: &str, config: &RuntimeConfig) -> bool {
    config
        .mcp_servers
        .keys()
        .any(|server| crate::mcp::names_server(entry, server))
}

fn server_hint(entry: &str, config: &RuntimeConfig) -> String {
    let server = crate::mcp::split(entry).map_or(entry, |(s, _)| s);
    suggest(server, config.mcp_servers.keys().map(String::as_str))
}
