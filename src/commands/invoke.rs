//! `invoke-tool`: one call (or a batch of calls) to one tool, shown exactly as it
//! happened.

use std::time::Duration;

use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use crate::cli::args::{InvokeArgs, InvokeFormat};
use crate::cli::{CliError, Console, Exit, Settings};
use crate::config::ExecSpec;
use crate::doc::{Diagnostic, Diagnostics};
use crate::exec::{Outcome, last_lines};
use crate::tools::{ToolCaller, ToolReport, ToolStatus, validate_args};

use super::emit::pretty;
use super::exit::{of_tool, worse};
use super::load::{self, json_kind, lookup, read_json_object, read_text};
use super::runtime::{interrupted, with_runtime};

/// The calls to make, their arguments read and checked; nothing has started.
struct Plan {
    name: String,
    spec: ExecSpec,
    calls: Calls,
    timeout: Option<Duration>,
    jobs: usize,
    format: InvokeFormat,
}

enum Calls {
    One(Json),
    /// Each line's arguments, with its line number.
    Batch(Vec<(usize, Json)>),
}

/// `invoke-tool`: plan, then one call or a batch.
pub fn run(
    settings: &Settings,
    args: &InvokeArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let plan = plan(settings, args, console)?;
    match &plan.calls {
        Calls::One(tool_args) => {
            let report = execute_one(&plan, tool_args)?;
            show(console, &report, &plan)
        }
        Calls::Batch(lines) => execute_batch(&plan, lines, |report| envelope(console, report)),
    }
}

fn plan(settings: &Settings, args: &InvokeArgs, console: &mut Console) -> Result<Plan, CliError> {
    let config = load::config(settings, console)?;
    let binding = lookup(&config.tools, &args.name, "tool", "the config")?;
    let Some(spec) = &binding.exec else {
        return Err(CliError::Usage(format!(
            "tool `{}` has no `exec` block, so promptexec cannot call it",
            args.name
        )));
    };
    let calls = match &args.batch {
        Some(source) => {
            let lines = read_batch(source)?;
            if let Some(pack_path) = &args.pack {
                let schema = tool_schema(pack_path, &args.name, console)?;
                check_batch(&schema, &args.name, &lines)?;
            }
            Calls::Batch(lines)
        }
        None => {
            let tool_args = read_json_object(&args.args, "--args", "the arguments")?;
            if let Some(pack_path) = &args.pack {
                let schema = tool_schema(pack_path, &args.name, console)?;
                check_args(&schema, &args.name, &tool_args, None)?;
            }
            Calls::One(tool_args)
        }
    };
    Ok(Plan {
        name: args.name.clone(),
        spec: spec.clone(),
        calls,
        timeout: args.timeout_ms.map(Duration::from_millis),
        jobs: args.jobs as usize,
        format: args.format,
    })
}

/// The lines of a batch, each a JSON object, numbered from 1; blank lines are skipped.
fn read_batch(source: &str) -> Result<Vec<(usize, Json)>, CliError> {
    let text = read_text(source)?;
    let mut problems = Diagnostics::default();
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Json>(line) {
            Ok(value @ Json::Object(_)) => lines.push((i + 1, value)),
            Ok(other) => problems.push(Diagnostic::plain(format!(
                "{source}:{}: the arguments must be a JSON object, found {}",
                i + 1,
                json_kind(&other)
            ))),
            Err(err) => problems.push(Diagnostic::plain(format!(
                "{source}:{}: the arguments are not valid JSON: {err}",
                i + 1
            ))),
        }
    }
    if problems.has_errors() {
        return Err(CliError::Invalid(problems));
    }
    Ok(lines)
}

/// Every line is checked before any process starts.
fn check_batch(schema: &Json, name: &str, lines: &[(usize, Json)]) -> Result<(), CliError> {
    let mut problems = Diagnostics::default();
    for (line, args) in lines {
        if let Err(CliError::Invalid(found)) = check_args(schema, name, args, Some(*line)) {
            problems.extend(found);
        }
    }
    if problems.has_errors() {
        return Err(CliError::Invalid(problems));
    }
    Ok(())
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
        .ok_or_else(|| CliError::Usage(format!("{} defines no tool `{name}`", pack_path.display())))
}

