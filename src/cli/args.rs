//! The command line's grammar: the global options and a file per command group.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};
use clap_complete::Shell;

mod baseline;
mod diff;
mod eval;
mod files;
mod hook;
mod init;
mod inspect;
mod invoke;
mod library;
mod lock;
mod pack;
mod prompt;
mod prompt_chain;
mod prompt_files;
mod prompt_lint;
mod prompt_stats;
mod report;
mod run;
mod shard;
mod test;
mod ui;
mod vars;
mod watch;

pub(crate) use baseline::{BaselineArgs, GateArgs};
pub(crate) use diff::{DiffArgs, DiffFormat};
pub(crate) use eval::{EvalArgs, EvalFormat};
pub(crate) use files::ReportFiles;
pub(crate) use hook::{HookCommand, HookTestArgs};
pub(crate) use init::InitArgs;
pub(crate) use inspect::{
    CheckArgs, CheckFormat, InvalidArgs, ListArgs, ListFormat, ToolsArgs, ValidateArgs,
};
pub(crate) use invoke::{InvokeArgs, InvokeFormat};
pub(crate) use library::{
    AuditCommand, LibraryArgs, LibraryCommand, LibraryFormat, ListSort, ShareCommand,
};
pub(crate) use lock::{LockArgs, LockFormat};
pub(crate) use pack::is_pack_path;
pub(crate) use prompt::{InjectAs, PromptCommand, RenderArgs};
pub(crate) use prompt_chain::{ChainCommand, ChainRunArgs};
pub(crate) use prompt_files::FilesCommand;
pub(crate) use prompt_lint::{LintArgs, LintFormat};
pub(crate) use prompt_stats::StatsArgs;
pub(crate) use report::{ReportCommand, ReportFormat, ReportOutputs};
pub(crate) use run::{OutputFormat, ReplayMatch, RunArgs};
pub(crate) use shard::ShardArgs;
pub(crate) use test::TestArgs;
pub(crate) use ui::UiArgs;
pub(crate) use vars::VarArgs;
pub(crate) use watch::WatchArgs;

const GLOBAL: &str = "Global options";

/// Run LLM-agent extensions (exec tools, hooks, evals) for real, outside any agent.
#[derive(Debug, Parser)]
#[command(
    name = "promptexec",
    version,
    propagate_version = true,
    after_help = "Exit codes: 0 success, 1 a definite no (tool error, denial, failed eval), \
                  2 bad input, 3 an extension failed, 4 waiting on a decision, 130 interrupted."
)]
pub(crate) struct Cli {
    /// The RuntimeConfig [default: ./runtimeconfig.yaml when present]
    #[arg(
        short,
        long,
        global = true,
        env = "PROMPTEXEC_CONFIG",
        hide_env_values = true,
        value_name = "FILE",
        help_heading = GLOBAL
    )]
    pub config: Option<PathBuf>,

    /// More logging on stderr (-v, -vv)
    #[arg(short, long, global = true, action = clap::ArgAction::Count, help_heading = GLOBAL)]
    pub verbose: u8,

    /// Only errors on stderr
    #[arg(short, long, global = true, conflicts_with = "verbose", help_heading = GLOBAL)]
    pub quiet: bool,

    /// When to use colors (NO_COLOR is honoured)
    #[arg(long, global = true, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN", help_heading = GLOBAL)]
    pub color: ColorWhen,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorWhen {
    Auto,
    Always,
    Never,
}

impl ColorWhen {
    /// Whether to color output going to a stream that is (or is not) a terminal.
    pub(crate) fn enabled(self, is_terminal: bool) -> bool {
        super::style::wanted(self, is_terminal, std::env::var_os("NO_COLOR").as_deref())
    }
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub(crate) enum Command {
    /// Play a pack's suite of scenarios, or one conversation, against the scripted mock, a
    /// real model or a recording
    Run(Box<RunArgs>),
    /// Call one tool (bound in the config, or a program given with --server or --exec) and
    /// show exactly what happened
    InvokeTool(InvokeArgs),
    /// Send one event to one configured hook and show its decision
    #[command(subcommand)]
    Hook(HookCommand),
    /// Run test cases that call tools and hooks and check their answers
    Test(TestArgs),
    /// List the scenarios, test cases, tools, hooks and evals a suite would run
    List(ListArgs),
    /// List every tool the config (and pack) make available, exec, server and MCP, with
    /// its input schema; MCP servers are started to ask them
    Tools(ToolsArgs),
    /// Run one eval on some content, or a pack's evals over a recorded run
    Eval(EvalArgs),
    /// Check the config, a pack and scenario files, and the references between them
    Validate(ValidateArgs),
    /// Run every extension the config binds (or the named ones) through conformance
    /// probes, and fuzz its tools with arguments generated from their schemas
    Check(CheckArgs),
    /// Pin every tool's description, schemas and annotations, and the files each
    /// extension runs, in promptexec.lock; `--check` fails when anything drifted
    Lock(LockArgs),
    /// Compare two reports of one kind (run, test or check JSON) item by item:
    /// regressed, fixed, new, removed, flaky, unverifiable, changed
    Diff(DiffArgs),
    /// Render and manage prompt templates
    #[command(subcommand)]
    Prompt(PromptCommand),
    /// Merge the reports of a suite's shards into one, or render a saved report again
    #[command(subcommand)]
    Report(ReportCommand),
    /// Write a minimal project (config, pack, tool, hook, scenario, case file, CI
    /// workflow) that `run` and `test` pass at once; never over an existing file
    Init(InitArgs),
    /// Serve the prompt library's browser and editor, its stats and saved reports as a
    /// web page on 127.0.0.1, until stopped
    Ui(UiArgs),
    /// Print shell completions
    Completions {
        #[arg(value_enum)]
        shell: Shell,
    },
}

impl Command {
    /// What clap cannot say: which positional is the pack, and the checks that follow
    /// from it.
    pub(crate) fn settle(&mut self) -> Result<(), crate::cli::UsageError> {
        match self {
            Command::InvokeTool(args) => args.settle(),
            Command::Tools(args) => args.settle(),
            Command::Check(args) => args.settle(),
            Command::Validate(args) => args.settle(),
            Command::Eval(args) => args.settle(),
            Command::Prompt(PromptCommand::Render(args)) => args.settle(),
            _ => Ok(()),
        }
    }
}
