//! Walks a parsed RuntimeConfig document into [`RuntimeConfig`], reporting every
//! problem on the way: the envelope, `spec`'s sections and logging here; providers in
//! `provider`, extensions' exec bindings in `exec`, hooks in `hooks` and `server_hook`,
//! MCP servers in `mcp`.

use std::path::{Path, PathBuf};

use crate::doc::{Checker, Fields, Node, Pos, UnknownKeys, Value};

use crate::config::model::*;

pub(super) const API_VERSION: &str = "promptkit.altairalabs.ai/v1alpha1";

/// Sections of `spec` that PromptKit defines and promptexec does not use.
const UNUSED_SECTIONS: &[&str] = &[
    "embedding_providers",
    "tts_providers",
    "stt_providers",
    "state_store",
    "sandboxes",
    "selectors",
    "skills",
    "tool_selector",
];

pub(crate) fn resolve(
    root: &Node,
    base_dir: &Path,
    check_files: bool,
    cx: &mut Checker,
) -> RuntimeConfig {
    let mut config = RuntimeConfig {
        base_dir: base_dir.to_path_buf(),
        ..RuntimeConfig::default()
    };
    let mut r = Resolver {
        cx,
        base_dir,
        check_files,
        env_mode: EnvMode::default(),
    };
    let Some(mut top) = r.cx.map(root, "the RuntimeConfig") else {
        return config;
    };
    r.envelope(&mut top, root.pos, &mut config);
    match top.get("spec") {
        Some(spec) => r.spec(spec, &mut config),
        None => {
            r.cx.error(root.pos, "missing key `spec`: the RuntimeConfig's settings")
        }
    }
    top.allow(&["$schema"]);
    r.cx.unknown_keys(&top, "the RuntimeConfig", UnknownKeys::Error);
    crate::config::register_secrets(&config, &|name| std::env::var(name).ok());
    config
}

/// What every step of the walk needs: the checker that collects diagnostics, and the
/// settings that apply to every extension. Each subject (`exec`, `hooks`,
/// `server_hook`) adds its own methods.
pub(super) struct Resolver<'c> {
    pub cx: &'c mut Checker,
    pub base_dir: &'c Path,
    pub check_files: bool,
    /// `spec.env_mode`: the default for every extension.
    pub env_mode: EnvMode,
}

