//! `test CASES...`: extension test cases. Every case file is loaded and bound to the
//! config before anything starts; then the files run (several at once with `-j`),
//! each with its own extension processes, its cases in file order, through the same
//! calls as `invoke-tool` and `hook test`; then one report.

mod execute;
mod human;
mod junit;
mod plan;
mod record;

use crate::cli::args::{RunFormat, TestArgs};
use crate::cli::{CliError, Console, Exit, Settings};

use super::emit::{pretty, write_output};
use human::HumanLines;
use record::TestRecord;

/// `test`: plan, run, report.
pub(super) fn run(
    settings: &Settings,
    args: &TestArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let plan = plan::plan(settings, args, console)?;
    let mut lines = HumanLines::new(args.format == RunFormat::Human);
    let record = execute::execute(&plan, |file, case| lines.case(console, file, case))?;
    lines.summary(console, &record);
    report(console, &record, lines, args)?;
    Ok(record.exit())
}

/// The report: the human lines again in FILE (with `--output`), or the JSON or JUnit
/// document.
fn report(
    console: &mut Console,
    record: &TestRecord,
    lines: HumanLines,
    args: &TestArgs,
) -> Result<(), CliError> {
    let text = match args.format {
        RunFormat::Human => match &args.output {
            Some(_) => lines.into_text(),
            None => return Ok(()),
        },
        RunFormat::Json => pretty(record),
        RunFormat::Junit => {
            junit::junit_report(record).map_err(|e| CliError::Output(std::io::Error::other(e)))?
        }
    };
    write_output(console, args.output.as_deref(), &text)
}
