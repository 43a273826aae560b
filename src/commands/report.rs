//! `report merge` and `report show`: suite reports read back from their JSON, merged
//! from shards or not, and written again by the same writers a run uses.

use std::path::{Path, PathBuf};

use crate::cli::args::{ReportCommand, ReportFormat, ReportOutputs};
use crate::cli::{CliError, Console, Exit, UsageError};
use crate::doc::Diagnostic;
use crate::report::{
    HtmlKind, SuiteJson, SuiteRecord, html_page, merge_shards, read_suite, suite_junit,
    suite_markdown, suite_summary,
};

use super::common::baseline::read_report;
use super::common::emit::{pretty, write_output};

pub(super) fn run(command: &ReportCommand, console: &mut Console) -> Result<Exit, CliError> {
    match command {
        ReportCommand::Merge(args) => {
            let mut shards = Vec::with_capacity(args.reports.len());
            for path in &args.reports {
                shards.push((path.display().to_string(), read(path)?));
            }
            let whole = merge_shards(shards)
                .map_err(|err| CliError::from(UsageError::Unusable(err.to_string())))?;
            write(&whole, &args.out, console)?;
            Ok(whole.exit())
        }
        ReportCommand::Show(args) => {
            let record = read(&args.report)?;
            write(&record, &args.out, console)?;
            Ok(Exit::Success)
        }
    }
}

/// The suite record a JSON report was written from.
fn read(path: &Path) -> Result<SuiteRecord, CliError> {
    read_suite(read_report(path)?)
        .map_err(|err| CliError::Invalid(Diagnostic::whole_file(path, err.to_string()).into()))
}

/// The report in the format asked for, then every file asked for beside it.
fn write(record: &SuiteRecord, out: &ReportOutputs, console: &mut Console) -> Result<(), CliError> {
    let main = render(record, out.format)?;
    write_output(console, out.output.as_deref(), &main)?;
    let files: [(ReportFormat, &Option<PathBuf>); 4] = [
        (ReportFormat::Json, &out.files.json),
        (ReportFormat::Junit, &out.files.junit),
        (ReportFormat::Markdown, &out.markdown_file),
        (ReportFormat::Html, &out.files.html),
    ];
    for (format, path) in files {
        if let Some(path) = path {
            write_output(console, Some(path), &render(record, format)?)?;
        }
    }
    Ok(())
}

fn render(record: &SuiteRecord, format: ReportFormat) -> Result<String, CliError> {
    Ok(match format {
        ReportFormat::Human => format!("{}\n", crate::report::style::strip(&suite_summary(record))),
        ReportFormat::Json => pretty(&SuiteJson(record)),
        ReportFormat::Junit => {
            suite_junit(record).map_err(|e| CliError::Output(std::io::Error::other(e)))?
        }
        ReportFormat::Markdown => suite_markdown(record),
        ReportFormat::Html => html_page(HtmlKind::Suite, &pretty(&SuiteJson(record))),
    })
}
