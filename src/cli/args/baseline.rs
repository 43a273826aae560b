//! `run --baseline`: compare this run with an earlier report and gate on it; and
//! the gate's options, which `diff` shares.

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Args, Default, Clone)]
pub(crate) struct BaselineArgs {
    /// Compare this run with the JSON report in FILE, scenario by scenario; the
    /// comparison is shown on stderr
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// Write this run's JSON report to the --baseline FILE (atomically), unless
    /// --fail-on-regression finds a regression; a missing FILE is written
    #[arg(long, requires = "baseline")]
    pub bless: bool,

    #[command(flatten)]
    pub gate: GateArgs,
}

// What fails a comparison's gate, and how far a score, time or cost may move. (Not a
// doc comment: clap would take it for the help of the command it is flattened into.)
#[derive(Debug, Args, Default, Clone)]
pub(crate) struct GateArgs {
    /// Exit 1 when an item regressed (passed, now fails), a new one fails, a known
    /// failure passes now (stale), or a score, time or cost moved for the worse
    /// beyond a tolerance given on the command line
    #[arg(long)]
    pub fail_on_regression: bool,

    /// Report eval and assertion score changes larger than DELTA (absolute); given,
    /// a larger drop fails the gate [default: 0]
    #[arg(long, value_name = "DELTA", value_parser = tolerance)]
    pub score_tolerance: Option<f64>,

    /// Report times that moved by more than FRACTION of the base (0.5 = +50%) and
    /// at least 100 ms; given, a slower one fails the gate [default: 0.5]
    #[arg(long, value_name = "FRACTION", value_parser = tolerance)]
    pub latency_tolerance: Option<f64>,

    /// Report token and cost changes larger than FRACTION of the base; given, a
    /// larger rise fails the gate [default: 0]
    #[arg(long, value_name = "FRACTION", value_parser = tolerance)]
    pub cost_tolerance: Option<f64>,

    /// Failures tolerated for now: a YAML or JSON list of ids (or of `id:` and
    /// `reason:`); one that passes now fails the gate as stale
    #[arg(long, value_name = "FILE")]
    pub known_failures: Option<PathBuf>,
}

/// A tolerance that is not a number of zero or more.
#[derive(Debug, thiserror::Error)]
#[error("`{0}` is not a number of zero or more")]
pub(crate) struct BadTolerance(String);

fn tolerance(text: &str) -> Result<f64, BadTolerance> {
    match text.trim().parse::<f64>() {
        Ok(value) if value.is_finite() && value >= 0.0 => Ok(value),
        _ => Err(BadTolerance(text.to_string())),
    }
}
