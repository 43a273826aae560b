//! Walks a parsed RuntimeConfig document into [`RuntimeConfig`], reporting every
//! problem on the way.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::doc::{Checker, Fields, Node, Pos, UnknownKeys, Value, one_of, suggest};

use super::model::*;

pub const API_VERSION: &str = "promptkit.altairalabs.ai/v1alpha1";

/// Sections of `spec` that PromptKit defines and promptexec does not use.
const UNUSED_SECTIONS: &[&str] = &[
    "embedding_providers",
    "tts_providers",
    "stt_providers",
    "mcp_servers",
    "state_store",
    "sandboxes",
    "selectors",
    "skills",
    "tool_selector",
];

/// Provider keys PromptKit defines for real model APIs; accepted, not used.
const PROVIDER_KEYS_UNUSED: &[&str] = &[
    "base_url",
    "headers",
    "rate_limit",
    "defaults",
    "pricing",
    "pricing_correct_at",
    "include_raw_output",
    "credential",
    "platform",
    "capabilities",
    "unsupported_params",
    "request_timeout",
    "stream_idle_timeout",
    "stream_retry",
    "stream_max_concurrent",
    "http_transport",
];

/// Tool keys that only describe the tool; the pack's definition is the one used.
const TOOL_KEYS_DESCRIPTIVE: &[&str] = &["name", "description"];

/// Tool keys PromptKit uses for tools it runs other than by exec.
const TOOL_KEYS_UNUSED: &[&str] = &[
    "input_schema",
    "output_schema",
    "mode",
    "timeout_ms",
    "mock_result",
    "mock_template",
    "mock_parts",
    "http",
    "client",
];

const SERVER_HOOK_KEYS: &[&str] = &[
    "intercept",
    "observe",
    "on_failure",
    "approval_timeout_ms",
    "handshake_timeout_ms",
    "event_method",
];

pub fn resolve(root: &Node, base_dir: &Path, check_files: bool, cx: &mut Checker) -> RuntimeConfig {
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
    config
}

