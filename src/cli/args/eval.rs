//! `eval`: one eval on some content, or a pack's evals over a recorded run.

use std::path::PathBuf;

use clap::Args;

use super::pack::{is_pack_path, settle};
use crate::cli::UsageError;

#[derive(Debug, Args)]
pub(crate) struct EvalArgs {
    /// The eval type (bound in the config's spec.evals, or built in) with --content;
    /// or a PromptPack (`*.json`) whose evals run over --transcript
    #[arg(value_name = "TYPE|PACK")]
    pub eval_type: Option<String>,

    /// The text to judge: inline, @FILE, or - for stdin
    #[arg(long, value_name = "TEXT")]
    pub content: Option<String>,

    /// The eval's params: a JSON object, inline or @FILE
    #[arg(long, value_name = "JSON")]
    pub params: Option<String>,

    /// The conversation around the content: a JSON object with messages, turn_index,
    /// tool_calls, variables and metadata, inline or @FILE
    #[arg(long, value_name = "JSON")]
    pub context: Option<String>,

    /// The lowest passing score
    #[arg(long, value_name = "X", default_value_t = 1.0)]
    pub min_score: f64,

    /// The highest passing score
    #[arg(long, value_name = "Y")]
    pub max_score: Option<f64>,

    /// The same as a PACK argument
    #[arg(long, value_name = "PACK", hide = true)]
    pub pack: Option<PathBuf>,

    /// With PACK: a transcript written by `run --transcript`
    #[arg(long, value_name = "FILE")]
    pub transcript: Option<PathBuf>,

    /// With PACK: the pack's prompt [default: the one the transcript played]
    #[arg(long, value_name = "ID")]
    pub prompt: Option<String>,

    /// `json`: EvalResults on stdout; `human`: a table on stderr; `junit`: JUnit XML
    /// on stdout [default: json for one eval, human for a pack]
    #[arg(long, value_enum)]
    pub format: Option<EvalFormat>,

    /// Write the report to FILE (atomically) instead of stdout
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

impl EvalArgs {
    /// The positional is the pack when it names a pack file; a pack's evals need a
    /// transcript, and the pack's flags need a pack.
    pub(super) fn settle(&mut self) -> Result<(), UsageError> {
        if self.eval_type.as_deref().is_some_and(is_pack_path) {
            let found = self.eval_type.take().map(PathBuf::from);
            settle(&mut self.pack, found.into_iter().collect())?;
        }
        if self.eval_type.is_some() && self.pack.is_some() {
            return Err(UsageError::conflict(
                "--pack",
                "an eval TYPE judges --content, a pack's evals judge --transcript; give one",
            ));
        }
        match (&self.pack, &self.transcript) {
            (Some(_), None) => Err(UsageError::Nothing(
                "a pack's evals run over a recorded run: give --transcript FILE".into(),
            )),
            (None, Some(_)) => Err(UsageError::not_here(
                "--transcript",
                "applies to a pack's evals: give the pack, or leave it out to judge --content",
            )),
            (None, None) if self.prompt.is_some() => Err(UsageError::not_here(
                "--prompt",
                "applies to a pack's evals: give the pack and --transcript",
            )),
            _ => Ok(()),
        }
    }
}

/// The formats `eval` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum EvalFormat {
    Human,
    Json,
    Junit,
}
