//! The commands that look without running a conversation: `list`, `tools`,
//! `validate` and `check`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::VarArgs;
use super::pack::{settle, take_packs};
use crate::cli::UsageError;

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// The PromptPack (JSON)
    pub pack: PathBuf,

    /// Scenario files, or folders searched for `*.scenario.yaml|yml|json`
    /// [default: the `scenarios/` folder beside the pack]
    #[arg(value_name = "SCENARIOS")]
    pub scenarios: Vec<PathBuf>,

    /// Case files, or folders searched for `*.cases.yaml|yml|json`, to list too
    /// (repeatable)
    #[arg(long = "cases", value_name = "FILE|DIR")]
    pub cases: Vec<PathBuf>,

    /// Only scenarios whose id contains TEXT, or whose label KEY is VALUE
    /// (`KEY=VALUE`); repeatable, any may match
    #[arg(long, value_name = "TEXT")]
    pub filter: Vec<String>,

    #[command(flatten)]
    pub slice: super::ShardArgs,

    #[command(flatten)]
    pub vars: VarArgs,

    /// `human`: tables on stdout; `json`: one document on stdout
    #[arg(long, value_enum, default_value_t = ListFormat::Human)]
    pub format: ListFormat,
}

#[derive(Debug, Args)]
pub(crate) struct ToolsArgs {
    /// The PromptPack: the schemas of exec tools, and which prompts offer each tool
    #[arg(id = "pack_arg", value_name = "PACK")]
    pack_arg: Option<PathBuf>,

    /// The same as the PACK argument
    #[arg(long, value_name = "PACK", hide = true)]
    pub pack: Option<PathBuf>,

    /// `human`: tables on stdout; `json`: one document on stdout
    #[arg(long, value_enum, default_value_t = ListFormat::Human)]
    pub format: ListFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ListFormat {
    Human,
    Json,
}

#[derive(Debug, Clone, Args)]
pub(crate) struct CheckArgs {
    /// Only these extensions: tool, hook or eval names, or MCP server names; and the
    /// PromptPack (`*.json`): tool schemas to fuzz with, and output schemas to hold
    /// results to
    #[arg(value_name = "NAME|PACK")]
    pub names: Vec<String>,

    /// The same as a PACK argument
    #[arg(long, value_name = "PACK", hide = true)]
    pub pack: Option<PathBuf>,

    /// Only this probe (one of the names a report shows, such as `echoes_ids`)
    #[arg(long, value_name = "NAME")]
    pub probe: Option<String>,

    /// Seed of the generated arguments [default: a new one, printed in the report]
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// Generated argument sets per tool
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub cases: u64,

    /// How many extensions are checked at once [default: one per core]
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=256))]
    pub jobs: Option<u64>,

    /// `human`: a table per extension; `json`: one document; `junit`: JUnit XML, a
    /// testsuite per extension; `html`: a self-contained page that shows the JSON report
    #[arg(long, value_enum, default_value_t = CheckFormat::Human)]
    pub format: CheckFormat,

    /// Write the report to FILE (atomically) instead of stdout
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    #[command(flatten)]
    pub files: super::ReportFiles,

    /// Also call tools that may write (MCP tools not annotated `readOnlyHint: true`,
    /// pack tools with `side_effects: writes`) with generated arguments; point such
    /// servers at a scratch copy of their data
    #[arg(long)]
    pub allow_writes: bool,

    /// Also send arguments that break the tool's schema, which a run never sends:
    /// `advise` (the default when the flag is given) reports a crash on them as
    /// advice, `fail` as a failure
    #[arg(long, value_enum, value_name = "HOW", num_args = 0..=1, default_missing_value = "advise")]
    pub invalid_args: Option<InvalidArgs>,

    /// Speak only this MCP revision to MCP servers (2025-06-18, 2025-11-25 or
    /// 2026-07-28) [default: the newest the server speaks]
    #[arg(long, value_name = "REVISION")]
    pub spec_version: Option<crate::mcp::Revision>,

    /// Before anything runs, compare the tool surface with promptexec.lock beside
    /// the config; exit 1 with the diff when it drifted
    #[arg(long)]
    pub locked: bool,

    #[command(flatten)]
    pub watch: super::WatchArgs,
}

/// What a crash on schema-breaking arguments is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum InvalidArgs {
    Advise,
    Fail,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CheckFormat {
    Human,
    Json,
    Junit,
    Html,
}

#[derive(Debug, Args)]
pub(crate) struct ValidateArgs {
    /// The same as a PACK argument
    #[arg(long, value_name = "PACK", hide = true)]
    pub pack: Option<PathBuf>,

    /// The PromptPack (`*.json`) to check with the config; and scenario files, or
    /// folders searched for `*.scenario.yaml|yml|json`, checked as `run` plays them
    /// (with a pack: their prompts, providers, variables and evals too)
    #[arg(value_name = "PACK|SCENARIOS")]
    pub scenarios: Vec<PathBuf>,

    #[command(flatten)]
    pub vars: VarArgs,

    /// Treat every warning as an error (exit 2)
    #[arg(long)]
    pub strict: bool,
}

impl ToolsArgs {
    pub(super) fn settle(&mut self) -> Result<(), UsageError> {
        settle(&mut self.pack, self.pack_arg.take().into_iter().collect())
    }
}

impl CheckArgs {
    /// The pack file among the names is the pack; with `--pack`, the names are all
    /// names, as they always were.
    pub(super) fn settle(&mut self) -> Result<(), UsageError> {
        if self.pack.is_some() {
            return Ok(());
        }
        settle(&mut self.pack, take_packs(&mut self.names))
    }
}

impl ValidateArgs {
    /// The pack file among the scenario files is the pack; with `--pack`, every
    /// positional is a scenario file or folder, as it always was.
    pub(super) fn settle(&mut self) -> Result<(), UsageError> {
        if self.pack.is_some() {
            return Ok(());
        }
        settle(&mut self.pack, take_packs(&mut self.scenarios))
    }
}
