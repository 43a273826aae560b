//! Who answers a conversation's model calls: the provider `--provider`, a scenario
//! or the config names (the scripted mock, an HTTP API, or a `replay` provider's
//! recording), or the recording `--replay` or `--replay-dir` names, which wins; and
//! the recorder that keeps the exchanges when recording.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::cli::CliError;
use crate::cli::args::ReplayMatch;
use crate::config::{Provider as ProviderConfig, RuntimeConfig};
use crate::doc::{Diagnostic, Pos, suggest};
use crate::provider::{
    HTTP_TYPES, HttpProvider, MatchMode, MockScript, Provider, ProviderInfo, Recording, Replayer,
    ScriptedProvider, http_plays,
};
use crate::report::RunRecord;
use crate::session::TurnEnd;

/// What answers the model calls of one conversation, decided before it starts.
#[derive(Clone)]
pub(super) struct ModelPlan {
    pub answers: Answers,
    /// Ask for streamed answers (HTTP providers).
    pub stream: bool,
    /// What a recording of these answers says played them.
    pub info: ProviderInfo,
    /// What hook payloads name as the provider and the model.
    pub hook_names: (String, String),
}

#[derive(Clone)]
pub(super) enum Answers {
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
    /// The provider that answers, made on the conversation's runtime.
    pub(super) fn provider<'a>(
        self,
    ) -> Result<Box<dyn Provider + 'a>, crate::provider::SetupError> {
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
    pub(super) fn for_trial(&self, trial: u32) -> ModelPlan {
        let mut plan = self.clone();
        if let Answers::Replay { session, .. } = &mut plan.answers {
            *session = trial as usize - 1;
        }
        plan
    }
}

/// Where a provider was asked for by name, for the message when none has it.
pub(super) enum NamedBy<'a> {
    Flag,
    Scenario { file: &'a Path, pos: Pos },
}

/// The config's provider that plays: the one named (by `--provider` or a scenario),
/// else its mock provider, else its first; `None` when it declares none, and the
/// bare mock plays.
pub(super) fn choose<'c>(
    config: &'c RuntimeConfig,
    named: Option<(&str, NamedBy<'_>)>,
) -> Result<Option<&'c ProviderConfig>, CliError> {
    let providers = &config.providers;
    let Some((name, by)) = named else {
        return Ok(config.default_provider());
    };
    let found = providers
        .iter()
        .find(|p| p.name() == name)
        .or_else(|| providers.iter().find(|p| p.kind == name));
    if let Some(found) = found {
        return Ok(Some(found));
    }
    let names: Vec<&str> = providers.iter().map(ProviderConfig::name).collect();
    let known = if names.is_empty() {
        "the config declares none".to_string()
    } else {
        format!("it declares {}", crate::doc::one_of(&names))
    };
    let hint = suggest(name, names.iter().copied());
    let message = format!("`{name}` is not a provider of the config ({known}){hint}");
    Err(match by {
        NamedBy::Flag => CliError::Usage(format!("--provider: {message}")),
        NamedBy::Scenario { file, pos } => CliError::Invalid(
            Diagnostic::error(file, pos, format!("/spec/providers: {message}")).into(),
        ),
    })
}

/// The chosen provider when it is a live one: `None` for the mock (or no provider,
/// when the bare mock plays).
pub(super) fn live(chosen: Option<&ProviderConfig>) -> Option<&ProviderConfig> {
    chosen.filter(|p| p.kind != "mock")
}

pub(super) fn mock_answers(script: MockScript, scenario: &str) -> Answers {
    Answers::Mock {
        script,
        scenario: scenario.to_string(),
    }
}

/// What a provider other than the mock plays with: a `replay` provider's recording,
/// read now, or an HTTP client whose settings are checked now (a missing key stops
/// the run before it starts). A problem points at the provider in `config`.
pub(super) fn live_answers(
    p: &ProviderConfig,
    config: &RuntimeConfig,
    mock_given: bool,
) -> Result<Answers, CliError> {
    let at_provider = |message: String| match &config.path {
        Some(file) => CliError::Invalid(Diagnostic::error(file, p.pos, message).into()),
        None => CliError::Usage(message),
    };
    if mock_given {
        return Err(CliError::Usage(format!(
            "--mock applies to the mock provider; provider `{}` is `{}`",
            p.name(),
            p.kind
        )));
    }
    if p.kind == "replay" {
        return provider_replay(p, config);
    }
    if !http_plays(&p.kind) {
        return Err(at_provider(format!(
            "provider `{}` has type `{}`, which promptexec does not call (it plays `mock`, `replay`, {})",
            p.name(),
            p.kind,
            crate::doc::one_of(&HTTP_TYPES)
        )));
    }
    HttpProvider::new(p).map_err(|e| at_provider(e.to_string()))?;
    Ok(Answers::Http(Box::new(p.clone())))
}

/// A recording to replay, read now: a file that is missing or malformed stops the
/// run before anything starts.
pub(super) fn replay_answers(path: &Path, mode: ReplayMatch) -> Result<Answers, CliError> {
    let recording = Recording::load(path).map_err(CliError::Invalid)?;
    Ok(replaying(recording, path, mode == ReplayMatch::Content))
}

/// What a `replay` provider plays with: the recording its config names, read now. A
/// file that cannot be read is placed where the config names it; a malformed one
/// where its problem is.
fn provider_replay(p: &ProviderConfig, config: &RuntimeConfig) -> Result<Answers, CliError> {
    let Some((path, pos)) = &p.recording else {
        // The config does not load without it.
        return Err(CliError::Usage(format!(
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
        match &config.path {
            Some(file) => CliError::Invalid(Diagnostic::error(file, *pos, message).into()),
            None => CliError::Usage(message),
        }
    })?;
    let recording =
        Recording::parse(path, &text).map_err(|problem| CliError::Invalid(problem.into()))?;
    Ok(replaying(recording, path, p.match_content))
}

fn replaying(recording: Recording, path: &Path, by_content: bool) -> Answers {
    Answers::Replay {
        recording: Arc::new(recording),
        path: path.to_path_buf(),
        session: 0,
        mode: if by_content {
            MatchMode::Content
        } else {
            MatchMode::Turn
        },
    }
}

/// The plan for `answers` by the chosen provider (or the bare mock): hooks are told
/// its name and model.
pub(super) fn plan(answers: Answers, chosen: Option<&ProviderConfig>, stream: bool) -> ModelPlan {
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

/// Writes a recording of `sessions` as played by `info`, unless a model call of
/// `runs` failed: such a recording would not replay, and the file may hold a good one.
pub(super) fn write_recording<'r>(
    path: &Path,
    info: &ProviderInfo,
    sessions: impl IntoIterator<Item = crate::provider::RecordedSession>,
    runs: impl IntoIterator<Item = &'r RunRecord>,
) -> Result<(), CliError> {
    let failed = runs.into_iter().any(|run| {
        run.turns
            .iter()
            .any(|end| matches!(end, TurnEnd::Failed { .. }))
    });
    if failed {
        tracing::warn!(
            "{} not written: the conversation could not go on, and its recording would not replay",
            path.display()
        );
        return Ok(());
    }
    let mut recording = Recording::new(info.clone());
    for session in sessions {
        recording.push_session(session);
    }
    recording.write(path).map_err(|source| CliError::Write {
        path: path.to_path_buf(),
        source,
    })
}
