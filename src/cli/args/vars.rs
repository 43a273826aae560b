//! Variable values, shared by every command that renders a template.

use std::path::PathBuf;

use clap::Args;

// Variable values, shared by every command that renders a template. (Not a doc
// comment, as above.)
#[derive(Debug, Clone, Args)]
pub(crate) struct VarArgs {
    /// A value for a variable or slot (repeatable); overrides --vars-file
    #[arg(long = "var", value_name = "KEY=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,

    /// Values for variables, from a JSON or YAML mapping
    #[arg(long, value_name = "FILE")]
    pub vars_file: Option<PathBuf>,

    /// The time for time variables (`current_date`, …), RFC 3339 [default: now]
    #[arg(long, value_name = "TIME", value_parser = crate::template::parse_rfc3339)]
    pub now: Option<std::time::SystemTime>,
}

/// A `--var` that is not `KEY=VALUE`.
#[derive(Debug, thiserror::Error)]
#[error("expected KEY=VALUE, found `{0}`")]
pub(crate) struct BadVar(String);

fn parse_var(text: &str) -> Result<(String, String), BadVar> {
    match text.split_once('=') {
        Some((key, value)) if !key.trim().is_empty() => {
            Ok((key.trim().to_string(), value.to_string()))
        }
        _ => Err(BadVar(text.to_string())),
    }
}
