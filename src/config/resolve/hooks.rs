//! Hooks: the entry every hook has (command, priority, `enabled`), and one-shot exec
//! hooks with their type, phases and mode. JSON-RPC hooks are in `server_hook`.

use crate::doc::{Fields, Key, Node, Pos, UnknownKeys, one_of, suggest};

use crate::config::model::*;

use super::document::Resolver;

const SERVER_HOOK_KEYS: &[&str] = &[
    "transport",
    "intercept",
    "observe",
    "on_failure",
    "approval_timeout_ms",
    "handshake_timeout_ms",
    "event_method",
];

/// How a hook entry runs: see [`Resolver::hook_runtime`].
enum HookRuntime {
    JsonRpc,
    OneShot { server: bool },
}

impl Resolver<'_> {
    pub(super) fn hook(&mut self, key: &Key, node: &Node) -> Option<Hook> {
        let what = format!("spec.hooks.{}", key.name);
        let mut f = self.cx.map(node, &what)?;
        // PicoClaw's `dir` is promptexec's `working_dir`.
        let dir = f.entry("dir");
        let exec = self.hook_exec_spec(&mut f, node.pos, &what);
        let exec = match (exec, dir) {
            (Some((mut spec, values)), Some((k, n))) => {
                if f.get("working_dir").is_some() {
                    self.cx.error(
                        k.pos,
                        format!("{what}.dir: PicoClaw's name for `working_dir`; give one of them"),
                    );
                }
                self.directory(n, &format!("{what}.dir")).map(|dir| {
                    spec.working_dir = dir;
                    (spec, values)
                })
            }
            (exec, _) => exec,
        };
        let priority = f
            .get("priority")
            .and_then(|n| self.cx.integer(n, &format!("{what}.priority")))
            .unwrap_or(0);
        let kind = match self.hook_runtime(&mut f, exec.as_ref().map(|(e, _)| e.runtime)) {
            HookRuntime::JsonRpc => self.server_hook(&mut f, node.pos, &what),
            HookRuntime::OneShot { server } => self.exec_hook(&mut f, node.pos, &what, server),
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
        let (mut exec, env_values) = exec?;
        let kind = kind?;
        if matches!(kind, HookKind::Server(_)) {
            exec.runtime = RuntimeMode::Server;
        }
        Some(Hook {
            name: key.name.clone(),
            exec,
            env_values,
            priority,
            kind,
            pos: key.pos,
        })
    }

    /// Which kind of hook an entry is. Without `hook`, one that declares `runtime:
    /// server`, or any of a JSON-RPC hook's own keys (`intercept`, `observe`,
    /// `transport`, as a PicoClaw process hook does), is a JSON-RPC hook; an entry
    /// with `hook` is a one-shot hook, which may run as a server too.
    fn hook_runtime(&mut self, f: &mut Fields<'_>, runtime: Option<RuntimeMode>) -> HookRuntime {
        let server = runtime == Some(RuntimeMode::Server);
        if f.get("hook").is_some() {
            return HookRuntime::OneShot { server };
        }
        let declared = f.get("runtime").is_some();
        let json_rpc_keys = ["intercept", "observe", "transport"]
            .into_iter()
            .any(|name| f.get(name).is_some());
        if server || (!declared && json_rpc_keys) {
            HookRuntime::JsonRpc
        } else {
            HookRuntime::OneShot { server }
        }
    }

    pub(super) fn exec_hook(
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

    pub(super) fn phases(
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::resolve::document::tests::resolve_text;

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
        assert_eq!(server.event_method.as_str(), "hook.runtime_event");
    }

    #[test]
    fn a_picoclaw_process_hook_needs_no_runtime_and_takes_argv_env_values_and_dir() {
        let (config, cx) = resolve_text(
            "spec:\n  hooks:\n    {\"py_review_gate\": {\"enabled\": true, \"priority\": 100, \"transport\": \"stdio\",\n      \"command\": [\"python3\", \"/abs/review_gate.py\", \"--quiet\"], \"dir\": \"/abs\",\n      \"observe\": [\"agent.tool.exec_start\"], \"intercept\": [\"before_tool\", \"\"],\n      \"env\": {\"PICOCLAW_HOOK_LOG_FILE\": \"/tmp/hook.log\"}}}\n",
        );
        assert!(!cx.diagnostics.has_errors(), "{}", cx.diagnostics);
        let hook = &config.hooks["py_review_gate"];
        assert_eq!(hook.exec.runtime, RuntimeMode::Server);
        assert_eq!(hook.exec.command, std::path::Path::new("python3"));
        assert_eq!(hook.exec.args, ["/abs/review_gate.py", "--quiet"]);
        assert_eq!(hook.exec.working_dir, std::path::Path::new("/abs"));
        assert!(hook.exec.env.is_empty());
        let values: Vec<_> = hook.env_values.iter().collect();
        assert_eq!(
            values,
            [(
                &"PICOCLAW_HOOK_LOG_FILE".to_string(),
                &"/tmp/hook.log".to_string()
            )]
        );
        let HookKind::Server(server) = &hook.kind else {
            panic!("a JSON-RPC hook")
        };
        assert_eq!(server.intercept, [Intercept::BeforeTool]);
    }

    #[test]
    fn argv_commands_and_env_maps_are_checked() {
        let (_, cx) = resolve_text(
            "spec:\n  tools:\n    t:\n      exec:\n        command: [./t, --fast]\n        args: [x]\n        env: {A: b}\n  hooks:\n    h:\n      command: []\n      observe: [\"*\"]\n      env: {1BAD: x}\n",
        );
        let text = cx.diagnostics.to_string();
        for expected in [
            "spec.tools.t.exec.args: `command` is a list that already holds the arguments",
            "spec.tools.t.exec.env: values can be set for hooks and MCP servers only",
            "spec.hooks.h.command: an empty list",
            "spec.hooks.h.env: `1BAD` is not a valid environment variable name",
        ] {
            assert!(text.contains(expected), "{expected}:\n{text}");
        }
        assert!(!text.contains("transport"), "{text}");
    }

    #[test]
    fn a_json_rpc_key_on_a_one_shot_hook_is_named_as_such() {
        let (_, cx) = resolve_text(
            "spec:\n  hooks:\n    h:\n      command: h\n      hook: tool\n      phases: [before_execution]\n      transport: stdio\n",
        );
        let text = cx.diagnostics.to_string();
        assert!(
            text.contains("h.transport: only `runtime: server` hooks take `transport`"),
            "{text}"
        );
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
    fn session_filter_mode_is_only_a_warning() {
        let (_, cx) = resolve_text(
            "spec:\n  hooks:\n    log:\n      command: l\n      hook: session\n      phases: [session_start]\n      mode: filter\n",
        );
        assert!(!cx.diagnostics.has_errors());
        assert_eq!(cx.diagnostics.warning_count(), 1);
    }
}
