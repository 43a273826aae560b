//! Self-play: scenario turns whose user messages a second model writes, playing a
//! persona, as PromptArena plays them. A turn `role: ROLE, persona: ID, turns: N`
//! is N user turns; before each, the role's provider is shown the persona's system
//! prompt and the conversation so far with `user` and `assistant` swapped (it speaks
//! as the assistant of its own conversation), without tool messages or tool calls,
//! and its answer is the next user message. The mock answers from its file's
//! `selfplay` section (by persona id) and then from the scenario's section, by the
//! number PromptArena asks for: the target's answers so far, plus one.
//!
//! The roles and personas come from an Arena project's `self_play` section; without
//! one, a self-play turn is not played and says why.

mod persona;
mod replan;
mod script;
mod speak;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use indexmap::IndexMap;

use crate::config::RuntimeConfig;
use crate::doc::{Diagnostic, Diagnostics, Pos, suggest};
use crate::provider::{self, ModelPlan};

pub(crate) use persona::{Persona, load as load_persona};
pub(crate) use replan::{from_arena, replan};
pub(crate) use script::RoleScript;

use super::{Scenario, Turn};

/// A self-play turn as written: who speaks, as whom, for how many turns.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SelfPlayTurn {
    pub role: String,
    pub persona: Option<String>,
    /// `turns`: how many user messages it writes (at least 1).
    pub turns: u32,
    pub pos: Pos,
}

/// What self-play plays with: each role's provider and every persona, by id.
#[derive(Debug, Clone, Default)]
pub(crate) struct SelfPlay {
    pub roles: IndexMap<String, Role>,
    pub personas: IndexMap<String, Persona>,
    /// Where the roles and personas were declared, for messages.
    pub source: Option<PathBuf>,
}

/// A self-play role: the provider that writes its messages.
#[derive(Clone)]
pub(crate) struct Role {
    pub provider: String,
    pub voice: Voice,
}

impl std::fmt::Debug for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Role")
            .field("provider", &self.provider)
            .finish_non_exhaustive()
    }
}

/// How a role's messages are written.
#[derive(Clone)]
pub(crate) enum Voice {
    /// The mock, from its file (or from nothing: the default texts).
    Mock(Arc<RoleScript>),
    /// A model, called as the conversation's own provider is.
    Model(Box<ModelPlan>),
}

/// The speaker of one self-play turn of one scenario, ready to play.
#[derive(Debug, Clone)]
pub(crate) struct Speaker {
    pub role: String,
    pub persona: Persona,
    pub role_plan: Role,
    /// The scenario id mock answers fall back on.
    pub scenario: String,
}

impl SelfPlay {
    /// Self-play from plain data: persona files (each with where it is named in
    /// `source`), and roles as (role id, provider id, where written). Each role's
    /// provider is looked up in `config` (the mock reads its `mock_config`; another
    /// type is called as a conversation's provider is). Every problem is placed in
    /// the file it is in; `Err` when one is an error.
    pub(crate) fn from_parts(
        source: &Path,
        personas: &[(PathBuf, Pos)],
        roles: &[(String, String, Pos)],
        config: &RuntimeConfig,
    ) -> Result<(SelfPlay, Diagnostics), Diagnostics> {
        let mut found = Diagnostics::default();
        let mut out = SelfPlay {
            source: Some(source.to_path_buf()),
            ..SelfPlay::default()
        };
        for (path, pos) in personas {
            if !path.is_file() {
                found.push(Diagnostic::error(
                    source,
                    *pos,
                    format!("persona file {} does not exist", path.display()),
                ));
                continue;
            }
            match load_persona(path) {
                Ok(loaded) => {
                    found.extend(loaded.warnings);
                    let persona = loaded.value;
                    if out.personas.contains_key(&persona.id) {
                        found.push(Diagnostic::error(
                            source,
                            *pos,
                            format!("persona `{}` is declared twice", persona.id),
                        ));
                        continue;
                    }
                    out.personas.insert(persona.id.clone(), persona);
                }
                Err(rejected) => found.extend(rejected.0),
            }
        }
        for (id, provider_id, pos) in roles {
            match role(source, provider_id, *pos, config) {
                Ok((role, warnings)) => {
                    found.extend(warnings);
                    out.roles.insert(id.clone(), role);
                }
                Err(problems) => found.extend(problems),
            }
        }
        if found.has_errors() {
            Err(found)
        } else {
            Ok((out, found))
        }
    }

