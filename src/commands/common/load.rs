//! Loading what a command is given: the config, the pack, the prompt chosen from it,
//! its evals, JSON arguments and events, variable values and the mock script. Nothing
//! here starts a process, so a command that fails while loading has started none.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use crate::cli::args::VarArgs;
use crate::cli::{CliError, Console, Settings, Unknown, UsageError};
use crate::config::{self, ConfigSource, RuntimeConfig};
use crate::doc::{Diagnostic, Diagnostics, Value, parse_by_extension};
use crate::evals::{Evaluator, prompt_evals};
use crate::pack::{self, Pack, Prompt, VarInputs};

/// Where the config is: `-c`, `$PROMPTEXEC_CONFIG`, or `./runtimeconfig.yaml`.
pub(in crate::commands) fn config_path(settings: &Settings) -> Option<PathBuf> {
    match config::discover(settings.config.as_deref(), &current_dir()) {
        ConfigSource::Given(path) | ConfigSource::Found(path) => Some(path),
        ConfigSource::None => None,
    }
}

/// The directory paths are shown relative to.
pub(in crate::commands) fn current_dir() -> PathBuf {
    std::env::current_dir().unwrap_or_default()
}

/// What a command that needs a config says when there is none.
pub(in crate::commands) fn no_config() -> CliError {
    UsageError::NoConfig.into()
}

/// The config, which this command cannot do without; its warnings are shown.
pub(in crate::commands) fn config(
    settings: &Settings,
    console: &mut Console,
) -> Result<RuntimeConfig, CliError> {
    config_if_any(settings, console)?.ok_or_else(no_config)
}

/// The config given or found, or `None` when there is none.
pub(in crate::commands) fn config_if_any(
    settings: &Settings,
    console: &mut Console,
) -> Result<Option<RuntimeConfig>, CliError> {
    let Some(path) = config_path(settings) else {
        return Ok(None);
    };
    let loaded = config::load(&path, false)?;
    console.diagnostics(&loaded.warnings);
    Ok(Some(loaded.value))
}

/// A pack; its warnings are shown.
pub(in crate::commands) fn pack(path: &Path, console: &mut Console) -> Result<Pack, CliError> {
    let loaded = pack::load(path)?;
    console.diagnostics(&loaded.warnings);
    Ok(loaded.value)
}

/// `map[name]`, or a usage error that says what there is and which name was meant.
pub(in crate::commands) fn lookup<'a, T>(
    map: &'a IndexMap<String, T>,
    name: &str,
    what: &str,
    place: &str,
) -> Result<&'a T, CliError> {
    map.get(name).ok_or_else(|| {
        let phrase = Unknown::HasNo {
            place: place.to_string(),
            kind: what.to_string(),
        };
        UsageError::unknown(name, map.keys().map(String::as_str), phrase).into()
    })
}

/// The named prompt, or the pack's only one.
pub(in crate::commands) fn choose_prompt<'p>(
    pack: &'p Pack,
    id: Option<&str>,
) -> Result<&'p Prompt, CliError> {
    match id {
        Some(id) => lookup(
            &pack.prompts,
            id,
            "prompt",
            &pack.path.display().to_string(),
        ),
        None => match pack.prompts.values().next() {
            Some(only) if pack.prompts.len() == 1 => Ok(only),
            // A workflow opens at its entry state, as PromptKit's SDK opens it.
            _ if let Some(entry) = workflow_entry(pack) => Ok(entry),
            _ => Err(UsageError::Ambiguous {
                place: pack.path.display().to_string(),
                kind: "prompt",
                flag: "--prompt",
                names: pack.prompts.keys().cloned().collect(),
            }
            .into()),
        },
    }
}

/// The prompt the entry state of the pack's workflow speaks with.
fn workflow_entry(pack: &Pack) -> Option<&Prompt> {
    let workflow = pack.workflow.as_ref()?;
    let state = workflow.state(&workflow.entry)?;
    pack.prompts.get(&state.prompt_task)
}

/// The prompt's evals, ready to run (none has started); those that cannot run are
/// bad input, each pointing at its place in the pack.
pub(in crate::commands) fn prompt_evaluator(
    pack: &Pack,
    prompt: &Prompt,
    config: &RuntimeConfig,
    cancel: CancellationToken,
) -> Result<Evaluator, CliError> {
    Evaluator::new(prompt_evals(&pack.evals, prompt), &config.evals, cancel).map_err(|problems| {
        let mut diagnostics = Diagnostics::default();
        for problem in problems {
            diagnostics.push(Diagnostic::error(
                &pack.path,
                problem.pos,
                problem.to_string(),
            ));
        }
        CliError::Invalid(diagnostics)
    })
}

