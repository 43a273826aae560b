//! Matching a case's names against the config: the tool or hook must be bound, the
//! phase must be one the hook can take, and the decision one it can give. Each
//! problem is a diagnostic at the name in the case file.

use std::path::Path;

use crate::config::{
    ExecSpec, Hook, HookKind, HookMode, HookPhase, Intercept, McpServer, RuntimeConfig,
};
use crate::doc::{Diagnostic, Diagnostics, Pos, one_of, suggest};

use super::model::{HookCase, Located, ToolCase};

/// Where a hook case calls its hook, as `hook test --phase` would.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HookPoint {
    /// An exec hook's phase; `None` for an eval hook, which has none.
    Exec(Option<HookPhase>),
    /// A JSON-RPC hook's method.
    Rpc(Intercept),
}

impl HookPoint {
    /// The name `hook test` prints as the phase.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            HookPoint::Exec(Some(phase)) => phase.as_str(),
            HookPoint::Exec(None) => "eval",
            HookPoint::Rpc(intercept) => intercept.as_str(),
        }
    }
}

/// What runs a case's tool: a program, or a tool of an MCP server.
#[derive(Debug, Clone, Copy)]
pub(crate) enum BoundTool<'c> {
    Exec(&'c ExecSpec),
    /// `mcp__<server>__<tool>`: the server, and the tool's own name.
    Mcp(&'c McpServer, &'c str),
}

/// What runs the case's tool, or `None` with the problem in `out`.
pub(crate) fn bind_tool<'c>(
    case: &'c ToolCase,
    file: &Path,
    config: &'c RuntimeConfig,
    out: &mut Diagnostics,
) -> Option<BoundTool<'c>> {
    let name = &case.tool;
    if !config.tools.contains_key(&name.value)
        && let Some((server, tool)) = crate::mcp::split(&name.value)
    {
        let Some(server) = config.mcp_servers.get(server) else {
            let names: Vec<&str> = config.mcp_servers.keys().map(String::as_str).collect();
            let located = Located {
                value: server.to_string(),
                pos: name.pos,
            };
            out.push(unknown(file, &located, "MCP server", &names));
            return None;
        };
        return Some(BoundTool::Mcp(server, tool));
    }
    let Some(binding) = config.tools.get(&name.value) else {
        let names: Vec<&str> = config.tools.keys().map(String::as_str).collect();
        out.push(unknown(file, name, "tool", &names));
        return None;
    };
    if binding.exec().is_none() {
        out.push(Diagnostic::error(
            file,
            name.pos,
            format!(
                "tool `{}` has no `exec` block in the config, so promptexec cannot call it",
                name.value
            ),
        ));
    }
    binding.exec().map(BoundTool::Exec)
}

/// The case's hook and where it is called, or `None` with the problems in `out`.
/// A phase the hook is not configured for is a warning: in a run it would not be
/// called there, but the case can still call it.
pub(crate) fn bind_hook<'c>(
    case: &HookCase,
    file: &Path,
    config: &'c RuntimeConfig,
    out: &mut Diagnostics,
) -> Option<(&'c Hook, HookPoint)> {
    let name = &case.hook;
    let Some(hook) = config.hooks.get(&name.value) else {
        let names: Vec<&str> = config.hooks.keys().map(String::as_str).collect();
        out.push(unknown(file, name, "hook", &names));
        return None;
    };
    let point = hook_point(hook, case.phase.as_ref(), name.pos, file, out)?;
    if let Some(decision) = &case.expect.decision {
        let words = decision_words(hook, point);
        if !words.contains(&decision.value.as_str()) {
            out.push(Diagnostic::error(
                file,
                decision.pos,
                format!(
                    "expect.decision: hook `{}` at {} answers {}, not `{}`{}",
                    hook.name,
                    point.as_str(),
                    one_of(words),
                    decision.value,
                    suggest(&decision.value, words.iter().copied())
                ),
            ));
            return None;
        }
    }
    Some((hook, point))
}

fn unknown(file: &Path, name: &Located<String>, what: &str, names: &[&str]) -> Diagnostic {
    let have = if names.is_empty() {
        "none".to_string()
    } else {
        one_of(names)
    };
    Diagnostic::error(
        file,
        name.pos,
        format!(
            "the config has no {what} `{}`{} (it has {have})",
            name.value,
            suggest(&name.value, names.iter().copied())
        ),
    )
}

