use std::time::Duration;

use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use crate::cli::args::{InvokeArgs, InvokeFormat};
use crate::cli::output::{write_error, write_stderr};
use crate::cli::{Cli, CliError, Exit, print_diagnostics, write_stdout};

use super::{interrupted, json_kind, lookup, read_json_object, read_text, with_runtime, worse};
use crate::config::{self, ConfigSource, ExecSpec, RuntimeConfig};
use crate::doc::{Diagnostic, Diagnostics};
use crate::exec::{Outcome, last_lines};
use crate::pack;
use crate::tools::{ToolCaller, ToolReport, ToolStatus, validate_args};

/// `invoke-tool`: one call, shown exactly as it happened.
pub fn run(cli: &Cli, args: &InvokeArgs) -> Result<Exit, CliError> {
    let config = load_config(cli)?;
    let binding = lookup(&config.tools, &args.name, "tool", "the config")?;
    let Some(spec) = &binding.exec else {
        return Err(CliError::Usage(format!(
            "tool `{}` has no `exec` block, so promptexec cannot call it",
            args.name
        )));
    };
    if let Some(source) = &args.batch {
        let lines = read_batch(source)?;
        if let Some(pack_path) = &args.pack {
            let schema = tool_schema(pack_path, &args.name)?;
            check_batch(&schema, &args.name, &lines)?;
        }
        return with_runtime(|| run_batch(&args.name, spec, &lines, args));
    }
    let tool_args = read_args(&args.args)?;
    if let Some(pack_path) = &args.pack {
        let schema = tool_schema(pack_path, &args.name)?;
        check_args(&schema, &args.name, &tool_args, None)?;
    }
    let timeout = args.timeout_ms.map(Duration::from_millis);
    let report = with_runtime(|| async {
        let caller = ToolCaller::new(&args.name, spec);
        let cancel = CancellationToken::new();
        let call = caller.call(&tool_args, timeout, &cancel);
        tokio::pin!(call);
        let report = tokio::select! {
            report = &mut call => report,
            () = interrupted() => {
                // Stop the child the same way a deadline does, then report.
                cancel.cancel();
                caller.stop_now();
                call.await
            }
        };
        caller.shutdown().await;
        Ok(report)
    })?;
    show(&report, args.format, spec)
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

/// Runs the batch with `-j` calls in flight and prints envelopes in input order.
/// The exit code is the worst outcome: a failure, else a tool error, else a pending.
async fn run_batch(
    name: &str,
    spec: &ExecSpec,
    lines: &[(usize, Json)],
    args: &InvokeArgs,
) -> Result<Exit, CliError> {
    use futures::StreamExt;

    let caller = ToolCaller::new(name, spec);
    let cancel = CancellationToken::new();
    let timeout = args.timeout_ms.map(Duration::from_millis);
    let mut worst = Exit::Success;
    let work = async {
        let mut replies = futures::stream::iter(lines.iter())
            .map(|(_, tool_args)| caller.call(tool_args, timeout, &cancel))
            .buffered(args.jobs as usize);
        while let Some(report) = replies.next().await {
            worst = worse(worst, exit_for(&report));
            let line = serde_json::to_string(&report).unwrap_or_default();
            write_stdout(&format!("{line}\n"))?;
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
}

fn exit_for(report: &ToolReport) -> Exit {
    match (&report.status, &report.outcome) {
        (_, Outcome::Interrupted) => Exit::Interrupted,
        (ToolStatus::Ok, _) => Exit::Success,
        (ToolStatus::Error, _) => Exit::No,
        (ToolStatus::Pending, _) => Exit::Pending,
        (ToolStatus::Failed | ToolStatus::Timeout, _) => Exit::ExtensionFailed,
    }
}

pub(super) fn load_config(cli: &Cli) -> Result<RuntimeConfig, CliError> {
    load_config_if_any(cli)?.ok_or_else(no_config)
}

/// The config given or found, or `None` when there is none.
pub(super) fn load_config_if_any(cli: &Cli) -> Result<Option<RuntimeConfig>, CliError> {
    let Some(path) = config_path(cli) else {
        return Ok(None);
    };
    let loaded = config::load(&path, false)?;
    print_diagnostics(&loaded.warnings);
    Ok(Some(loaded.value))
}

/// Where the config is: `-c`, `$PROMPTEXEC_CONFIG`, or `./runtimeconfig.yaml`.
pub(super) fn config_path(cli: &Cli) -> Option<std::path::PathBuf> {
    let cwd = std::env::current_dir().unwrap_or_default();
    match config::discover(cli.config.as_deref(), &cwd) {
        ConfigSource::Given(path) | ConfigSource::Found(path) => Some(path),
        ConfigSource::None => None,
    }
}

/// What a command that needs a config says when there is none.
pub(super) fn no_config() -> CliError {
    CliError::Usage(
        "no config: give -c FILE, set PROMPTEXEC_CONFIG, or run where runtimeconfig.yaml is".into(),
    )
}

/// `--args`: inline JSON, `@FILE`, or `-` for stdin. Must be a JSON object.
fn read_args(given: &str) -> Result<Json, CliError> {
    read_json_object(given, "--args", "the arguments")
}

/// The JSON Schema of tool `name` in the pack.
fn tool_schema(pack_path: &std::path::Path, name: &str) -> Result<Json, CliError> {
    let loaded = pack::load(pack_path)?;
    print_diagnostics(&loaded.warnings);
    let pack = loaded.value;
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

fn show(
    report: &ToolReport,
    format: InvokeFormat,
    spec: &config::ExecSpec,
) -> Result<Exit, CliError> {
    let exit = match (&report.status, &report.outcome) {
        (_, Outcome::Interrupted) => Exit::Interrupted,
        (ToolStatus::Ok, _) => Exit::Success,
        (ToolStatus::Error, _) => Exit::No,
        (ToolStatus::Pending, _) => Exit::Pending,
        (ToolStatus::Failed | ToolStatus::Timeout, _) => Exit::ExtensionFailed,
    };
    match format {
        InvokeFormat::Json => {
            let envelope = serde_json::to_string_pretty(report).unwrap_or_default();
            write_stdout(&format!("{envelope}\n"))?;
        }
        InvokeFormat::Result => {
            if let Some(result) = &report.result {
                let text = serde_json::to_string_pretty(result).unwrap_or_default();
                write_stdout(&format!("{text}\n"))?;
            }
        }
    }
    match report.status {
        ToolStatus::Ok => {}
        ToolStatus::Error => write_stderr(&format!(
            "tool `{}` answered with an error: {}",
            report.tool,
            report.error.as_deref().unwrap_or_default()
        )),
        ToolStatus::Pending => {
            let pending = report.pending.as_ref();
            write_stderr(&format!(
                "tool `{}` is waiting for a decision ({}): {}",
                report.tool,
                pending.map_or("", |p| p.reason.as_str()),
                pending.map_or("", |p| p.message.as_str())
            ));
        }
        ToolStatus::Failed | ToolStatus::Timeout => explain_failure(report, spec),
    }
    Ok(exit)
}

/// What ran, where, what it printed, and why that counts as a failure.
fn explain_failure(report: &ToolReport, spec: &ExecSpec) {
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
    write_error(&lines.join("\n"));
}
