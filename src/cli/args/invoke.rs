//! `invoke-tool`: one call of one tool.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::pack::{is_pack_path, settle};
use crate::cli::UsageError;

#[derive(Debug, Args)]
pub(crate) struct InvokeArgs {
    /// The tool: its name in the config's `spec.tools`, `mcp__SERVER__TOOL` for a tool of
    /// one of its `mcp_servers`, or the tool's own name with --server
    pub name: String,

    /// Call a tool of the MCP server this command line starts (stdio), with no config
    #[arg(long, value_name = "COMMAND", conflicts_with = "exec")]
    pub server: Option<String>,

    /// Call this command line as a one-shot exec tool, with no config
    #[arg(long, value_name = "COMMAND")]
    pub exec: Option<String>,

    /// The arguments: inline JSON, @FILE, or - for stdin
    #[arg(
        long,
        value_name = "JSON",
        default_value = "{}",
        conflicts_with = "batch"
    )]
    pub args: String,

    /// One argument, KEY=VALUE (repeatable): the value is JSON when it reads as JSON, else
    /// a string, and stays a string where the tool's schema says so
    #[arg(long = "arg", value_name = "KEY=VALUE", conflicts_with_all = ["args", "batch"])]
    pub arg: Vec<String>,

    /// Many calls: one JSON arguments object per line of FILE (or - for stdin); one
    /// JSON envelope per line on stdout, in input order
    #[arg(long, value_name = "FILE")]
    pub batch: Option<PathBuf>,

    /// With --batch: how many calls run at once
    #[arg(short = 'j', long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub jobs: u64,

    /// Check the arguments against the tool's JSON Schema in this PromptPack first
    #[arg(id = "pack_arg", value_name = "PACK")]
    pack_arg: Option<PathBuf>,

    /// The same as the PACK argument
    #[arg(long, value_name = "PACK", hide = true)]
    pub pack: Option<PathBuf>,

    /// Deadline for the call, overriding the config's timeout_ms
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout_ms: Option<u64>,

    /// `result`: the tool's result alone; `json`: the whole call as one JSON object
    #[arg(long, value_enum, default_value_t = InvokeFormat::Result)]
    pub format: InvokeFormat,
}

impl InvokeArgs {
    /// The pack, from PACK or `--pack`; a pack given first and a tool name second are
    /// taken the right way round.
    pub(super) fn settle(&mut self) -> Result<(), UsageError> {
        if is_pack_path(&self.name)
            && let Some(second) = self.pack_arg.take_if(|p| !is_pack_path(p.as_path()))
        {
            let pack = std::mem::replace(&mut self.name, second.to_string_lossy().into_owned());
            self.pack_arg = Some(PathBuf::from(pack));
        }
        settle(&mut self.pack, self.pack_arg.take().into_iter().collect())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum InvokeFormat {
    Result,
    Json,
}
