//! `invoke-tool`: one call (or a batch of calls) to one tool, shown exactly as it
//! happened.

mod adhoc;
mod arg_pairs;
mod batch;
mod lines;
mod mcp_call;

use std::time::Duration;

use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use crate::cli::args::{InvokeArgs, InvokeFormat};
use crate::cli::{CliError, Console, Exit, Settings, Unknown, UsageError};
use crate::config::{ExecSpec, McpEndpoint, McpServer, RuntimeMode, ToolBinding, ToolRun};
use crate::doc::{Diagnostic, Diagnostics};
use crate::report::{InvokeShown, Notice, Ran, invoke_notice, invoke_stdout};
use crate::tool_caller::ToolCaller;
use crate::tools::{ArgsSchema, ToolReport};

use crate::commands::common::exit::of_tool;
use crate::commands::common::load::{self, lookup, read_json_object};
use crate::commands::common::runtime::{interrupted, with_runtime};
use lines::{BatchLines, BatchSource, SchemaCheck};

/// How to call the tool; nothing has started.
struct Plan {
    name: String,
    target: Target,
    timeout: Option<Duration>,
    jobs: usize,
    format: InvokeFormat,
}

/// What runs the tool.
enum Target {
    /// A program: a process per call, or a JSON-RPC server.
    Exec(ExecSpec),
    /// Tool `tool` of an MCP server.
    Mcp { server: McpServer, tool: String },
    /// A mock or live (HTTP) tool of the config.
    Bound(Box<ToolBinding>),
}

/// The calls to make, their arguments read and checked (a batch as it streams).
enum Calls {
    One(Json),
    /// Lines read as the calls go, each checked against the schema when given.
    Batch(BatchLines),
}

/// `invoke-tool`: plan, then one call or a batch.
pub(super) fn run(
    settings: &Settings,
    args: &InvokeArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let plan = Plan {
        name: args.name.clone(),
        target: target(settings, args, console)?,
        timeout: args.timeout_ms.map(Duration::from_millis),
        jobs: args.jobs as usize,
        format: args.format,
    };
    let spec = match &plan.target {
        Target::Exec(spec) => spec,
        Target::Mcp { .. } if args.batch.is_some() => {
            return Err(UsageError::not_here(
                "--batch",
                "calls exec and server tools; an MCP tool is called one call at a time",
            )
            .into());
        }
        Target::Mcp { server, tool } => {
            let report = mcp_call::execute(&plan, server, tool, args)?;
            return show(console, &report, &plan);
        }
        Target::Bound(_) if args.batch.is_some() => {
            return Err(UsageError::not_here(
                "--batch",
                "calls exec and server tools; a mock or live tool is called one call at a time",
            )
            .into());
        }
        Target::Bound(binding) => {
            let Calls::One(tool_args) = calls(args, console)? else {
                unreachable!("--batch was refused above");
            };
            let caller = ToolCaller::for_binding(binding)
                .map_err(|e| UsageError::Unusable(e.to_string()))?;
            let report = execute_with(&caller, &plan, &tool_args)?;
            return show(console, &report, &plan);
        }
    };
    match calls(args, console)? {
        Calls::One(tool_args) => {
            let report = execute_one(&plan, spec, &tool_args)?;
            show(console, &report, &plan)
        }
        Calls::Batch(lines) => batch::execute(&plan, spec, lines, console),
    }
}

/// What runs the tool: a program given on the command line, an MCP server's tool
/// (`mcp__SERVER__TOOL`), or the config's binding.
fn target(
    settings: &Settings,
    args: &InvokeArgs,
    console: &mut Console,
) -> Result<Target, CliError> {
    if let Some(command) = &args.server {
        let server = adhoc::mcp_server(command)?;
        let tool = args.name.clone();
        return Ok(Target::Mcp { server, tool });
    }
    if let Some(command) = &args.exec {
        return Ok(Target::Exec(adhoc::exec_spec(
            command,
            "--exec",
            RuntimeMode::Exec,
        )?));
    }
    let config = load::config(settings, console)?;
    if !config.tools.contains_key(&args.name)
        && let Some((server, tool)) = crate::mcp::split(&args.name)
    {
        let server = lookup(&config.mcp_servers, server, "MCP server", "the config")?;
        let tool = tool.to_string();
        return Ok(Target::Mcp {
            server: server.clone(),
            tool,
        });
    }
    let binding = lookup(&config.tools, &args.name, "tool", "the config")?;
    match &binding.run {
        ToolRun::Exec(spec) => Ok(Target::Exec(spec.clone())),
        ToolRun::Mock(_) | ToolRun::Http(_) => Ok(Target::Bound(Box::new(binding.clone()))),
        ToolRun::Elsewhere { .. } | ToolRun::Unbound => Err(UsageError::Unusable(
            ToolCaller::for_binding(binding)
                .err()
                .map_or_else(String::new, |e| e.to_string()),
        )
        .into()),
    }
}

