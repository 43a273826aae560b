//! Who answers a conversation's model calls: the provider a flag, a scenario or
//! the config names (the scripted mock, an HTTP API, or a `replay` provider's
//! recording), or a recording given outright, which wins. Decided and checked
//! before the conversation starts; the provider itself is made on its runtime.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::{Provider as ProviderConfig, RuntimeConfig};
use crate::doc::{Diagnostic, Diagnostics, one_of, suggest};

use super::{
    HTTP_TYPES, HttpProvider, MatchMode, MockScript, Provider, ProviderInfo, Recording, Replayer,
    ScriptedProvider, SetupError, http_plays,
};

/// What answers the model calls of one conversation, decided before it starts.
#[derive(Clone)]
pub(crate) struct ModelPlan {
    pub answers: Answers,
    /// Ask for streamed answers (HTTP providers).
    pub stream: bool,
    /// What a recording of these answers says played them.
    pub info: ProviderInfo,
    /// What hook payloads name as the provider and the model.
    pub hook_names: (String, String),
}

#[derive(Clone)]
pub(crate) enum Answers {
    /// The scripted mock, playing one scenario of its script.
    Mock {
        script: MockScript,
        scenario: String,
    },
    /// A real model API; a client is made for each conversation, on its runtime.
    Http(Box<ProviderConfig>),
    /// A recording: session `session` of it.
    Replay {
        recording: Arc<Recording>,
        path: PathBuf,
        session: usize,
        mode: MatchMode,
    },
}

impl ModelPlan {
    /// The plan for `answers` by the chosen provider (or the bare mock): hooks are
    /// told its name and model.
    pub(crate) fn new(answers: Answers, chosen: Option<&ProviderConfig>, stream: bool) -> Self {
        let info = chosen.map_or_else(
            || ProviderInfo {
                name: "mock".into(),
                kind: "mock".into(),
                model: None,
            },
            ProviderInfo::of,
        );
        ModelPlan {
            answers,
            stream,
            info,
            hook_names: ProviderConfig::hook_names(chosen),
        }
    }

    /// The provider that answers, made on the conversation's runtime.
    pub(crate) fn provider<'a>(self) -> Result<Box<dyn Provider + 'a>, SetupError> {
        Ok(match self.answers {
            Answers::Mock { script, scenario } => {
                Box::new(ScriptedProvider::new(script, &scenario))
            }
            Answers::Http(config) => Box::new(HttpProvider::new(&config)?),
            Answers::Replay {
                recording,
                path,
                session,
                mode,
            } => Box::new(Replayer::new(recording, &path, session, mode)),
        })
    }

    /// The same answers, for trial `trial` (from 1) of a scenario: a recording
    /// replays its session of that trial.
    pub(crate) fn for_trial(&self, trial: u32) -> ModelPlan {
        let mut plan = self.clone();
        if let Answers::Replay { session, .. } = &mut plan.answers {
            *session = trial as usize - 1;
        }
        plan
    }

    /// Whether the scripted mock answers.
    pub(crate) fn is_mock(&self) -> bool {
        matches!(self.answers, Answers::Mock { .. })
    }
}

/// A provider was asked for by a name the config does not declare.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{name}` is not a provider of the config ({}){}", declared(.known), suggest(.name, .known.iter().map(String::as_str)))]
pub(crate) struct UnknownProvider {
    pub name: String,
    /// The names the config declares.
    pub known: Vec<String>,
}

fn declared(known: &[String]) -> String {
    if known.is_empty() {
        return "the config declares none".to_string();
    }
    let names: Vec<&str> = known.iter().map(String::as_str).collect();
    format!("it declares {}", one_of(&names))
}

/// Why the chosen provider cannot play.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SelectError {
    /// Problems placed in a file: the config's provider, or a recording.
    #[error("{0}")]
    Placed(Diagnostics),
    /// A problem with the config's provider when no config file was read, so there
    /// is nowhere to place it.
    #[error("{0}")]
    Unplaced(String),
    /// A mock script was given but the provider that plays is not the mock.
    #[error("provider `{name}` is `{kind}`")]
    NotTheMock { name: String, kind: String },
}

