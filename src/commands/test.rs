//! `test [CASES...]`: extension test cases. Every case file is loaded and bound to
//! the config before anything starts; then the files run (several at once with
//! `-j`), each with its own extension processes, its cases in file order, through the
//! same calls as `invoke-tool` and `hook test`; then one report.

mod plan;

use crate::cli::args::{OutputFormat, TestArgs};
use crate::cli::{CliError, Console, Exit, Settings};
use crate::report::{
    CaseStatus, HtmlKind, TestRecord, case_text, html_page, style, test_junit, test_summary,
};
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
    let human = args.format == OutputFormat::Human;
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

/// The report: the human lines again in FILE (with `--output`), or the JSON, JUnit or
/// HTML document; then the files asked for beside it (`--json`, `--junit`, `--html`).
fn report(
    console: &mut Console,
    record: &TestRecord,
    lines: String,
    args: &TestArgs,
) -> Result<(), CliError> {
    let text = match args.format {
        OutputFormat::Human => args.output.as_ref().map(|_| lines),
        OutputFormat::Json => Some(pretty(record)),
        OutputFormat::Junit => Some(junit(record)?),
        OutputFormat::Html => Some(html_page(HtmlKind::Test, &pretty(record))),
    };
    if let Some(text) = text {
        write_output(console, args.output.as_deref(), &text)?;
    }
    if let Some(path) = &args.files.json {
        write_output(console, Some(path), &pretty(record))?;
    }
    if let Some(path) = &args.files.junit {
        write_output(console, Some(path), &junit(record)?)?;
    }
    if let Some(path) = &args.files.html {
        let page = html_page(HtmlKind::Test, &pretty(record));
        write_output(console, Some(path), &page)?;
    }
    Ok(())
}

fn junit(record: &TestRecord) -> Result<String, CliError> {
    test_junit(record).map_err(|e| CliError::Output(std::io::Error::other(e)))
}