/// The arguments of one call, checked against the pack's schema when one is given,
/// or the lines of a batch.
fn calls(args: &InvokeArgs, console: &mut Console) -> Result<Calls, CliError> {
    if let Some(source) = &args.batch {
        return Ok(Calls::Batch(batch_lines(
            &BatchSource::new(source),
            args,
            console,
        )?));
    }
    let schema = match &args.pack {
        Some(pack_path) => Some(tool_schema(pack_path, &args.name, console)?),
        None => None,
    };
    let tool_args = one_call_args(args, schema.as_ref())?;
    if let Some(schema) = &schema {
        check_args(&ArgsSchema::new(schema), &args.name, &tool_args, None)?;
    }
    Ok(Calls::One(tool_args))
}

/// The arguments from `--arg` pairs (typed by `schema` when known), else `--args`.
fn one_call_args(args: &InvokeArgs, schema: Option<&Json>) -> Result<Json, CliError> {
    if args.arg.is_empty() {
        read_json_object(&args.args, "--args", "the arguments")
    } else {
        arg_pairs::arguments(&args.arg, schema)
    }
}

/// The lines of a batch. A file is read through once first, so a bad line fails
/// the batch before any call as it always did; stdin and pipes are read once, each
/// line checked as it comes.
fn batch_lines(
    source: &BatchSource,
    args: &InvokeArgs,
    console: &mut Console,
) -> Result<BatchLines, CliError> {
    let mut schema = || -> Result<Option<SchemaCheck>, CliError> {
        let Some(pack_path) = &args.pack else {
            return Ok(None);
        };
        Ok(Some(SchemaCheck {
            schema: ArgsSchema::new(&tool_schema(pack_path, &args.name, console)?),
            tool: args.name.clone(),
        }))
    };
    if source.rereadable() {
        lines::check_first(source, schema)?;
        source.lines(None)
    } else {
        source.lines(schema()?)
    }
}

/// The JSON Schema of tool `name` in the pack.
fn tool_schema(
    pack_path: &std::path::Path,
    name: &str,
    console: &mut Console,
) -> Result<Json, CliError> {
    let pack = load::pack(pack_path, console)?;
    pack.tools
        .get(name)
        .map(|tool| tool.parameters.clone())
        .ok_or_else(|| {
            let place = pack_path.display().to_string();
            let kind = "tool".to_string();
            UsageError::unknown(name, [], Unknown::DefinesNo { place, kind }).into()
        })
}

/// Arguments that break the pack's schema stop here, before any process starts.
fn check_args(
    schema: &ArgsSchema,
    name: &str,
    args: &Json,
    line: Option<usize>,
) -> Result<(), CliError> {
    let errors = schema.check(args);
    if errors.is_empty() {
        return Ok(());
    }
    let place = line
        .map(|l| format!(" (batch line {l})"))
        .unwrap_or_default();
    let mut problems = Diagnostics::default();
    for err in errors {
        problems.push(Diagnostic::plain(format!(
            "arguments for tool `{name}`{place} break its schema at {err}"
        )));
    }
    Err(CliError::Invalid(problems))
}

/// One call; an interrupt stops the child the way a deadline does, and the call is
/// still reported.
fn execute_one(plan: &Plan, spec: &ExecSpec, tool_args: &Json) -> Result<ToolReport, CliError> {
    execute_with(&ToolCaller::new(&plan.name, spec), plan, tool_args)
}

fn execute_with(
    caller: &ToolCaller,
    plan: &Plan,
    tool_args: &Json,
) -> Result<ToolReport, CliError> {
    with_runtime(|| async {
        let cancel = CancellationToken::new();
        let call = caller.call(tool_args, plan.timeout, &cancel);
        tokio::pin!(call);
        let report = tokio::select! {
            report = &mut call => report,
            () = interrupted() => {
                cancel.cancel();
                caller.stop_now();
                call.await
            }
        };
        caller.shutdown().await;
        Ok(report)
    })
}

/// The result or the whole envelope on stdout, what went wrong on stderr.
fn show(console: &mut Console, report: &ToolReport, plan: &Plan) -> Result<Exit, CliError> {
    let shown = match plan.format {
        InvokeFormat::Json => InvokeShown::Envelope,
        InvokeFormat::Result => InvokeShown::Result,
    };
    if let Some(text) = invoke_stdout(report, shown) {
        console.out(&text)?;
    }
    match invoke_notice(report, &ran(&plan.target)) {
        Some(Notice::Note(text)) => console.note(&text),
        Some(Notice::Error(text)) => console.error(&text),
        None => {}
    }
    Ok(of_tool(report))
}

/// What runs the tool, as a failure names it.
fn ran(target: &Target) -> Ran {
    let spec = match target {
        Target::Exec(spec) => spec,
        Target::Mcp { server, .. } => match &server.endpoint {
            McpEndpoint::Stdio { exec, .. } => exec,
            McpEndpoint::Http { url, .. } => return Ran::Url(crate::mcp::shown_url(url)),
        },
        Target::Bound(binding) => {
            return Ran::Url(match &binding.run {
                ToolRun::Http(http) => crate::mcp::shown_url(http.url.source()),
                other => format!("the config's {} answer", other.mode()),
            });
        }
    };
    let mut command = vec![spec.command.display().to_string()];
    command.extend(spec.args.iter().cloned());
    Ran::Command {
        command: command.join(" "),
        directory: spec.working_dir.display().to_string(),
    }
}
