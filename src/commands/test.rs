//! `test [CASES...]`: extension test cases. Every case file is loaded and bound to
//! the config before anything starts; then the files run (several at once with
//! `-j`), each with its own extension processes, its cases in file order, through the
//! same calls as `invoke-tool` and `hook test`; then one report.

mod plan;

use crate::cli::args::{RunFormat, TestArgs};
use crate::cli::{CliError, Console, Exit, Settings};
use crate::report::{CaseStatus, TestRecord, case_text, style, test_junit, test_summary};
use crate::suite::cases::{self, CaseEvent, CasesError};

use crate::commands::common::emit::{pretty, write_output};
use crate::commands::common::runtime::InterruptWatch;

/// `test`: plan, run, report.
pub(super) fn run(
    settings: &Settings,
    args: &TestArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let mut plan = plan::plan(settings, args, console)?;
    let watch = InterruptWatch::start()?;
    plan.stop = watch.token();
    let human = args.format == RunFormat::Human;
    // The human lines, uncoloured and in the order the cases finished, for `--output`.
    let mut text = String::new();
    let record = cases::run(&plan, |event| match event {
        CaseEvent::Finished { file, case } => {
            let file = file.display().to_string();
            let line = case_text(&file, case, style::enabled());
            match case.status {
                CaseStatus::Passed if human => console.note(&line),
                CaseStatus::Passed => {}
                // A failure is an error line, which `-q` does not silence.
                CaseStatus::Failed | CaseStatus::Error => console.error(&line),
            }
            text.push_str(&case_text(&file, case, false));
            text.push('\n');
        }
    })
    .map_err(|err| match err {
        CasesError::Interrupted => CliError::Interrupted,
        CasesError::Runtime(source) => CliError::Runtime(source),
    })?;
    let summary = test_summary(&record);
    if human {
        console.note(&summary);
    }
    text.push_str(&summary);
    text.push('\n');
    report(console, &record, text, args)?;
    Ok(record.exit())
}

/// The report: the human lines again in FILE (with `--output`), or the JSON or JUnit
/// document.
fn report(
    console: &mut Console,
    record: &TestRecord,
    lines: String,
    args: &TestArgs,
) -> Result<(), CliError> {
    let text = match args.format {
        RunFormat::Human => match &args.output {
            Some(_) => lines,
            None => return Ok(()),
        },
        RunFormat::Json => pretty(record),
        RunFormat::Junit => {
            test_junit(record).map_err(|e| CliError::Output(std::io::Error::other(e)))?
        }
    };
    write_output(console, args.output.as_deref(), &text)
}
