//! `check`: every extension the config binds (or the named ones) through the
//! conformance probes of its kind, its tools fuzzed with arguments generated from
//! their schemas. Exit 0 only when every probe passes.

use std::path::PathBuf;

use futures::StreamExt;
use serde_json::{Value as Json, json};

use crate::check::{
    CheckReport, CheckedKind, ExtensionCheck, LineServer, McpSubject, OneShot, Options, Probe,
    ReplyShape, Subject, ToolSchemas, fuzz::Fuzzer,
};
use crate::cli::args::{CheckArgs, CheckFormat};
use crate::cli::{CliError, Console, Exit, Settings};
use crate::config::{
    EvalBinding, ExecSpec, Hook, HookKind, HookMode, HookPhase, RuntimeConfig, RuntimeMode,
    ServerHook,
};
use crate::evals::{EvalInput, eval_request};
use crate::exec::CallKind;
use crate::hooks::{event_params, hello_params, meta, method_name};
use crate::pack::{self, Pack};
use crate::report::{check_human, check_json, check_junit};

use super::hook_samples;
use super::runtime::{default_jobs, interrupted, with_runtime};
use super::warnings::LoadWarnings;

pub(super) fn run(
    settings: &Settings,
    args: &CheckArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let mut warnings = LoadWarnings::new(false);
    let config = warnings.config(settings, console)?;
    let pack = match &args.pack {
        Some(path) => Some(warnings.keep(pack::load(path), console)?),
        None => None,
    };
    let only = match &args.probe {
        Some(name) => Some(Probe::from_wire(name).ok_or_else(|| {
            let hint = crate::doc::suggest(name, Probe::NAMES.iter().copied());
            CliError::Usage(format!(
                "no probe is called `{name}`{hint} (there are {})",
                crate::doc::one_of(Probe::NAMES)
            ))
        })?),
        None => None,
    };
    let seed = args.seed.unwrap_or_else(fresh_seed);
    let options = Options {
        seed,
        cases: args.cases as usize,
        only,
        config_path: config
            .path
            .clone()
            .unwrap_or_else(|| PathBuf::from("runtimeconfig.yaml")),
    };
    let subjects = subjects(&config, pack.as_ref(), &args.names, seed, console)?;
    if subjects.is_empty() {
        return Err(CliError::Usage(
            "the config binds no extension to check (tools with an exec block, hooks, evals, MCP servers)".into(),
        ));
    }
    let jobs = args.jobs.map_or_else(default_jobs, |j| j as usize);
    let extensions = with_runtime(|| async {
        let checking = futures::stream::iter(subjects.iter())
            .map(|subject| crate::check::check(subject, &options))
            .buffered(jobs)
            .collect::<Vec<ExtensionCheck>>();
        tokio::select! {
            checked = checking => Ok(checked),
            () = interrupted() => Err(CliError::Interrupted),
        }
    })?;
    let extensions: Vec<ExtensionCheck> = extensions
        .into_iter()
        .filter(|e| !e.probes.is_empty())
        .collect();
    if let (Some(probe), true) = (only, extensions.is_empty()) {
        return Err(CliError::Usage(format!(
            "probe `{probe}` applies to none of the extensions checked"
        )));
    }
    let report = CheckReport {
        seed,
        cases: args.cases as usize,
        extensions,
    };
    let rendered = match args.format {
        // Colour follows `--color`, and never goes into a pipe or a file.
        CheckFormat::Human => check_human(
            &report,
            crate::cli::style::enabled() && std::io::IsTerminal::is_terminal(&std::io::stdout()),
        ),
        CheckFormat::Json => check_json(&report),
        CheckFormat::Junit => check_junit(&report)
            .map_err(|err| CliError::Output(std::io::Error::other(err.to_string())))?,
    };
    console.out(&rendered)?;
    Ok(if report.passed() {
        Exit::Success
    } else {
        Exit::No
    })
}

/// A seed for this run, from the clock: different every run, shown in the report.
fn fresh_seed() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (now.as_nanos() as u64) % 1_000_000_000
}

/// Every extension to check, in config order: tools, hooks, evals, MCP servers.
fn subjects(
    config: &RuntimeConfig,
    pack: Option<&Pack>,
    names: &[String],
    seed: u64,
    console: &mut Console,
) -> Result<Vec<Subject>, CliError> {
    let all = config
        .tools
        .keys()
        .chain(config.hooks.keys())
        .chain(config.evals.keys())
        .chain(config.mcp_servers.keys());
    let known: Vec<&str> = all.map(String::as_str).collect();
    for name in names {
        if !known.contains(&name.as_str()) {
            let hint = crate::doc::suggest(name, known.iter().copied());
            return Err(CliError::Usage(format!(
                "the config binds no extension called `{name}`{hint}"
            )));
        }
    }
    let wanted = |name: &str| names.is_empty() || names.iter().any(|n| n == name);
    let mut subjects = Vec::new();
    for binding in config.tools.values().filter(|b| wanted(&b.name)) {
        let Some(spec) = &binding.exec else {
            console.note(&format!(
                "warning: tool `{}` has no exec block; nothing to check",
                binding.name
            ));
            continue;
        };
        let schemas = pack
            .and_then(|p| p.tools.get(&binding.name))
            .map(|def| ToolSchemas {
                input: def.parameters.clone(),
                output: def.output_schema.clone(),
            });
        if schemas.is_none() {
            console.note(&format!(
                "warning: tool `{}` has no schema{}: it is called with `{{}}` and not fuzzed",
                binding.name,
                if pack.is_some() {
                    " in the pack"
                } else {
                    " (give --pack)"
                }
            ));
        }
        subjects.push(tool_subject(&binding.name, spec, schemas, seed, console));
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
    Ok(subjects)
}

fn tool_subject(
    name: &str,
    spec: &ExecSpec,
    schemas: Option<ToolSchemas>,
    seed: u64,
    console: &mut Console,
) -> Subject {
    let args = match schemas.as_ref().map(|s| Fuzzer::new(&s.input, seed)) {
        Some(Ok(fuzzer)) => fuzzer.example(),
        Some(Err(err)) => {
            console.note(&format!(
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
            hook_samples::payload(Some(phase), config),
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
    let request = phases.first().map_or_else(
        || hook_samples::payload(None, config),
        |(_, p, _)| p.clone(),
    );
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
                hook_samples::params(*i, config),
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
