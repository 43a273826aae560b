//! The extensions a config binds, as `check` probes them: each with the requests an
//! ordinary call sends (realistic hook payloads, an eval's sample answer, a tool's
//! arguments generated from its schema) and the reply shape each needs.

use serde_json::{Value as Json, json};

use crate::config::{
    EvalBinding, ExecSpec, Hook, HookKind, HookMode, HookPhase, RuntimeConfig, RuntimeMode,
    ServerHook, SideEffects,
};
use crate::evals::{EvalInput, eval_request};
use crate::exec::CallKind;
use crate::hooks::{event_params, hello_params, meta, method_name, sample_params, sample_payload};
use crate::pack::Pack;

use super::fuzz::Fuzzer;
use super::{CheckedKind, LineServer, McpSubject, OneShot, ReplyShape, Subject, ToolSchemas};

/// The names of every extension `config` binds, in the order [`subjects`] takes
/// them.
pub(crate) fn extension_names(config: &RuntimeConfig) -> Vec<&str> {
    config
        .tools
        .keys()
        .chain(config.hooks.keys())
        .chain(config.evals.keys())
        .chain(config.mcp_servers.keys())
        .map(String::as_str)
        .collect()
}

/// Every extension to check (all, or those in `names`), in config order: tools,
/// hooks, evals, MCP servers; with a warning for each tool that is called without
/// its schema or not at all.
pub(crate) fn subjects(
    config: &RuntimeConfig,
    pack: Option<&Pack>,
    names: &[String],
    seed: u64,
) -> (Vec<Subject>, Vec<String>) {
    let mut warnings = Vec::new();
    let wanted = |name: &str| names.is_empty() || names.iter().any(|n| n == name);
    let mut subjects = Vec::new();
    for binding in config.tools.values().filter(|b| wanted(&b.name)) {
        let Some(spec) = binding.exec() else {
            warnings.push(format!(
                "warning: tool `{}` runs in mode `{}`, not by a process; nothing to check",
                binding.name,
                binding.run.mode()
            ));
            continue;
        };
        let schemas = pack
            .and_then(|p| p.tools.get(&binding.name))
            .map(|def| ToolSchemas {
                input: def.parameters.clone(),
                output: def.output_schema.clone(),
                writes: binding.side_effects == SideEffects::Writes,
            });
        if schemas.is_none() {
            warnings.push(format!(
                "warning: tool `{}` has no schema{}: it is called with `{{}}` and not fuzzed",
                binding.name,
                if pack.is_some() {
                    " in the pack"
                } else {
                    " (give --pack)"
                }
            ));
        }
        subjects.push(tool_subject(
            &binding.name,
            spec,
            schemas,
            seed,
            &mut warnings,
        ));
    }
    for hook in config.hooks.values().filter(|h| wanted(&h.name)) {
        subjects.push(hook_subject(hook, config));
    }
    for (name, eval) in config.evals.iter().filter(|(n, _)| wanted(n)) {
        subjects.push(eval_subject(name, eval));
    }
    for server in config.mcp_servers.values().filter(|s| wanted(&s.name)) {
        subjects.push(Subject::Mcp(McpSubject {
            server: server.clone(),
        }));
    }
    (subjects, warnings)
}