fn hook_point(
    hook: &Hook,
    phase: Option<&Located<String>>,
    name_pos: Pos,
    file: &Path,
    out: &mut Diagnostics,
) -> Option<HookPoint> {
    let configured: Vec<HookPoint> = match &hook.kind {
        HookKind::Provider { phases, .. }
        | HookKind::Tool { phases, .. }
        | HookKind::Session { phases } => {
            phases.iter().map(|p| HookPoint::Exec(Some(*p))).collect()
        }
        HookKind::Eval => vec![HookPoint::Exec(None)],
        HookKind::Server(server) => server
            .intercept
            .iter()
            .map(|i| HookPoint::Rpc(*i))
            .collect(),
    };
    let Some(phase) = phase else {
        return configured.first().copied().or_else(|| {
            out.push(Diagnostic::error(
                file,
                name_pos,
                format!(
                    "hook `{}` intercepts nothing, so the case needs a `phase`",
                    hook.name
                ),
            ));
            None
        });
    };
    let wanted = &phase.value;
    let (point, valid): (Option<HookPoint>, Vec<&str>) = match &hook.kind {
        HookKind::Server(_) => (
            Intercept::from_wire(wanted).map(HookPoint::Rpc),
            Intercept::NAMES.to_vec(),
        ),
        HookKind::Eval => (None, Vec::new()),
        kind => {
            let valid = kind.hook_type().map_or(&[][..], |t| t.phases());
            let point = HookPhase::from_wire(wanted)
                .filter(|p| valid.contains(p))
                .map(|p| HookPoint::Exec(Some(p)));
            (point, valid.iter().map(|p| p.as_str()).collect())
        }
    };
    let Some(point) = point else {
        let message = if valid.is_empty() {
            format!(
                "phase: hook `{}` is an eval hook, which has no phases; leave `phase` out",
                hook.name
            )
        } else {
            format!(
                "phase: `{wanted}` is not a phase of hook `{}`; it can take {}{}",
                hook.name,
                one_of(&valid),
                suggest(wanted, valid.iter().copied())
            )
        };
        out.push(Diagnostic::error(file, phase.pos, message));
        return None;
    };
    if !configured.contains(&point) {
        out.push(Diagnostic::warning(
            file,
            phase.pos,
            format!(
                "phase: hook `{}` is not configured for `{wanted}`, so in a run it would not be called there",
                hook.name
            ),
        ));
    }
    Some(point)
}