    /// Makes the scenario's self-play turns played turns, each written as `turns`
    /// user turns that carry its assertions (checked after each of them), when its
    /// role and persona are known. Those that are not stay unplayed, saying why, and
    /// a warning at the turn says so too. `mock_scenario`: the scenario id the mock
    /// answers fall back on.
    pub(crate) fn attach(&self, scenario: &mut Scenario, mock_scenario: &str) -> Diagnostics {
        let mut found = Diagnostics::default();
        let mut offset = 0;
        let mut kept = Vec::new();
        for mut unplayed in std::mem::take(&mut scenario.unplayed) {
            unplayed.after += offset;
            let Some(spec) = unplayed.self_play.clone() else {
                kept.push(unplayed);
                continue;
            };
            match self.speaker(&spec, mock_scenario) {
                Ok(speaker) => {
                    let speaker = Arc::new(speaker);
                    let at = unplayed.after as usize;
                    let turns = (0..spec.turns).map(|_| Turn {
                        content: String::new(),
                        dropped: Vec::new(),
                        assertions: unplayed.assertions.clone(),
                        consent: Vec::new(),
                        chaos: Vec::new(),
                        streaming: None,
                        speaker: Some(Arc::clone(&speaker)),
                    });
                    scenario.turns.splice(at..at, turns);
                    offset += spec.turns;
                }
                Err(reason) => {
                    let reason = reason.to_string();
                    found.push(Diagnostic::warning(&scenario.path, spec.pos, &reason));
                    unplayed.reason = reason;
                    kept.push(unplayed);
                }
            }
        }
        scenario.unplayed = kept;
        found
    }

    /// The speaker of `spec`, or why it cannot be played.
    fn speaker(&self, spec: &SelfPlayTurn, mock_scenario: &str) -> Result<Speaker, NotPlayed> {
        let from = self
            .source
            .as_ref()
            .map(|p| format!(" of {}", p.display()))
            .unwrap_or_default();
        let Some(role) = self.roles.get(&spec.role) else {
            return Err(NotPlayed::UnknownRole {
                role: spec.role.clone(),
                from,
                hint: suggest(&spec.role, self.roles.keys().map(String::as_str)),
            });
        };
        let Some(persona_id) = &spec.persona else {
            return Err(NotPlayed::NoPersona(spec.role.clone()));
        };
        let Some(persona) = self.personas.get(persona_id) else {
            return Err(NotPlayed::UnknownPersona {
                persona: persona_id.clone(),
                from,
                hint: suggest(persona_id, self.personas.keys().map(String::as_str)),
            });
        };
        Ok(Speaker {
            role: spec.role.clone(),
            persona: persona.clone(),
            role_plan: role.clone(),
            scenario: mock_scenario.to_string(),
        })
    }
}

/// Why a self-play turn cannot be played. `from` names the file the roles and
/// personas come from (` of PATH`, or nothing); `hint` is a did-you-mean (or nothing).
#[derive(Debug, thiserror::Error)]
enum NotPlayed {
    #[error("not played: `{role}` is not a self-play role{from}{hint}")]
    UnknownRole {
        role: String,
        from: String,
        hint: String,
    },
    #[error("not played: the `{0}` turn names no `persona` to play")]
    NoPersona(String),
    #[error("not played: `{persona}` is not a persona{from}{hint}")]
    UnknownPersona {
        persona: String,
        from: String,
        hint: String,
    },
}

/// The role played by `provider_id` of `config`.
fn role(
    source: &Path,
    provider_id: &str,
    pos: Pos,
    config: &RuntimeConfig,
) -> Result<(Role, Diagnostics), Diagnostics> {
    let names = config.providers.iter().map(|p| p.name());
    let Some(p) = config.providers.iter().find(|p| p.name() == provider_id) else {
        return Err(Diagnostic::error(
            source,
            pos,
            format!(
                "self-play role provider `{provider_id}` is not a provider of the project{}",
                suggest(provider_id, names)
            ),
        )
        .into());
    };
    if p.kind == "mock" {
        let (script, warnings) = match &p.mock_config {
            Some(path) => RoleScript::load(path)?,
            None => (RoleScript::default(), Diagnostics::default()),
        };
        return Ok((
            Role {
                provider: provider_id.to_string(),
                voice: Voice::Mock(Arc::new(script)),
            },
            warnings,
        ));
    }
    let answers = provider::live_answers(p, config, false).map_err(|err| match err {
        provider::SelectError::Placed(found) => found,
        other => Diagnostic::error(source, pos, other.to_string()).into(),
    })?;
    Ok((
        Role {
            provider: provider_id.to_string(),
            voice: Voice::Model(Box::new(ModelPlan::new(answers, Some(p), false))),
        },
        Diagnostics::default(),
    ))
}

#[cfg(test)]
mod tests;