fn tool_subject(
    name: &str,
    spec: &ExecSpec,
    schemas: Option<ToolSchemas>,
    seed: u64,
    warnings: &mut Vec<String>,
) -> Subject {
    let args = match schemas.as_ref().map(|s| Fuzzer::new(&s.input, seed)) {
        Some(Ok(fuzzer)) => fuzzer.example(),
        Some(Err(err)) => {
            warnings.push(format!(
                "warning: tool `{name}` is called with `{{}}`: no arguments can be generated from its schema: {err}"
            ));
            json!({})
        }
        None => json!({}),
    };
    match spec.runtime {
        RuntimeMode::Exec => Subject::OneShot(OneShot {
            name: name.to_string(),
            kind: CheckedKind::Tool,
            call_kind: CallKind::Tool,
            spec: spec.clone(),
            request: json!({"args": args}),
            reply: ReplyShape::Tool,
            phases: Vec::new(),
            tool: schemas,
        }),
        RuntimeMode::Server => Subject::Line(LineServer {
            name: name.to_string(),
            kind: CheckedKind::ServerTool,
            call_kind: CallKind::Tool,
            spec: spec.clone(),
            preamble: Vec::new(),
            request: (
                "execute".into(),
                json!({"args": args}),
                ReplyShape::AnyResult,
            ),
            notification: ("promptexec.probe".into(), json!({})),
            methods: Vec::new(),
            tool: schemas,
        }),
    }
}

fn hook_subject(hook: &Hook, config: &RuntimeConfig) -> Subject {
    let phase = |phase: HookPhase, shape: ReplyShape| {
        (
            phase.as_str().to_string(),
            sample_payload(Some(phase), config),
            shape,
        )
    };
    let (phases, shape): (Vec<_>, ReplyShape) = match &hook.kind {
        HookKind::Server(server) => return rpc_hook_subject(hook, server, config),
        HookKind::Provider { phases, mode } | HookKind::Tool { phases, mode } => {
            let shape = match mode {
                HookMode::Filter => ReplyShape::Filter,
                HookMode::Observe => ReplyShape::Observe,
            };
            (phases.iter().map(|p| phase(*p, shape)).collect(), shape)
        }
        HookKind::Session { phases } => (
            phases
                .iter()
                .map(|p| phase(*p, ReplyShape::Observe))
                .collect(),
            ReplyShape::Observe,
        ),
        HookKind::Eval => (Vec::new(), ReplyShape::Ignored),
    };
    let request = phases
        .first()
        .map_or_else(|| sample_payload(None, config), |(_, p, _)| p.clone());
    Subject::OneShot(OneShot {
        name: hook.name.clone(),
        kind: CheckedKind::Hook,
        call_kind: match hook.kind {
            HookKind::Eval => CallKind::EvalHook,
            _ => CallKind::Hook,
        },
        spec: hook.exec.clone(),
        request,
        reply: shape,
        phases,
        tool: None,
    })
}

fn rpc_hook_subject(hook: &Hook, server: &ServerHook, config: &RuntimeConfig) -> Subject {
    let hello = (
        "hook.hello".to_string(),
        hello_params(&hook.name, server),
        ReplyShape::Hello,
    );
    let methods: Vec<(String, Json, ReplyShape)> = server
        .intercept
        .iter()
        .map(|i| {
            (
                method_name(*i),
                sample_params(*i, config),
                ReplyShape::Action(*i),
            )
        })
        .collect();
    // A hook that only observes has no request of its own beyond the handshake.
    let (preamble, request) = match methods.first() {
        Some(first) => (vec![hello], first.clone()),
        None => (Vec::new(), hello),
    };
    let event = server.event_method.as_str().to_string();
    let params = event_params(server.event_method, "turn_start", &meta(0), &json!({}));
    Subject::Line(LineServer {
        name: hook.name.clone(),
        kind: CheckedKind::RpcHook,
        call_kind: CallKind::Hook,
        spec: hook.exec.clone(),
        preamble,
        request,
        notification: (event, params),
        methods,
        tool: None,
    })
}

fn eval_subject(name: &str, eval: &EvalBinding) -> Subject {
    let input = EvalInput {
        content: "Your order A-1002 ships on Friday. Thank you for your patience!".into(),
        ..EvalInput::default()
    };
    Subject::OneShot(OneShot {
        name: name.to_string(),
        kind: CheckedKind::Eval,
        call_kind: CallKind::Eval,
        spec: eval.exec.clone(),
        request: eval_request(&eval.eval_type, &json!({}), &input),
        reply: ReplyShape::Eval,
        phases: Vec::new(),
        tool: None,
    })
}
