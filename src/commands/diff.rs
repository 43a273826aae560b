//! `diff BASE HEAD`: two reports of one kind compared item by item and trial by
//! trial, in text, JSON, Markdown or HTML. Exit 0 whatever changed; 1 with
//! `--fail-on-regression` when the gate failed; 2 for a report that cannot be read
//! or two reports of different kinds.

use std::io::IsTerminal;

use crate::cli::args::{DiffArgs, DiffFormat};
use crate::cli::{CliError, Console, Exit};
use crate::compare;
use crate::report::style;

use crate::commands::common::baseline::{compared, read_report};
use crate::commands::common::emit::{pretty, write_output};

pub(super) fn run(args: &DiffArgs, console: &mut Console) -> Result<Exit, CliError> {
    let base = read_report(&args.base)?;
    let head = read_report(&args.head)?;
    let (base_file, head_file) = (
        args.base.display().to_string(),
        args.head.display().to_string(),
    );
    let diff = compared((&base_file, &base), (&head_file, &head), &args.gate)?;
    let text = match args.format {
        DiffFormat::Human => {
            let text = compare::human(&diff);
            // Colour only for a person at a terminal.
            match args.output.is_none() && std::io::stdout().is_terminal() {
                true => text,
                false => style::strip(&text),
            }
        }
        DiffFormat::Json => pretty(&diff),
        DiffFormat::Markdown => compare::markdown(&diff),
        DiffFormat::Html => crate::report::html_page(crate::report::HtmlKind::Diff, &pretty(&diff)),
    };
    write_output(console, args.output.as_deref(), &text)?;
    Ok(match args.gate.fail_on_regression && diff.gate.failed {
        true => Exit::No,
        false => Exit::Success,
    })
}
