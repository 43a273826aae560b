//! `prompt lint`: which templates to check, against which rules, and how to answer.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

#[derive(Debug, Args)]
pub(crate) struct LintArgs {
    /// Library prompts to check [default: every prompt, unless --file or --dir]
    pub ids: Vec<String>,
    /// A template file (`.prompt` or PromptKind JSON); repeatable
    #[arg(long = "file", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Every template file (`*.prompt`, `*.json`) under this folder
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The lint config: rules off or re-levelled [default: .promptlint.yaml here, when present]
    #[arg(long = "rules", value_name = "FILE")]
    pub rules: Option<PathBuf>,
    /// `human`: one line per finding; `json`: one document; `sarif`: SARIF 2.1.0
    #[arg(long, value_enum, default_value_t = LintFormat::Human)]
    pub format: LintFormat,
    /// The library database: its prompts are the partials templates can include
    /// [default: the per-user data directory, for library prompts]
    #[arg(long, value_name = "PATH", env = "PROMPTEXEC_LIBRARY")]
    pub library: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LintFormat {
    Human,
    Json,
    Sarif,
}
