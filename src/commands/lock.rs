//! `lock`: read the tool surface (the pack's tools, the config's exec extensions,
//! every MCP server's tools), scan it, and write it to the lock file; with
//! `--check`, compare it with the lock file instead. Exit 1 on drift or on an
//! error-level finding (after writing the lock), 2 when the lock file is missing
//! or unreadable, 3 when an MCP server cannot be asked (the mapping is
//! `CliError::Lock`'s).

use crate::cli::args::{LockArgs, LockFormat};
use crate::cli::{CliError, Console, Exit, Settings};
use crate::lock::{self, Change, Finding, Lock};
use crate::sarif::Level;

use crate::commands::common::emit::pretty;
use crate::commands::common::warnings::LoadWarnings;

pub(super) fn run(
    settings: &Settings,
    args: &LockArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let mut warnings = LoadWarnings::new(false);
    let config = warnings.config(settings, console)?;
    let pack = warnings.pack(args.pack.as_deref(), console)?;
    let path = args
        .lock_file
        .clone()
        .unwrap_or_else(|| lock::default_path(config.path.as_deref()));
    // The pinned lock is read first: a missing one is found before any server is
    // started.
    let pinned = match args.check {
        true => Some(Lock::load(&path)?),
        false => None,
    };
    let fresh = lock::read(&config, pack.as_ref())?;
    let findings = lock::scan(&fresh);
    let shown_path = path.display().to_string();
    let changes = match &pinned {
        Some(pinned) => Some(lock::compare(pinned, &fresh)),
        None => {
            fresh.write(&path)?;
            None
        }
    };
    let config_file = config.path.as_deref().map(|p| p.display().to_string());
    let text = match args.format {
        LockFormat::Human => human(&shown_path, &fresh, changes.as_deref(), &findings),
        LockFormat::Json => pretty(&lock::report_json(
            &shown_path,
            changes.as_deref(),
            &findings,
        )),
        LockFormat::Sarif => pretty(&lock::findings_sarif(&findings, config_file.as_deref())),
    };
    console.out(&text)?;
    let drifted = changes.as_ref().is_some_and(|c| !c.is_empty());
    let alarming = findings.iter().any(|f| f.level == Level::Error);
    Ok(if drifted || alarming {
        Exit::No
    } else {
        Exit::Success
    })
}

fn human(path: &str, fresh: &Lock, changes: Option<&[Change]>, findings: &[Finding]) -> String {
    let (tools, hooks, evals) = fresh.counts();
    let counted = format!("{tools} tool(s), {hooks} hook(s), {evals} eval(s)");
    let mut out = match changes {
        None => format!("wrote {path}: {counted}\n"),
        Some([]) => format!("{path} is up to date: {counted}\n"),
        Some(changes) => format!(
            "the tool surface differs from {path}:\n{}",
            lock::changes_human(changes)
        ),
    };
    if !findings.is_empty() {
        out.push_str(&format!("\n{} finding(s):\n", findings.len()));
        out.push_str(&lock::findings_human(findings));
    }
    out
}