/// The config's provider that plays: the one `named`, else its mock provider, else
/// its first; `None` when it declares none, and the bare mock plays.
pub(crate) fn choose<'c>(
    config: &'c RuntimeConfig,
    named: Option<&str>,
) -> Result<Option<&'c ProviderConfig>, UnknownProvider> {
    let providers = &config.providers;
    let Some(name) = named else {
        return Ok(config.default_provider());
    };
    let found = providers
        .iter()
        .find(|p| p.name() == name)
        .or_else(|| providers.iter().find(|p| p.kind == name));
    if let Some(found) = found {
        return Ok(Some(found));
    }
    Err(UnknownProvider {
        name: name.to_string(),
        known: providers.iter().map(|p| p.name().to_string()).collect(),
    })
}

/// The chosen provider when it is a live one: `None` for the mock (or no provider,
/// when the bare mock plays).
pub(crate) fn live(chosen: Option<&ProviderConfig>) -> Option<&ProviderConfig> {
    chosen.filter(|p| p.kind != "mock")
}

/// The mock playing `scenario` of `script`.
pub(crate) fn mock_answers(script: MockScript, scenario: &str) -> Answers {
    Answers::Mock {
        script,
        scenario: scenario.to_string(),
    }
}

/// What a provider other than the mock plays with: a `replay` provider's recording,
/// read now, or an HTTP client whose settings are checked now (a missing key stops
/// the run before it starts). A problem points at the provider in `config`.
pub(crate) fn live_answers(
    p: &ProviderConfig,
    config: &RuntimeConfig,
    mock_given: bool,
) -> Result<Answers, SelectError> {
    if mock_given {
        return Err(SelectError::NotTheMock {
            name: p.name().to_string(),
            kind: p.kind.clone(),
        });
    }
    if p.kind == "replay" {
        return provider_replay(p, config);
    }
    if !http_plays(&p.kind) {
        return Err(at(
            config,
            p.pos,
            format!(
                "provider `{}` has type `{}`, which promptexec does not call (it plays `mock`, `replay`, {})",
                p.name(),
                p.kind,
                one_of(&HTTP_TYPES)
            ),
        ));
    }
    HttpProvider::new(p).map_err(|e| at(config, p.pos, e.to_string()))?;
    Ok(Answers::Http(Box::new(p.clone())))
}

/// A problem at `pos` of the config, or unplaced when no config file was read.
fn at(config: &RuntimeConfig, pos: crate::doc::Pos, message: String) -> SelectError {
    match &config.path {
        Some(file) => SelectError::Placed(Diagnostic::error(file, pos, message).into()),
        None => SelectError::Unplaced(message),
    }
}

/// A recording to replay, read now: a file that is missing or malformed stops the
/// run before anything starts.
pub(crate) fn replay_answers(path: &Path, mode: MatchMode) -> Result<Answers, SelectError> {
    let recording = Recording::load(path).map_err(SelectError::Placed)?;
    Ok(replaying(recording, path, mode))
}

/// What a `replay` provider plays with: the recording its config names, read now. A
/// file that cannot be read is placed where the config names it; a malformed one
/// where its problem is.
fn provider_replay(p: &ProviderConfig, config: &RuntimeConfig) -> Result<Answers, SelectError> {
    let Some((path, pos)) = &p.recording else {
        // The config does not load without it.
        return Err(SelectError::Unplaced(format!(
            "provider `{}` names no recording to replay",
            p.name()
        )));
    };
    let text = std::fs::read_to_string(path).map_err(|err| {
        let message = format!(
            "provider `{}`: cannot read the recording `{}`: {err}",
            p.name(),
            path.display()
        );
        at(config, *pos, message)
    })?;
    let recording =
        Recording::parse(path, &text).map_err(|problem| SelectError::Placed(problem.into()))?;
    let mode = if p.match_content {
        MatchMode::Content
    } else {
        MatchMode::Turn
    };
    Ok(replaying(recording, path, mode))
}

fn replaying(recording: Recording, path: &Path, mode: MatchMode) -> Answers {
    Answers::Replay {
        recording: Arc::new(recording),
        path: path.to_path_buf(),
        session: 0,
        mode,
    }
}