/// Arguments that break the pack's schema stop here, before any process starts.
fn check_args(schema: &Json, name: &str, args: &Json, line: Option<usize>) -> Result<(), CliError> {
    let errors = validate_args(schema, args);
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
fn execute_one(plan: &Plan, tool_args: &Json) -> Result<ToolReport, CliError> {
    with_runtime(|| async {
        let caller = ToolCaller::new(&plan.name, &plan.spec);
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

/// Runs the batch with `-j` calls in flight and hands each call to `each` in input
/// order as soon as it and those before it are done. The exit code is the worst
/// outcome: a failure, else a tool error, else a pending.
fn execute_batch(
    plan: &Plan,
    lines: &[(usize, Json)],
    mut each: impl FnMut(&ToolReport) -> Result<(), CliError>,
) -> Result<Exit, CliError> {
    use futures::StreamExt;

    with_runtime(|| async {
        let caller = ToolCaller::new(&plan.name, &plan.spec);
        let cancel = CancellationToken::new();
        let mut worst = Exit::Success;
        let work = async {
            let mut replies = futures::stream::iter(lines.iter())
                .map(|(_, tool_args)| caller.call(tool_args, plan.timeout, &cancel))
                .buffered(plan.jobs);
            while let Some(report) = replies.next().await {
                worst = worse(worst, of_tool(&report));
                each(&report)?;
            }
            Ok::<(), CliError>(())
        };
        let finished = tokio::select! {
            result = work => Some(result),
            () = interrupted() => None,
        };
        match finished {
            Some(result) => {
                caller.shutdown().await;
                result.map(|()| worst)
            }
            None => {
                cancel.cancel();
                caller.stop_now();
                caller.shutdown().await;
                Ok(Exit::Interrupted)
            }
        }
    })
}

/// One call of a batch: its envelope on a line of its own.
fn envelope(console: &mut Console, report: &ToolReport) -> Result<(), CliError> {
    let line = serde_json::to_string(report).unwrap_or_default();
    console.out(&format!("{line}\n"))
}

/// The result or the whole envelope on stdout, what went wrong on stderr.
fn show(console: &mut Console, report: &ToolReport, plan: &Plan) -> Result<Exit, CliError> {
    let shown = match plan.format {
        InvokeFormat::Json => Some(pretty(report)),
        InvokeFormat::Result => report.result.as_ref().map(pretty),
    };
    if let Some(text) = shown {
        console.out(&text)?;
    }
    match report.status {
        ToolStatus::Ok => {}
        ToolStatus::Error => console.note(&format!(
            "tool `{}` answered with an error: {}",
            report.tool,
            report.error.as_deref().unwrap_or_default()
        )),
        ToolStatus::Pending => {
            let pending = report.pending.as_ref();
            console.note(&format!(
                "tool `{}` is waiting for a decision ({}): {}",
                report.tool,
                pending.map_or("", |p| p.reason.as_str()),
                pending.map_or("", |p| p.message.as_str())
            ));
        }
        ToolStatus::Failed | ToolStatus::Timeout => {
            console.error(&explain_failure(report, &plan.spec));
        }
    }
    Ok(of_tool(report))
}

/// What ran, where, what it printed, and why that counts as a failure.
fn explain_failure(report: &ToolReport, spec: &ExecSpec) -> String {
    let mut lines = vec![format!(
        "error: tool `{}` {}",
        report.tool,
        report.outcome.describe()
    )];
    let mut command = vec![spec.command.display().to_string()];
    command.extend(spec.args.iter().cloned());
    lines.push(format!("  command: {}", command.join(" ")));
    lines.push(format!("  directory: {}", spec.working_dir.display()));
    if let Outcome::InvalidOutput { .. } = report.outcome
        && !report.stdout_head.is_empty()
    {
        lines.push(format!("  stdout began: {:?}", report.stdout_head));
    }
    let tail = last_lines(&report.stderr_tail, 20);
    if !tail.is_empty() {
        lines.push("  stderr (last lines):".to_string());
        lines.extend(tail.iter().map(|line| format!("    {line}")));
    }
    lines.join("\n")
}
