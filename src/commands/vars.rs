use std::path::Path;

use crate::cli::{CliError, args::VarArgs};
use crate::doc::{Diagnostic, Value, parse_json, parse_yaml};
use crate::pack::VarInputs;

/// The values of `--vars-file`, then `--var` over them.
pub fn collect(args: &VarArgs) -> Result<VarInputs, CliError> {
    let mut inputs = VarInputs::new();
    if let Some(path) = &args.vars_file {
        inputs = read_vars_file(path)?;
    }
    for (key, value) in &args.vars {
        inputs.insert(key.clone(), serde_json::Value::String(value.clone()));
    }
    Ok(inputs)
}

fn read_vars_file(path: &Path) -> Result<VarInputs, CliError> {
    let text = std::fs::read_to_string(path).map_err(|source| CliError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let root = if is_json {
        parse_json(path, &text)
    } else {
        parse_yaml(path, &text)
    }
    .map_err(|d| CliError::Invalid(d.into()))?;
    match &root.value {
        Value::Map(entries) => Ok(entries
            .iter()
            .map(|(k, v)| (k.name.clone(), v.to_json()))
            .collect()),
        _ => Err(CliError::Invalid(
            Diagnostic::error(
                path,
                root.pos,
                format!(
                    "expected a mapping of variable names to values, found {}",
                    root.kind()
                ),
            )
            .into(),
        )),
    }
}