/// The words `hook test` can print for this hook at this point (its decision, or a
/// JSON-RPC hook's action), which a case may expect.
pub(crate) fn decision_words(hook: &Hook, point: HookPoint) -> &'static [&'static str] {
    const FILTER: &[&str] = &["allow", "deny", "failed"];
    const OBSERVER: &[&str] = &["ack", "failed"];
    const APPROVER: &[&str] = &["approved", "denied", "allow", "deny", "failed"];
    const BEFORE_TOOL: &[&str] = &[
        "continue",
        "modify",
        "respond",
        "deny_tool",
        "abort_turn",
        "hard_abort",
        "allow",
        "deny",
        "failed",
    ];
    const INTERCEPTOR: &[&str] = &[
        "continue",
        "modify",
        "abort_turn",
        "hard_abort",
        "allow",
        "deny",
        "failed",
    ];
    match point {
        HookPoint::Rpc(Intercept::ApproveTool) => APPROVER,
        HookPoint::Rpc(Intercept::BeforeTool) => BEFORE_TOOL,
        HookPoint::Rpc(Intercept::BeforeLlm | Intercept::AfterLlm | Intercept::AfterTool) => {
            INTERCEPTOR
        }
        HookPoint::Exec(_) => match hook.kind {
            HookKind::Provider {
                mode: HookMode::Filter,
                ..
            }
            | HookKind::Tool {
                mode: HookMode::Filter,
                ..
            } => FILTER,
            HookKind::Provider { .. }
            | HookKind::Tool { .. }
            | HookKind::Session { .. }
            | HookKind::Eval
            | HookKind::Server(_) => OBSERVER,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::cases::model::HookExpect;

    fn config() -> RuntimeConfig {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("runtimeconfig.yaml");
        std::fs::write(
            &path,
            "apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: RuntimeConfig
spec:
  tools:
    lookup_order: {exec: {command: ./t}}
    web: {}
  hooks:
    pii_guard: {command: ./h, hook: provider, phases: [before_call], mode: filter}
    audit: {command: ./h, hook: session, phases: [session_end]}
    gate: {command: ./h, runtime: server, intercept: [before_tool, approve_tool]}
",
        )
        .expect("write");
        crate::config::load(&path, false).expect("loads").value
    }

    fn named(value: &str) -> Located<String> {
        Located {
            value: value.into(),
            pos: Pos { line: 3, col: 11 },
        }
    }

    fn tool(name: &str) -> ToolCase {
        ToolCase {
            tool: named(name),
            args: Located {
                value: serde_json::json!({}),
                pos: Pos::START,
            },
            timeout: None,
            expect: Default::default(),
        }
    }

    fn hook(name: &str, phase: Option<&str>, decision: Option<&str>) -> HookCase {
        HookCase {
            hook: named(name),
            phase: phase.map(named),
            event: None,
            expect: HookExpect {
                decision: decision.map(named),
                reason: None,
            },
        }
    }

    fn messages(out: &Diagnostics) -> Vec<String> {
        out.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn tools_must_be_bound_and_callable() {
        let config = config();
        let mut out = Diagnostics::default();
        let file = Path::new("c.cases.yaml");
        assert!(bind_tool(&tool("lookup_order"), file, &config, &mut out).is_some());
        assert!(bind_tool(&tool("lookup_ordr"), file, &config, &mut out).is_none());
        assert!(bind_tool(&tool("web"), file, &config, &mut out).is_none());
        assert_eq!(
            messages(&out),
            [
                "c.cases.yaml:3:11: the config has no tool `lookup_ordr`; did you mean `lookup_order`? (it has `lookup_order` or `web`)",
                "c.cases.yaml:3:11: tool `web` has no `exec` block in the config, so promptexec cannot call it",
            ]
        );
    }

    #[test]
    fn a_hook_is_called_at_its_first_phase_unless_told() {
        let config = config();
        let mut out = Diagnostics::default();
        let file = Path::new("c.cases.yaml");
        let at = |case: &HookCase, out: &mut Diagnostics| {
            bind_hook(case, file, &config, out).map(|(_, point)| point)
        };
        assert_eq!(
            at(&hook("pii_guard", None, Some("deny")), &mut out),
            Some(HookPoint::Exec(Some(HookPhase::BeforeCall)))
        );
        assert_eq!(
            at(
                &hook("gate", Some("approve_tool"), Some("denied")),
                &mut out
            ),
            Some(HookPoint::Rpc(Intercept::ApproveTool))
        );
        assert_eq!(
            at(&hook("pii_guard", Some("after_call"), None), &mut out),
            Some(HookPoint::Exec(Some(HookPhase::AfterCall)))
        );
        assert_eq!(
            messages(&out),
            [
                "c.cases.yaml:3:11: warning: phase: hook `pii_guard` is not configured for `after_call`, so in a run it would not be called there"
            ]
        );
    }

    #[test]
    fn phases_and_decisions_must_be_ones_the_hook_has() {
        let config = config();
        let mut out = Diagnostics::default();
        let file = Path::new("c.cases.yaml");
        for case in [
            hook("pii_gaurd", None, None),
            hook("pii_guard", Some("before_execution"), None),
            hook("pii_guard", None, Some("dney")),
            hook("audit", None, Some("allow")),
            hook("gate", Some("before_tool"), Some("approved")),
        ] {
            assert!(bind_hook(&case, file, &config, &mut out).is_none());
        }
        assert_eq!(
            messages(&out),
            [
                "c.cases.yaml:3:11: the config has no hook `pii_gaurd`; did you mean `pii_guard`? (it has `pii_guard`, `audit` or `gate`)",
                "c.cases.yaml:3:11: phase: `before_execution` is not a phase of hook `pii_guard`; it can take `before_call` or `after_call`; did you mean `before_call`?",
                "c.cases.yaml:3:11: expect.decision: hook `pii_guard` at before_call answers `allow`, `deny` or `failed`, not `dney`; did you mean `deny`?",
                "c.cases.yaml:3:11: expect.decision: hook `audit` at session_end answers `ack` or `failed`, not `allow`",
                "c.cases.yaml:3:11: expect.decision: hook `gate` at before_tool answers `continue`, `modify`, `respond`, `deny_tool`, `abort_turn`, `hard_abort`, `allow`, `deny` or `failed`, not `approved`",
            ]
        );
    }
}
