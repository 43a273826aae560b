//! `run --library-prompt ID[@VERSION]`: a library prompt, rendered with the run's
//! variables, played as the system prompt; the run's outcome recorded in the
//! library's audit log.

use std::path::PathBuf;

use crate::cli::args::RunArgs;
use crate::cli::{CliError, Exit, UsageError};
use crate::evals::EvalResult;
use crate::library::{
    Library, RenderFailure, RenderedPrompt, record_prompt_use, render_prompt_taking,
};
use crate::report::{LibraryPromptRef, Outcome, RunRecord, SuiteRecord};

use crate::commands::common::load;

/// The library prompt a run plays, and where its use is recorded.
pub(super) struct LibraryPrompt {
    path: PathBuf,
    pub rendered: RenderedPrompt,
}

impl LibraryPrompt {
    /// `--library-prompt`, rendered; `None` without it.
    pub(super) fn resolve(args: &RunArgs) -> Result<Option<Self>, CliError> {
        let Some(wanted) = &args.library_prompt else {
            return Ok(None);
        };
        let (id, version) = split(wanted)?;
        let path = args.library.clone().unwrap_or_else(Library::default_path);
        let lib = Library::open(&path).map_err(CliError::from)?;
        let inputs = load::vars(&args.vars)?;
        let rendered =
            render_prompt_taking(&lib, id, version, &inputs).map_err(|err| match err {
                RenderFailure::Library(err) => CliError::from(err),
                RenderFailure::Template { problems, .. } => CliError::Invalid(problems),
            })?;
        Ok(Some(Self { path, rendered }))
    }

    /// The system prompt: every rendered message's text (without the line breaks it
    /// starts or ends with), blank lines between.
    pub(super) fn system_prompt(&self) -> String {
        let texts: Vec<&str> = self
            .rendered
            .messages
            .iter()
            .map(|m| m.text.trim_matches('\n'))
            .collect();
        texts.join("\n\n")
    }

    /// What the reports name.
    pub(super) fn reference(&self) -> LibraryPromptRef {
        LibraryPromptRef {
            id: self.rendered.id.clone(),
            version: self.rendered.version,
            content_hash: self.rendered.content_hash.clone(),
        }
    }

    /// Appends the run's use to the audit log: whether it passed, and its checks.
    pub(super) fn record(&self, exit: Exit, checks: (u64, u64)) -> Result<(), CliError> {
        let mut lib = Library::open(&self.path).map_err(CliError::from)?;
        let who = who();
        let success = exit == Exit::Success;
        record_prompt_use(
            &mut lib,
            &self.rendered,
            &who,
            "run",
            Some(success),
            Some(checks),
        )
        .map_err(CliError::from)?;
        Ok(())
    }
}

/// `ID` or `ID@VERSION`.
fn split(wanted: &str) -> Result<(&str, Option<u64>), CliError> {
    let Some((id, version)) = wanted.rsplit_once('@') else {
        return Ok((wanted, None));
    };
    let version = version.trim_start_matches('v');
    match version.parse::<u64>() {
        Ok(v) if !id.is_empty() => Ok((id, Some(v))),
        _ => Err(UsageError::BadValue {
            flag: "--library-prompt".into(),
            value: Some(wanted.into()),
            expected: "ID or ID@VERSION, a version being a whole number".into(),
        }
        .into()),
    }
}

/// Who runs, for the record: the user.
fn who() -> String {
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| "unknown".into());
    format!("user:{user}")
}

/// A conversation's checks: its eval gates that passed, of those that judged.
pub(super) fn run_checks(record: &RunRecord) -> (u64, u64) {
    gates(record.evals())
}

/// A suite's checks: the assertions judged, and the eval gates of every trial.
pub(super) fn suite_checks(suite: &SuiteRecord) -> (u64, u64) {
    let mut passed = 0;
    let mut total = 0;
    for scenario in &suite.scenarios {
        for verdict in &scenario.verdicts {
            if verdict.outcome != Outcome::Skipped {
                total += 1;
                passed += u64::from(verdict.outcome == Outcome::Passed);
            }
        }
    }
    (passed, total)
}

fn gates(evals: impl Iterator<Item = EvalResult>) -> (u64, u64) {
    let judged: Vec<bool> = evals.filter_map(|e| e.passed).collect();
    let passed = judged.iter().filter(|p| **p).count() as u64;
    (passed, judged.len() as u64)
}