impl Resolver<'_> {
    fn envelope(&mut self, top: &mut Fields<'_>, pos: Pos, config: &mut RuntimeConfig) {
        match top.get("apiVersion") {
            Some(node) => {
                if let Some(v) = self.cx.string(node, "apiVersion")
                    && v != API_VERSION
                {
                    self.cx.error(
                        node.pos,
                        format!("apiVersion: expected `{API_VERSION}`, found `{v}`"),
                    );
                }
            }
            None => self
                .cx
                .error(pos, format!("missing key `apiVersion` (`{API_VERSION}`)")),
        }
        match top.get("kind") {
            Some(node) => {
                if let Some(v) = self.cx.string(node, "kind")
                    && v != "RuntimeConfig"
                {
                    self.cx.error(
                        node.pos,
                        format!("kind: expected `RuntimeConfig`, found `{v}`"),
                    );
                }
            }
            None => self.cx.error(pos, "missing key `kind` (`RuntimeConfig`)"),
        }
        if let Some(node) = top.get("metadata")
            && let Some(mut meta) = self.cx.map(node, "metadata")
        {
            config.name = meta
                .get("name")
                .and_then(|n| self.cx.string(n, "metadata.name"));
            meta.allow(&["namespace", "labels", "annotations"]);
            self.cx.unknown_keys(&meta, "metadata", UnknownKeys::Error);
        }
    }

    fn spec(&mut self, node: &Node, config: &mut RuntimeConfig) {
        let Some(mut spec) = self.cx.map(node, "spec") else {
            return;
        };
        if let Some(n) = spec.get("env_mode") {
            self.env_mode = self.env_mode(n, "spec.env_mode").unwrap_or_default();
        }
        if let Some(n) = spec.get("providers") {
            self.providers(n, config);
        }
        if let Some(n) = spec.get("tools") {
            for (key, entry) in self.named_entries(n, "spec.tools") {
                if let Some(tool) = self.tool(key, entry) {
                    config.tools.insert(key.name.clone(), tool);
                }
            }
        }
        if let Some(n) = spec.get("evals") {
            for (key, entry) in self.named_entries(n, "spec.evals") {
                if let Some(eval) = self.eval(key, entry) {
                    config.evals.insert(key.name.clone(), eval);
                }
            }
        }
        if let Some(n) = spec.get("hooks") {
            for (key, entry) in self.named_entries(n, "spec.hooks") {
                if let Some(hook) = self.hook(key, entry) {
                    config.hooks.insert(key.name.clone(), hook);
                }
            }
        }
        if let Some(n) = spec.get("mcp_servers") {
            self.mcp_servers(n, config);
        }
        if let Some(n) = spec.get("logging") {
            config.logging = self.logging(n);
        }
        self.cx.ignored_keys(&mut spec, UNUSED_SECTIONS, "spec");
        self.cx.unknown_keys(&spec, "spec", UnknownKeys::Error);
    }

    fn named_entries<'a>(
        &mut self,
        node: &'a Node,
        what: &str,
    ) -> Vec<(&'a crate::doc::Key, &'a Node)> {
        match &node.value {
            Value::Map(entries) => entries.iter().map(|(k, v)| (k, v)).collect(),
            _ => {
                self.cx.map(node, what);
                Vec::new()
            }
        }
    }

    /// A string that may be secret: a wrong one is described by its kind, never by
    /// its value.
    pub(super) fn secret_text(&mut self, node: &Node, what: &str) -> Option<String> {
        match &node.value {
            Value::Str(text) => Some(text.clone()),
            _ => {
                self.cx.error(
                    node.pos,
                    format!("{what}: expected a string, found {}", node.kind()),
                );
                None
            }
        }
    }

    /// A non-empty string that may be secret, reported like [`Self::secret_text`].
    pub(super) fn secret_string(&mut self, node: &Node, what: &str) -> Option<String> {
        let text = self.secret_text(node, what)?;
        if text.trim().is_empty() {
            self.cx
                .error(node.pos, format!("{what}: must not be empty"));
            return None;
        }
        Some(text)
    }

    fn logging(&mut self, node: &Node) -> Logging {
        let mut logging = Logging::default();
        let Some(mut f) = self.cx.map(node, "spec.logging") else {
            return logging;
        };
        logging.default_level = f.get("defaultLevel").and_then(|n| {
            self.cx
                .choice(n, "spec.logging.defaultLevel", LogLevel::WIRE)
        });
        if let Some(format) = f
            .get("format")
            .and_then(|n| self.cx.choice(n, "spec.logging.format", LogFormat::WIRE))
        {
            logging.format = format;
        }
        self.cx
            .ignored_keys(&mut f, &["commonFields", "modules"], "spec.logging");
        self.cx.unknown_keys(&f, "spec.logging", UnknownKeys::Error);
        logging
    }
}

/// `base` joined with `rel`, without the `.` steps that make messages harder to read.
pub(super) fn join_clean(base: &Path, rel: &str) -> PathBuf {
    base.join(rel)
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::doc::parse_yaml;

    pub(crate) fn resolve_text(yaml: &str) -> (RuntimeConfig, Checker) {
        let text = format!("apiVersion: {API_VERSION}\nkind: RuntimeConfig\n{yaml}");
        let path = Path::new("/project/conf/runtimeconfig.yaml");
        let root = parse_yaml(path, &text).expect("valid yaml");
        let mut cx = Checker::new(path, &text);
        let config = resolve(&root, Path::new("/project/conf"), false, &mut cx);
        (config, cx)
    }

    #[test]
    fn wrong_envelope_is_reported() {
        let text = "apiVersion: v2\nkind: Pack\nspec: {}\n";
        let path = Path::new("c.yaml");
        let root = parse_yaml(path, text).expect("valid yaml");
        let mut cx = Checker::new(path, text);
        resolve(&root, Path::new("/"), false, &mut cx);
        let lines: Vec<String> = cx.diagnostics.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                format!("c.yaml:1:13: apiVersion: expected `{API_VERSION}`, found `v2`"),
                "c.yaml:2:7: kind: expected `RuntimeConfig`, found `Pack`".to_string(),
            ]
        );
    }
}
