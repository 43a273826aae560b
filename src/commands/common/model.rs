//! The provider choice ([`crate::provider::choose`] and its answers) said in the
//! command line's words: which flag or scenario field named a provider, and the
//! errors that come to.

use std::path::Path;

use crate::cli::args::ReplayMatch;
use crate::cli::{CliError, Console, Unknown, UsageError};
use crate::config::{Provider as ProviderConfig, RuntimeConfig};
use crate::doc::{Diagnostic, Pos};
use crate::provider::{self, Answers, MatchMode, ModelPlan, SelectError, load_mock};

use super::load::mock_path;
use super::warnings::LoadWarnings;

/// Where a provider was asked for by name, for the message when none has it.
pub(in crate::commands) enum NamedBy<'a> {
    Flag,
    Scenario { file: &'a Path, pos: Pos },
}

/// The config's provider that plays: the one named (by `--provider` or a scenario),
/// else its mock provider, else its first; `None` when it declares none, and the
/// bare mock plays.
pub(in crate::commands) fn choose<'c>(
    config: &'c RuntimeConfig,
    named: Option<(&str, NamedBy<'_>)>,
) -> Result<Option<&'c ProviderConfig>, CliError> {
    let Some((name, by)) = named else {
        return Ok(config.default_provider());
    };
    provider::choose(config, Some(name)).map_err(|unknown| match by {
        NamedBy::Flag => UsageError::unknown(
            unknown.name.as_str(),
            unknown.known.iter().map(String::as_str),
            Unknown::NotDeclared {
                flag: "--provider".into(),
                kind: "provider".into(),
                place: "the config".into(),
            },
        )
        .into(),
        NamedBy::Scenario { file, pos } => CliError::Invalid(
            Diagnostic::error(file, pos, format!("/spec/providers: {unknown}")).into(),
        ),
    })
}

/// A provider's problem as the command's error.
pub(in crate::commands) fn select_error(err: SelectError) -> CliError {
    match err {
        SelectError::Placed(problems) => CliError::Invalid(problems),
        SelectError::Unplaced(message) => UsageError::Unusable(message).into(),
        SelectError::NotTheMock { name, kind } => UsageError::not_here(
            "--mock",
            format!("applies to the mock provider; provider `{name}` is `{kind}`"),
        )
        .into(),
    }
}

/// What a provider other than the mock plays with ([`provider::live_answers`]).
pub(in crate::commands) fn live_answers(
    p: &ProviderConfig,
    config: &RuntimeConfig,
    mock_given: bool,
) -> Result<Answers, CliError> {
    provider::live_answers(p, config, mock_given).map_err(select_error)
}

/// A recording to replay, read now ([`provider::replay_answers`]).
pub(in crate::commands) fn replay_answers(
    path: &Path,
    by: ReplayMatch,
) -> Result<Answers, CliError> {
    provider::replay_answers(path, match_mode(by)).map_err(select_error)
}

/// How `--replay-match` finds a call's recorded exchange.
pub(in crate::commands) fn match_mode(by: ReplayMatch) -> MatchMode {
    match by {
        ReplayMatch::Content => MatchMode::Content,
        ReplayMatch::Turn => MatchMode::Turn,
    }
}

/// The flags that say who answers one conversation (or one chain).
pub(in crate::commands) struct AnswerFlags<'a> {
    pub provider: Option<&'a str>,
    pub replay: Option<&'a Path>,
    pub replay_match: ReplayMatch,
    pub mock: Option<&'a Path>,
    /// The mock's scenario, and whether `--scenario` named it.
    pub scenario: (&'a str, bool),
    pub stream: bool,
}

/// Who answers: the recording `--replay` names, else the provider chosen when it is
/// a live one, else the mock playing the scenario of its script.
pub(in crate::commands) fn plan(
    flags: AnswerFlags<'_>,
    config: &RuntimeConfig,
    warnings: &mut LoadWarnings,
    console: &mut Console,
) -> Result<ModelPlan, CliError> {
    let chosen = choose(config, flags.provider.map(|name| (name, NamedBy::Flag)))?;
    let answers = match (flags.replay, provider::live(chosen)) {
        (Some(path), _) => replay_answers(path, flags.replay_match)?,
        (None, Some(live)) => live_answers(live, config, flags.mock.is_some())?,
        (None, None) => {
            let script = match mock_path(flags.mock, config) {
                Some(path) => warnings.keep(load_mock(&path), console)?,
                None => Default::default(),
            };
            let (scenario, named) = flags.scenario;
            match script.check_scenario(scenario, named) {
                Some(problem) if problem.is_error() => {
                    return Err(CliError::Invalid(problem.into()));
                }
                Some(warning) => warnings.add(warning, console),
                None => {}
            }
            provider::mock_answers(script, scenario)
        }
    };
    Ok(ModelPlan::new(answers, chosen, flags.stream))
}
