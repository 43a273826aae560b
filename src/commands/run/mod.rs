//! `run`: one command, two modes. With `--message` or `--messages-from` it plays one
//! conversation; without, the pack's suite of PromptArena scenario files. Either
//! way the command line and the files become a [`RunPlan`] once (everything read
//! and checked, nothing started), the plan goes to one engine call
//! ([`crate::suite::play`] or [`crate::suite::run`]) that knows nothing of the
//! command line or the terminal, and the record it returns is reported here: the
//! live view and progress from the engine's events, then the summary or the JSON
//! or JUnit document, and the exit code the record comes to.

mod ask;
mod conversation;
mod library;
mod messages;
pub(super) mod suite;

use std::path::PathBuf;

use crate::cli::args::{OutputFormat, RunArgs};
use crate::cli::{CliError, Console, Exit, Settings, UsageError};
use crate::suite::{ConversationPlan, SuitePlan};

use crate::commands::common::runtime::InterruptWatch;

/// What `run` does, decided before anything starts.
pub(super) struct RunPlan {
    pub mode: Mode,
    pub report: ReportTo,
    /// `--library-prompt`: played as the system prompt, and its use audited.
    library: Option<library::LibraryPrompt>,
}

pub(super) enum Mode {
    /// One conversation, and where its recording goes (`--record`).
    One {
        conversation: Box<ConversationPlan>,
        record: Option<PathBuf>,
    },
    /// A suite of scenarios.
    Suite(Box<SuitePlan>),
}

/// How the record is reported.
pub(super) struct ReportTo {
    pub format: OutputFormat,
    /// `--output FILE`: the document (or the human report's text) goes there.
    pub output: Option<PathBuf>,
    /// Reports also written to files: `--json`, `--junit`, `--markdown`, and an
    /// Arena project's `defaults.output`.
    pub files: Vec<(ReportFile, PathBuf)>,
    /// `--baseline` and the gate's options.
    pub baseline: crate::cli::args::BaselineArgs,
}

/// A report written to a file beside the one asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ReportFile {
    Json,
    Junit,
    Markdown,
    Html,
}

/// `run`: plan, play, report.
pub(super) fn run(
    settings: &Settings,
    mut args: RunArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    // The messages are taken out of the arguments: a long list is held once.
    crate::commands::common::baseline::check(&args.baseline)?;
    let messages = std::mem::take(&mut args.messages);
    let plan = resolve(settings, &args, messages, console)?;
    let config_path = crate::commands::common::load::config_path(settings);
    if args.locked
        && let Some(drift) =
            crate::lock::gate(config_path.as_deref(), Some(&args.pack)).map_err(CliError::Locked)?
    {
        console.error(&drift);
        return Ok(Exit::No);
    }
    execute(plan, console)
}

/// The command line and the files it names as a plan; the flags that mean nothing
/// in the mode chosen are refused.
fn resolve(
    settings: &Settings,
    args: &RunArgs,
    messages: Vec<String>,
    console: &mut Console,
) -> Result<RunPlan, CliError> {
    let one = !messages.is_empty() || args.messages_from.is_some();
    let library = library::LibraryPrompt::resolve(args)?;
    let mut files = Vec::new();
    let mode = if one {
        if crate::arena::is_arena(&args.pack) {
            let flag = if args.messages_from.is_some() {
                "--messages-from"
            } else {
                "--message"
            };
            return Err(UsageError::not_here(
                flag,
                "plays one conversation with a pack's prompt; an Arena project plays its scenarios",
            )
            .into());
        }
        refuse_suite_flags(args)?;
        let messages = messages::load(messages, args.messages_from.as_deref())?;
        files.extend(args.files.html.clone().map(|path| (ReportFile::Html, path)));
        Mode::One {
            conversation: Box::new(conversation::resolve(
                settings,
                args,
                messages,
                library.as_ref(),
                console,
            )?),
            record: args.record.clone(),
        }
    } else {
        refuse_single_conversation_flags(args)?;
        let (mut suite, reports) = suite::resolve(settings, args, console)?;
        if let Some(library) = &library {
            let text = library.system_prompt();
            for scenario in &mut suite.scenarios {
                scenario.system_prompt.clone_from(&text);
            }
        }
        files = reports;
        let asked = [
            (ReportFile::Json, &args.files.json),
            (ReportFile::Junit, &args.files.junit),
            (ReportFile::Markdown, &args.markdown_file),
            (ReportFile::Html, &args.files.html),
        ];
        files.extend(
            asked
                .into_iter()
                .filter_map(|(kind, path)| Some((kind, path.clone()?))),
        );
        Mode::Suite(Box::new(suite))
    };
    Ok(RunPlan {
        mode,
        report: ReportTo {
            format: args.format,
            output: args.output.clone(),
            files,
            baseline: args.baseline.clone(),
        },
        library,
    })
}

/// Plays the plan, its interrupts watched for from start to end, and reports it.
fn execute(plan: RunPlan, console: &mut Console) -> Result<Exit, CliError> {
    let watch = InterruptWatch::start()?;
    match plan.mode {
        Mode::One {
            mut conversation,
            record,
        } => {
            conversation.stop = watch.token();
            let library = plan.library.as_ref();
            conversation::execute(
                *conversation,
                record.as_deref(),
                &plan.report,
                library,
                console,
            )
        }
        Mode::Suite(mut suite) => {
            suite.stop = watch.token();
            suite::execute(&suite, &plan.report, plan.library.as_ref(), console)
        }
    }
}

/// Flags that choose among or spread out a suite's scenarios mean nothing for one
/// conversation.
fn refuse_suite_flags(args: &RunArgs) -> Result<(), CliError> {
    let given = [
        ("--jobs", args.jobs.is_some()),
        ("--filter", !args.filter.is_empty()),
        ("--fail-fast", args.fail_fast),
        ("--fail-on-partial", args.fail_on_partial),
        ("--shard", args.slice.given()),
        ("--record-dir", args.record_dir.is_some()),
        ("--replay-dir", args.replay_dir.is_some()),
        ("--mock-provider", args.mock_provider),
        ("--json", args.files.json.is_some()),
        ("--junit", args.files.junit.is_some()),
        ("--markdown", args.markdown_file.is_some()),
        ("--baseline", args.baseline.baseline.is_some()),
        ("--watch", args.watch.watch),
    ];
    match given.iter().find(|(_, given)| *given) {
        Some((flag, _)) => Err(UsageError::not_here(
            *flag,
            "applies to a suite of scenarios; with --message or --messages-from one conversation is played",
        )
        .into()),
        None => Ok(()),
    }
}

/// Flags that pick one conversation's prompt or mock scenario mean nothing in a
/// suite: each scenario names its own.
fn refuse_single_conversation_flags(args: &RunArgs) -> Result<(), CliError> {
    let given = [
        (
            "--prompt",
            args.prompt.is_some(),
            "each scenario names its prompt by its `task_type`",
        ),
        (
            "--scenario",
            args.scenario.is_some(),
            "each scenario names its mock scenario by its id",
        ),
        (
            "--record",
            args.record.is_some(),
            "--record-dir DIR writes a recording per scenario",
        ),
        (
            "--replay",
            args.replay.is_some(),
            "--replay-dir DIR replays a recording per scenario",
        ),
    ];
    match given.iter().find(|(_, given, _)| *given) {
        Some((flag, _, instead)) => Err(UsageError::not_here(
            *flag,
            format!("applies to one conversation (--message); in a suite {instead}"),
        )
        .into()),
        None => Ok(()),
    }
}