/// The text of a file, or of stdin for `-`; the path is opened as given, so a name
/// that is not UTF-8 works.
pub(in crate::commands) fn read_text(source: impl AsRef<Path>) -> Result<String, CliError> {
    use std::io::Read;
    let source = source.as_ref();
    let stdin = source == Path::new("-");
    let mut text = String::new();
    let read = if stdin {
        std::io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::read_to_string(source).map(|t| text = t)
    };
    read.map_err(|err| CliError::Read {
        path: if stdin {
            "<stdin>".into()
        } else {
            source.into()
        },
        source: err,
    })?;
    Ok(text)
}

/// A value given inline, as `@FILE`, or as `-` for stdin.
pub(in crate::commands) fn read_given(given: &str) -> Result<String, CliError> {
    match given.strip_prefix('@') {
        Some(file) => read_text(file),
        None if given == "-" => read_text("-"),
        None => Ok(given.to_string()),
    }
}

/// A JSON object given inline, as `@FILE`, or as `-` for stdin; `flag` and `what`
/// name it in errors.
pub(in crate::commands) fn read_json_object(
    given: &str,
    flag: &str,
    what: &str,
) -> Result<Json, CliError> {
    let origin = match given.strip_prefix('@') {
        Some(file) => file.to_string(),
        None if given == "-" => "stdin".to_string(),
        None => flag.to_string(),
    };
    let text = read_given(given)?;
    let value: Json = serde_json::from_str(&text).map_err(|err| {
        UsageError::bad_value(&origin, None, format!("{what} are not valid JSON: {err}"))
    })?;
    if !value.is_object() {
        let found = json_kind(&value);
        let expected = format!("{what} must be a JSON object, found {found}");
        return Err(UsageError::bad_value(origin, None, expected).into());
    }
    Ok(value)
}

/// `hook test --event`: a JSON object, inline, `@FILE` or `-`.
pub(in crate::commands) fn read_event(given: &str) -> Result<Json, CliError> {
    let text = read_given(given)?;
    let value: Json = serde_json::from_str(&text)
        .map_err(|err| UsageError::not_a("--event", None, format!("is not valid JSON: {err}")))?;
    if !value.is_object() {
        return Err(UsageError::not_a("--event", None, "must be a JSON object").into());
    }
    Ok(value)
}

/// What kind of JSON value this is, for messages.
pub(in crate::commands) fn json_kind(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// The values of `--vars-file`, then `--var` over them.
pub(in crate::commands) fn vars(args: &VarArgs) -> Result<VarInputs, CliError> {
    let mut inputs = VarInputs::new();
    if let Some(path) = &args.vars_file {
        inputs = read_vars_file(path)?;
    }
    for (key, value) in &args.vars {
        inputs.insert(key.clone(), Json::String(value.clone()));
    }
    Ok(inputs)
}

fn read_vars_file(path: &Path) -> Result<VarInputs, CliError> {
    let text = std::fs::read_to_string(path).map_err(|source| CliError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let root = parse_by_extension(path, &text).map_err(|d| CliError::Invalid(d.into()))?;
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

/// The mock script's file: `--mock`, else the first provider's `mock_config`.
pub(in crate::commands) fn mock_path(
    given: Option<&Path>,
    config: &RuntimeConfig,
) -> Option<PathBuf> {
    given
        .map(Path::to_path_buf)
        .or_else(|| config.providers.iter().find_map(|p| p.mock_config.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(result: Result<impl std::fmt::Debug, CliError>) -> String {
        match result {
            Err(CliError::Usage(usage)) => usage.to_string(),
            other => panic!("expected a usage error, got {other:?}"),
        }
    }

    #[test]
    fn inline_json_that_is_not_an_object_names_the_flag_and_what_it_found() {
        assert_eq!(
            usage(read_json_object("[1]", "--args", "the arguments")),
            "--args: the arguments must be a JSON object, found an array"
        );
        assert_eq!(usage(read_event("3")), "--event must be a JSON object");
        assert!(read_json_object(r#"{"a": 1}"#, "--args", "the arguments").is_ok());
    }

    #[test]
    fn a_missing_name_says_what_there_is() {
        let mut tools = IndexMap::new();
        assert_eq!(
            usage(lookup(&tools, "x", "tool", "the config")),
            "the config has no tool `x` (it has none)"
        );
        tools.insert("lookup_order".to_string(), ());
        let message = usage(lookup(&tools, "lookup_ordr", "tool", "the config"));
        assert!(message.contains("`lookup_order`"), "{message}");
    }
}
