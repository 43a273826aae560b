//! `diff BASE HEAD`: two reports of one kind compared.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::baseline::GateArgs;

#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    /// The earlier report: the JSON of run (a suite or one conversation), test or
    /// check, as --format json writes it
    #[arg(value_name = "BASE")]
    pub base: PathBuf,

    /// The later report, of the same kind
    #[arg(value_name = "HEAD")]
    pub head: PathBuf,

    /// `human`: what changed, as text; `json`: one document; `markdown`: a summary
    /// for a CI step or a pull-request comment; `html`: one self-contained page
    #[arg(long, value_enum, default_value_t = DiffFormat::Human)]
    pub format: DiffFormat,

    /// Write the comparison to FILE (atomically) instead of stdout
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    #[command(flatten)]
    pub gate: GateArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DiffFormat {
    Human,
    Json,
    Markdown,
    Html,
}