struct Resolver<'c> {
    cx: &'c mut Checker,
    base_dir: &'c Path,
    check_files: bool,
    /// `spec.env_mode`: the default for every extension.
    env_mode: EnvMode,
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

    fn providers(&mut self, node: &Node, config: &mut RuntimeConfig) {
        let Some(items) = self.cx.list(node, "spec.providers") else {
            return;
        };
        for (i, item) in items.iter().enumerate() {
            let what = format!("spec.providers[{i}]");
            let Some(mut f) = self.cx.map(item, &what) else {
                continue;
            };
            let id = f
                .get("id")
                .and_then(|n| self.cx.nonempty_string(n, &format!("{what}.id")));
            let kind = match f.get("type") {
                Some(n) => self.cx.nonempty_string(n, &format!("{what}.type")),
                None => {
                    self.cx.error(
                        item.pos,
                        format!("{what}: missing key `type` (for example `mock`)"),
                    );
                    None
                }
            };
            let model = f
                .get("model")
                .and_then(|n| self.cx.string(n, &format!("{what}.model")));
            let mock_config = f
                .get("additional_config")
                .and_then(|n| self.additional_config(n, &format!("{what}.additional_config")));
            self.cx.ignored_keys(&mut f, PROVIDER_KEYS_UNUSED, &what);
            self.cx.unknown_keys(&f, &what, UnknownKeys::Error);
            if let Some(kind) = kind {
                config.providers.push(Provider {
                    id,
                    kind,
                    model,
                    mock_config,
                    pos: item.pos,
                });
            }
        }
    }

    /// Free-form, except `mock_config`, which names a file.
    fn additional_config(&mut self, node: &Node, what: &str) -> Option<PathBuf> {
        let mut f = self.cx.map(node, what)?;
        let mock = f.get("mock_config")?;
        let name = self
            .cx
            .nonempty_string(mock, &format!("{what}.mock_config"))?;
        let path = join_clean(self.base_dir, &name);
        if self.check_files && !path.is_file() {
            self.cx.error(
                mock.pos,
                format!(
                    "{what}.mock_config: file `{}` does not exist",
                    path.display()
                ),
            );
        }
        Some(path)
    }

    fn tool(&mut self, key: &crate::doc::Key, node: &Node) -> Option<ToolBinding> {
        let what = format!("spec.tools.{}", key.name);
        let mut f = self.cx.map(node, &what)?;
        let exec = f.get("exec");
        f.allow(TOOL_KEYS_DESCRIPTIVE);
        self.cx.ignored_keys(&mut f, TOOL_KEYS_UNUSED, &what);
        self.cx.unknown_keys(&f, &what, UnknownKeys::Error);
        let exec = match exec {
            Some(exec) => {
                let exec_what = format!("{what}.exec");
                let mut ef = self.cx.map(exec, &exec_what)?;
                let spec = self.exec_spec(&mut ef, exec.pos, &exec_what);
                self.cx.unknown_keys(&ef, &exec_what, UnknownKeys::Error);
                Some(spec?)
            }
            None => {
                self.cx.warning(
                    key.pos,
                    format!("{what} has no `exec` block; promptexec can only call exec tools"),
                );
                None
            }
        };
        Some(ToolBinding {
            name: key.name.clone(),
            exec,
            pos: key.pos,
        })
    }

    fn eval(&mut self, key: &crate::doc::Key, node: &Node) -> Option<EvalBinding> {
        let what = format!("spec.evals.{}", key.name);
        let mut f = self.cx.map(node, &what)?;
        let exec = self.exec_spec(&mut f, node.pos, &what);
        self.cx.unknown_keys(&f, &what, UnknownKeys::Error);
        Some(EvalBinding {
            eval_type: key.name.clone(),
            exec: exec?,
            pos: key.pos,
        })
    }

    /// The keys every extension shares: how to start it.
    fn exec_spec(&mut self, f: &mut Fields<'_>, pos: Pos, what: &str) -> Option<ExecSpec> {
        let command = match f.get("command") {
            Some(n) => self
                .cx
                .nonempty_string(n, &format!("{what}.command"))
                .map(|c| (c, n.pos)),
            None => {
                self.cx.error(pos, format!("{what}: missing key `command`"));
                None
            }
        };
        let args = f
            .get("args")
            .and_then(|n| self.cx.string_list(n, &format!("{what}.args")))
            .unwrap_or_default();
        let env = f
            .get("env")
            .and_then(|n| self.cx.string_list(n, &format!("{what}.env")))
            .unwrap_or_default();
        for (name, at) in &env {
            if !is_env_name(name) {
                self.cx.error(
                    *at,
                    format!("{what}.env: `{name}` is not a valid environment variable name (letters, digits and `_`, not starting with a digit)"),
                );
            }
        }
        let timeout = f
            .get("timeout_ms")
            .and_then(|n| self.cx.positive_integer(n, &format!("{what}.timeout_ms")))
            .map(Duration::from_millis);
        let max_output_bytes = f.get("max_output_bytes").and_then(|n| {
            self.cx
                .positive_integer(n, &format!("{what}.max_output_bytes"))
        });
        let max_in_flight = f.get("max_in_flight").and_then(|n| {
            self.cx
                .positive_integer(n, &format!("{what}.max_in_flight"))
        });
        let runtime = f
            .get("runtime")
            .and_then(|n| {
                self.cx
                    .choice(n, &format!("{what}.runtime"), RuntimeMode::WIRE)
            })
            .unwrap_or_default();
        let working_dir = match f.get("working_dir") {
            Some(n) => {
                let dir = self
                    .base_dir
                    .join(self.cx.nonempty_string(n, &format!("{what}.working_dir"))?);
                if self.check_files && !dir.is_dir() {
                    self.cx.error(
                        n.pos,
                        format!(
                            "{what}.working_dir: directory `{}` does not exist",
                            dir.display()
                        ),
                    );
                }
                dir
            }
            None => self.base_dir.to_path_buf(),
        };
        let env_mode = match f.get("env_mode") {
            Some(n) => self.env_mode(n, &format!("{what}.env_mode")),
            None => Some(self.env_mode),
        };
        // Runs the extension directly; a PromptKit sandbox does not apply here.
        self.cx.ignored_keys(f, &["sandbox"], what);
        let (command, command_pos) = command?;
        let command = if command.contains('/') {
            let path = join_clean(self.base_dir, &command);
            if self.check_files && !path.is_file() {
                self.cx.error(
                    command_pos,
                    format!(
                        "{what}.command: `{command}` does not exist (looked for `{}`)",
                        path.display()
                    ),
                );
            }
            path
        } else {
            PathBuf::from(command)
        };
        let (args, arg_positions) = args.into_iter().unzip();
        Some(ExecSpec {
            command,
            args,
            arg_positions,
            env: env.into_iter().map(|(e, _)| e).collect(),
            timeout,
            working_dir,
            max_output_bytes,
            runtime,
            max_in_flight,
            command_pos,
            env_mode: env_mode.unwrap_or_default(),
        })
    }

    fn env_mode(&mut self, node: &Node, what: &str) -> Option<EnvMode> {
        self.cx.choice(node, what, EnvMode::WIRE)
    }

    fn hook(&mut self, key: &crate::doc::Key, node: &Node) -> Option<Hook> {
        let what = format!("spec.hooks.{}", key.name);
        let mut f = self.cx.map(node, &what)?;
        let exec = self.exec_spec(&mut f, node.pos, &what);
        let priority = f
            .get("priority")
            .and_then(|n| self.cx.integer(n, &format!("{what}.priority")))
            .unwrap_or(0);
        // An exec hook (`hook`/`phases`/`mode`) may run as a server too; a hook
        // without `hook` and with `runtime: server` is a PicoClaw-style hook.
        let kind = match exec.as_ref().map(|e| e.runtime) {
            Some(RuntimeMode::Server) if f.get("hook").is_none() => {
                self.server_hook(&mut f, node.pos, &what)
            }
            runtime => self.exec_hook(
                &mut f,
                node.pos,
                &what,
                runtime == Some(RuntimeMode::Server),
            ),
        };
        // PicoClaw's `enabled: false` keeps a hook in the file without running it.
        let enabled = f
            .get("enabled")
            .and_then(|n| self.cx.boolean(n, &format!("{what}.enabled")))
            .unwrap_or(true);
        self.cx.unknown_keys(&f, &what, UnknownKeys::Error);
        if !enabled {
            return None;
        }
        Some(Hook {
            name: key.name.clone(),
            exec: exec?,
            priority,
            kind: kind?,
            pos: key.pos,
        })
    }

    fn exec_hook(
        &mut self,
        f: &mut Fields<'_>,
        pos: Pos,
        what: &str,
        server: bool,
    ) -> Option<HookKind> {
        for name in SERVER_HOOK_KEYS {
            if let Some((k, _)) = f.entry(name) {
                let message = if server {
                    format!(
                        "{what}.{name}: a hook with `hook` gets its payloads over `execute`; `{name}` is for a JSON-RPC hook, which declares `intercept`/`observe` instead of `hook`"
                    )
                } else {
                    format!("{what}.{name}: only `runtime: server` hooks take `{name}`")
                };
                self.cx.error(k.pos, message);
            }
        }
        let hook_type = match f.get("hook") {
            Some(n) => self.cx.choice(n, &format!("{what}.hook"), HookType::WIRE),
            None => {
                self.cx.error(
                    pos,
                    format!(
                        "{what}: missing key `hook` (one of {})",
                        one_of(HookType::NAMES)
                    ),
                );
                None
            }
        };
        let phases_node = f.get("phases");
        let mode_node = f.get("mode");
        let hook_type = hook_type?;
        if hook_type == HookType::Eval {
            for (name, node) in [("phases", phases_node), ("mode", mode_node)] {
                if let Some(n) = node {
                    self.cx.warning(
                        n.pos,
                        format!(
                            "{what}.{name}: ignored for eval hooks, which see every eval result"
                        ),
                    );
                }
            }
            return Some(HookKind::Eval);
        }
        let mode =
            mode_node.and_then(|n| self.cx.choice(n, &format!("{what}.mode"), HookMode::WIRE));
        let phases = self.phases(phases_node, hook_type, pos, what);
        match hook_type {
            HookType::Provider => Some(HookKind::Provider {
                phases: phases?,
                mode: mode.unwrap_or(HookMode::Filter),
            }),
            HookType::Tool => Some(HookKind::Tool {
                phases: phases?,
                mode: mode.unwrap_or(HookMode::Filter),
            }),
            HookType::Session | HookType::Eval => {
                if let (Some(HookMode::Filter), Some(n)) = (mode, mode_node) {
                    self.cx.warning(
                        n.pos,
                        format!("{what}.mode: session hooks only observe; `filter` cannot block anything"),
                    );
                }
                Some(HookKind::Session { phases: phases? })
            }
        }
    }

    fn phases(
        &mut self,
        node: Option<&Node>,
        hook_type: HookType,
        pos: Pos,
        what: &str,
    ) -> Option<Vec<HookPhase>> {
        let own = hook_type.phases();
        let own_names: Vec<&str> = own.iter().map(|p| p.as_str()).collect();
        let Some(node) = node else {
            self.cx.error(
                pos,
                format!(
                    "{what}: missing key `phases`: a {hook_type} hook needs one or more of {}",
                    one_of(&own_names)
                ),
            );
            return None;
        };
        let items = self.cx.string_list(node, &format!("{what}.phases"))?;
        if items.is_empty() {
            self.cx.error(
                node.pos,
                format!(
                    "{what}.phases: empty, so the hook would never run; give one or more of {}",
                    one_of(&own_names)
                ),
            );
            return None;
        }
        let mut phases = Vec::new();
        let mut ok = true;
        for (name, at) in items {
            if let Some(phase) = own.iter().find(|p| p.as_str() == name) {
                if phases.contains(phase) {
                    self.cx
                        .warning(at, format!("{what}.phases: `{name}` is listed twice"));
                } else {
                    phases.push(*phase);
                }
                continue;
            }
            ok = false;
            let owner = HookType::WIRE
                .iter()
                .map(|(_, t)| *t)
                .find(|t| t.phases().iter().any(|p| p.as_str() == name));
            let message = match owner {
                Some(owner) => format!(
                    "{what}.phases: `{name}` is a {owner} hook phase; a {hook_type} hook has {}",
                    one_of(&own_names)
                ),
                None => {
                    let hint = suggest(&name, HookPhase::NAMES.iter().copied());
                    format!(
                        "{what}.phases: unknown phase `{name}`; a {hook_type} hook has {}{hint}",
                        one_of(&own_names)
                    )
                }
            };
            self.cx.error(at, message);
        }
        ok.then_some(phases)
    }

    fn server_hook(&mut self, f: &mut Fields<'_>, pos: Pos, what: &str) -> Option<HookKind> {
        // PicoClaw's process-hook keys: stdio is the only transport there is.
        if let Some(n) = f.get("transport") {
            self.cx
                .choice(n, &format!("{what}.transport"), &[("stdio", ())]);
        }
        for name in ["phases", "mode"] {
            if let Some((k, _)) = f.entry(name) {
                self.cx.error(
                    k.pos,
                    format!("{what}.{name}: a `runtime: server` hook declares `intercept` and `observe` instead"),
                );
            }
        }
        let intercept = match f.get("intercept") {
            Some(n) => self.intercepts(n, &format!("{what}.intercept"))?,
            None => Vec::new(),
        };
        let observe = match f.get("observe") {
            Some(n) => self.observe(n, &format!("{what}.observe"))?,
            None => ObserveEvents::None,
        };
        if intercept.is_empty() && observe == ObserveEvents::None {
            self.cx.error(
                pos,
                format!("{what}: a `runtime: server` hook needs `intercept`, `observe` or both, else it never runs"),
            );
        }
        let on_failure = f
            .get("on_failure")
            .and_then(|n| {
                self.cx
                    .choice(n, &format!("{what}.on_failure"), OnFailure::WIRE)
            })
            .unwrap_or(OnFailure::Skip);
        let handshake_timeout = f
            .get("handshake_timeout_ms")
            .and_then(|n| {
                self.cx
                    .positive_integer(n, &format!("{what}.handshake_timeout_ms"))
            })
            .map(Duration::from_millis);
        let approval_timeout = f
            .get("approval_timeout_ms")
            .and_then(|n| {
                self.cx
                    .positive_integer(n, &format!("{what}.approval_timeout_ms"))
            })
            .map(Duration::from_millis);
        let event_method = f
            .get("event_method")
            .and_then(|n| {
                self.cx
                    .choice(n, &format!("{what}.event_method"), EventMethod::WIRE)
            })
            .unwrap_or_else(|| default_event_method(&observe));
        Some(HookKind::Server(ServerHook {
            intercept,
            observe,
            on_failure,
            approval_timeout,
            handshake_timeout,
            event_method,
        }))
    }

    fn intercepts(&mut self, node: &Node, what: &str) -> Option<Vec<Intercept>> {
        let items = self.cx.list(node, what)?;
        let found: Vec<_> = items
            .iter()
            .map(|n| self.cx.choice(n, what, Intercept::WIRE))
            .collect();
        found.into_iter().collect()
    }

    fn observe(&mut self, node: &Node, what: &str) -> Option<ObserveEvents> {
        if node.as_str() == Some("*") {
            return Some(ObserveEvents::All);
        }
        let kinds = self.cx.string_list(node, what)?;
        if kinds.iter().any(|(k, _)| k == "*") {
            return Some(ObserveEvents::All);
        }
        for (kind, at) in &kinds {
            if !crate::hooks::selects_any(kind) {
                let names = crate::hooks::EVENT_NAMES
                    .iter()
                    .flat_map(|(ours, runtime)| [*ours, *runtime]);
                let hint = suggest(kind, names);
                self.cx.warning(
                    *at,
                    format!("{what}: `{kind}` is not an event promptexec emits{hint}"),
                );
            }
        }
        Some(ObserveEvents::Kinds(
            kinds.into_iter().map(|(k, _)| k).collect(),
        ))
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

/// PicoClaw's runtime event names (`agent.tool.exec_start`) go with its
/// `hook.runtime_event` notifications; the classic names with `hook.event`.
fn default_event_method(observe: &ObserveEvents) -> EventMethod {
    match observe {
        ObserveEvents::Kinds(kinds) if kinds.iter().any(|k| crate::hooks::is_runtime_name(k)) => {
            EventMethod::RuntimeEvent
        }
        ObserveEvents::Kinds(_) | ObserveEvents::All | ObserveEvents::None => EventMethod::Event,
    }
}

fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `base` joined with `rel`, without the `.` steps that make messages harder to read.
fn join_clean(base: &Path, rel: &str) -> PathBuf {
    base.join(rel)
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::parse_yaml;

    fn resolve_text(yaml: &str) -> (RuntimeConfig, Checker) {
        let text = format!("apiVersion: {API_VERSION}\nkind: RuntimeConfig\n{yaml}");
        let path = Path::new("/project/conf/runtimeconfig.yaml");
        let root = parse_yaml(path, &text).expect("valid yaml");
        let mut cx = Checker::new(path, &text);
        let config = resolve(&root, Path::new("/project/conf"), false, &mut cx);
        (config, cx)
    }

    #[test]
    fn paths_resolve_against_the_config_directory() {
        let (config, cx) = resolve_text(
            "spec:\n  tools:\n    a:\n      exec:\n        command: ./bin/a\n        working_dir: ../data\n    b:\n      exec:\n        command: python3\n        args: [./b.py]\n",
        );
        assert!(!cx.diagnostics.has_errors(), "{}", cx.diagnostics);
        let a = config.tools["a"].exec.as_ref().expect("exec");
        assert_eq!(a.command, Path::new("/project/conf/bin/a"));
        assert_eq!(a.working_dir, Path::new("/project/conf/../data"));
        let b = config.tools["b"].exec.as_ref().expect("exec");
        assert_eq!(
            b.command,
            Path::new("python3"),
            "bare names go through PATH"
        );
        assert_eq!(b.working_dir, Path::new("/project/conf"));
        assert_eq!(b.args, ["./b.py"]);
    }

    #[test]
    fn exec_settings_are_typed() {
        let (config, cx) = resolve_text(
            "spec:\n  evals:\n    tone:\n      command: ./tone\n      env: [API_KEY]\n      timeout_ms: 1500\n      max_output_bytes: 1024\n      runtime: server\n",
        );
        assert!(!cx.diagnostics.has_errors(), "{}", cx.diagnostics);
        let exec = &config.evals["tone"].exec;
        assert_eq!(exec.timeout, Some(Duration::from_millis(1500)));
        assert_eq!(exec.max_output_bytes, Some(1024));
        assert_eq!(exec.runtime, RuntimeMode::Server);
        assert_eq!(exec.env, ["API_KEY"]);
    }

    #[test]
    fn hooks_keep_declaration_order_and_kinds() {
        let (config, cx) = resolve_text(
            "spec:\n  hooks:\n    z_guard:\n      command: g\n      hook: tool\n      phases: [before_execution]\n      priority: -1\n    a_audit:\n      command: a\n      hook: session\n      phases: [session_end]\n      mode: observe\n    gate:\n      command: s\n      runtime: server\n      intercept: [before_tool, approve_tool]\n      observe: \"*\"\n      on_failure: deny\n",
        );
        assert!(!cx.diagnostics.has_errors(), "{}", cx.diagnostics);
        let names: Vec<&str> = config.hooks.keys().map(String::as_str).collect();
        assert_eq!(names, ["z_guard", "a_audit", "gate"]);
        assert_eq!(config.hooks["z_guard"].priority, -1);
        assert_eq!(
            config.hooks["z_guard"].kind,
            HookKind::Tool {
                phases: vec![HookPhase::BeforeExecution],
                mode: HookMode::Filter
            }
        );
        let HookKind::Server(server) = &config.hooks["gate"].kind else {
            panic!("gate is a server hook")
        };
        assert_eq!(
            server.intercept,
            [Intercept::BeforeTool, Intercept::ApproveTool]
        );
        assert_eq!(server.observe, ObserveEvents::All);
        assert_eq!(server.on_failure, OnFailure::Deny);
        assert_eq!(server.event_method.as_str(), "hook.event");
    }

    #[test]
    fn an_exec_hook_may_run_as_a_server_and_keeps_its_phases() {
        let (config, cx) = resolve_text(
            "spec:\n  hooks:\n    guard:\n      command: g\n      runtime: server\n      hook: tool\n      phases: [before_execution]\n",
        );
        assert!(!cx.diagnostics.has_errors(), "{}", cx.diagnostics);
        assert_eq!(config.hooks["guard"].exec.runtime, RuntimeMode::Server);
        assert!(matches!(
            config.hooks["guard"].kind,
            HookKind::Tool {
                mode: HookMode::Filter,
                ..
            }
        ));
        let (_, cx) = resolve_text(
            "spec:\n  hooks:\n    guard:\n      command: g\n      runtime: server\n      hook: tool\n      phases: [before_execution]\n      intercept: [before_tool]\n",
        );
        let text = cx.diagnostics.to_string();
        assert!(
            text.contains("guard.intercept: a hook with `hook`"),
            "{text}"
        );
    }

    #[test]
    fn picoclaw_runtime_event_names_select_events_and_their_notification() {
        let (config, cx) = resolve_text(
            "spec:\n  hooks:\n    py_review_gate:\n      enabled: true\n      priority: 100\n      transport: stdio\n      command: p\n      runtime: server\n      observe: [agent.tool.exec_start, agent.tool.*, agent.subturn.spawn]\n      intercept: [before_tool, approve_tool]\n    off:\n      enabled: false\n      command: o\n      runtime: server\n      observe: \"*\"\n",
        );
        assert!(!cx.diagnostics.has_errors(), "{}", cx.diagnostics);
        assert_eq!(
            cx.diagnostics.warning_count(),
            1,
            "agent.subturn.spawn is never emitted"
        );
        let HookKind::Server(server) = &config.hooks["py_review_gate"].kind else {
            panic!("a JSON-RPC hook")
        };
        assert_eq!(server.event_method.as_str(), "hook.runtime_event");
        assert!(
            !config.hooks.contains_key("off"),
            "a disabled hook is left out"
        );
    }

    #[test]
    fn session_filter_mode_is_only_a_warning() {
        let (_, cx) = resolve_text(
            "spec:\n  hooks:\n    log:\n      command: l\n      hook: session\n      phases: [session_start]\n      mode: filter\n",
        );
        assert!(!cx.diagnostics.has_errors());
        assert_eq!(cx.diagnostics.warning_count(), 1);
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
