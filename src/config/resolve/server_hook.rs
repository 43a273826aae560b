//! A long-running JSON-RPC hook (`runtime: server` without `hook`, or a PicoClaw process
//! hook, known by its `intercept`/`observe`): what it intercepts, which events it
//! observes and how (`hook.runtime_event`, as PicoClaw sends them, unless the config
//! names `hook.event`), and what its failure means.

use std::time::Duration;

use crate::doc::{Fields, Node, Pos, suggest};

use crate::config::model::*;

use super::document::Resolver;

crate::wire_enum! {
    /// PicoClaw's process-hook `transport`: stdio is the only one there is.
    enum Transport { Stdio = "stdio" }
}

impl Resolver<'_> {
    pub(super) fn server_hook(
        &mut self,
        f: &mut Fields<'_>,
        pos: Pos,
        what: &str,
    ) -> Option<HookKind> {
        if let Some(n) = f.get("transport") {
            self.cx
                .choice(n, &format!("{what}.transport"), Transport::WIRE);
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
            .unwrap_or(EventMethod::RuntimeEvent);
        Some(HookKind::Server(ServerHook {
            intercept,
            observe,
            on_failure,
            approval_timeout,
            handshake_timeout,
            event_method,
        }))
    }

    /// `intercept`; empty entries are skipped, as PicoClaw skips them.
    pub(super) fn intercepts(&mut self, node: &Node, what: &str) -> Option<Vec<Intercept>> {
        let items = self.cx.list(node, what)?;
        let found: Vec<_> = items
            .iter()
            .filter(|n| n.as_str() != Some(""))
            .map(|n| self.cx.choice(n, what, Intercept::WIRE))
            .collect();
        found.into_iter().collect()
    }

    /// `observe`: event kinds (either name, or a glob of either), one or a list. `*`,
    /// `all` and the empty string, alone or in a list, mean every event, as in PicoClaw;
    /// an empty list means none.
    pub(super) fn observe(&mut self, node: &Node, what: &str) -> Option<ObserveEvents> {
        let kinds = match node.as_str() {
            Some(kind) => vec![(kind.to_string(), node.pos)],
            None => self.cx.string_list(node, what)?,
        };
        if kinds.iter().any(|(k, _)| is_every_event(k)) {
            return Some(ObserveEvents::All);
        }
        if kinds.is_empty() {
            return Some(ObserveEvents::None);
        }
        for (kind, at) in &kinds {
            if !crate::conversation::selects_any(kind) {
                let names = crate::conversation::EVENT_NAMES
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
}

/// PicoClaw's spellings of every event kind.
fn is_every_event(kind: &str) -> bool {
    matches!(kind, "*" | "all" | "")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::resolve::document::tests::resolve_text;

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
    fn every_spelling_of_every_event_is_heard_over_runtime_events_unless_named() {
        for observe in [
            "\"*\"",
            "[\"*\"]",
            "[all]",
            "[\"\"]",
            "[turn_start, all]",
            "all",
        ] {
            let (config, cx) = resolve_text(&format!(
                "spec:\n  hooks:\n    w:\n      command: w\n      observe: {observe}\n"
            ));
            assert!(
                !cx.diagnostics.has_errors(),
                "{observe}: {}",
                cx.diagnostics
            );
            let HookKind::Server(server) = &config.hooks["w"].kind else {
                panic!("{observe}: a JSON-RPC hook")
            };
            assert_eq!(server.observe, ObserveEvents::All, "{observe}");
            assert_eq!(server.event_method, EventMethod::RuntimeEvent, "{observe}");
        }
        let (config, cx) = resolve_text(
            "spec:\n  hooks:\n    w:\n      command: w\n      observe: [tool_exec_end]\n      event_method: hook.event\n    r:\n      command: r\n      observe: [tool_exec_end]\n",
        );
        assert!(!cx.diagnostics.has_errors(), "{}", cx.diagnostics);
        let method = |name: &str| match &config.hooks[name].kind {
            HookKind::Server(server) => server.event_method,
            other => panic!("{other:?}"),
        };
        assert_eq!(method("w"), EventMethod::Event, "named, so kept");
        assert_eq!(method("r"), EventMethod::RuntimeEvent);
    }

    #[test]
    fn an_empty_observe_list_with_no_intercept_never_runs() {
        let (_, cx) =
            resolve_text("spec:\n  hooks:\n    w:\n      command: w\n      observe: []\n");
        let text = cx.diagnostics.to_string();
        assert!(
            text.contains("needs `intercept`, `observe` or both"),
            "{text}"
        );
    }
}
