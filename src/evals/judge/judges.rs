//! The judges a run may call, by name, and a default: who answers a judge eval.
//!
//! Where they come from: every provider of the RuntimeConfig is a judge under its
//! name (its id, else its type); a PromptArena project adds its `judges:` names,
//! each an alias of one of those providers ([`Judges::alias`]); the default is the
//! first such alias, else the provider that plays the run itself. A mock judge
//! answers as PromptKit's does: its call belongs to no scenario, so the script's
//! global `defaultResponse` answers it.

use std::path::PathBuf;

use indexmap::IndexMap;

use crate::config::{Provider as ProviderConfig, RuntimeConfig};
use crate::conversation::{History, ToolChoice, message};
use crate::doc::{one_of, suggest};
use crate::provider::{
    Answers, HttpProvider, MockScript, ModelCall, ModelPlan, Provider, ScriptedProvider,
    http_plays, load_mock,
};

use super::request::JudgeRequest;

/// The scenario a mock judge's calls are asked under: none, so the script's global
/// default answers them.
const NO_SCENARIO: &str = "";

/// One judge: a provider to call and the name it goes by in results.
#[derive(Clone)]
pub(crate) struct JudgeModel {
    /// The provider's name (its id, else its type; `mock` for the bare mock).
    name: String,
    model: Option<String>,
    source: Source,
}

#[derive(Clone)]
enum Source {
    /// A script already read (the run's own mock).
    Script(MockScript),
    /// A mock provider's `mock_config`, read when the judge is called.
    ScriptFile(PathBuf),
    /// A mock provider with no script: the fixed fallback text answers.
    Bare,
    Http(Box<ProviderConfig>),
    /// A provider that cannot judge, and why.
    Unusable(String),
}

/// Why a judge gave no verdict.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum JudgeCallError {
    #[error("no judge `{name}`: {}{}", known_judges(.known), suggest(.name, .known.iter().map(String::as_str)))]
    Unknown { name: String, known: Vec<String> },
    #[error("judge `{judge}` cannot judge: {reason}")]
    Unusable { judge: String, reason: String },
    #[error("judge `{judge}` is unreachable: {detail}")]
    Unreachable { judge: String, detail: String },
}

fn known_judges(known: &[String]) -> String {
    if known.is_empty() {
        return "the run has no named judge".into();
    }
    let names: Vec<&str> = known.iter().map(String::as_str).collect();
    format!("the run's judges are {}", one_of(&names))
}

impl JudgeModel {
    /// A provider of the config as a judge.
    pub(crate) fn from_provider(provider: &ProviderConfig) -> JudgeModel {
        let source = match provider.kind.as_str() {
            "mock" => match &provider.mock_config {
                Some(path) => Source::ScriptFile(path.clone()),
                None => Source::Bare,
            },
            kind if http_plays(kind) => Source::Http(Box::new(provider.clone())),
            kind => Source::Unusable(format!(
                "provider type `{kind}` does not answer judge calls (a judge is a mock or a model API)"
            )),
        };
        JudgeModel {
            name: provider.name().to_string(),
            model: provider.model.clone(),
            source,
        }
    }

    /// A mock judge playing `script`.
    pub(crate) fn mock(name: &str, script: MockScript) -> JudgeModel {
        JudgeModel {
            name: name.to_string(),
            model: None,
            source: Source::Script(script),
        }
    }

    /// The provider that plays a run, as a judge; `None` when it replays a
    /// recording, which holds no answers to judge calls.
    pub(crate) fn of_run(run: &ModelPlan) -> Option<JudgeModel> {
        let source = match &run.answers {
            Answers::Mock { script, .. } => {
                let mut judge = JudgeModel::mock(&run.info.name, script.clone());
                judge.model = run.info.model.clone();
                return Some(judge);
            }
            Answers::Http(config) => Source::Http(config.clone()),
            Answers::Replay { .. } => return None,
        };
        Some(JudgeModel {
            name: run.info.name.clone(),
            model: run.info.model.clone(),
            source,
        })
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// The model named in results: the one asked for, else the provider's.
    pub(crate) fn model<'a>(&'a self, asked: Option<&'a str>) -> Option<&'a str> {
        asked.or(self.model.as_deref())
    }

    /// Asks the judge; its answer's text.
    pub(crate) async fn ask(
        &self,
        request: &JudgeRequest,
        model: Option<&str>,
    ) -> Result<String, JudgeCallError> {
        let unreachable = |detail: String| JudgeCallError::Unreachable {
            judge: self.name.clone(),
            detail,
        };
        let mut provider: Box<dyn Provider> = match &self.source {
            Source::Script(script) => Box::new(ScriptedProvider::new(script.clone(), NO_SCENARIO)),
            Source::Bare => Box::new(ScriptedProvider::new(MockScript::default(), NO_SCENARIO)),
            Source::ScriptFile(path) => {
                let script = load_mock(path).map_err(|rejected| {
                    unreachable(format!("cannot read its mock responses: {rejected}"))
                })?;
                Box::new(ScriptedProvider::new(script.value, NO_SCENARIO))
            }
            Source::Http(config) => {
                Box::new(HttpProvider::new(config).map_err(|e| unreachable(e.to_string()))?)
            }
            Source::Unusable(reason) => {
                return Err(JudgeCallError::Unusable {
                    judge: self.name.clone(),
                    reason: reason.clone(),
                });
            }
        };
        let messages = History::from(vec![message("user", &request.user)]);
        let call = ModelCall {
            turn: 1,
            round: 1,
            system_prompt: &request.system,
            // Empty: the provider's own model.
            model: model.unwrap_or_default(),
            tool_choice: ToolChoice::None,
            messages: &messages,
            tools: &[],
            stream: false,
        };
        let completion = provider
            .complete(call)
            .await
            .map_err(|e| unreachable(e.to_string()))?;
        Ok(completion.message.content)
    }
}

/// The judges of a run: each by name, and the one used when an eval names none.
#[derive(Clone, Default)]
pub(crate) struct Judges {
    default: Option<JudgeModel>,
    by_name: IndexMap<String, JudgeModel>,
    /// Whether `default` is a named judge (so the run's own provider does not replace it).
    named_default: bool,
}

impl Judges {
    /// No judge at all: judge evals are skipped.
    pub(crate) fn none() -> Judges {
        Judges::default()
    }

    /// The judges of a run played by `run` under `config`: every provider of the
    /// config by its name, and the run's own provider as the default.
    pub(crate) fn for_run(config: &RuntimeConfig, run: &ModelPlan) -> Judges {
        Judges::from_providers(&config.providers, JudgeModel::of_run(run)).aliases(&config.judges)
    }

    /// Judges from plain data: `providers` by name, and `default` for evals that
    /// name none (by its name as well, unless a provider has it).
    pub(crate) fn from_providers(
        providers: &[ProviderConfig],
        default: Option<JudgeModel>,
    ) -> Judges {
        let mut by_name = IndexMap::new();
        for provider in providers {
            by_name
                .entry(provider.name().to_string())
                .or_insert_with(|| JudgeModel::from_provider(provider));
        }
        // The default goes by its name too (the bare mock is in no config).
        if let Some(judge) = &default {
            by_name
                .entry(judge.name.clone())
                .or_insert_with(|| judge.clone());
        }
        Judges {
            default,
            by_name,
            named_default: false,
        }
    }

    /// Names `judge` the judge that `provider` (a judge of the set, by its name)
    /// is: a PromptArena `judges:` entry. The first alias becomes the default. A
    /// provider the set lacks makes a judge that cannot judge, saying so.
    pub(crate) fn alias(mut self, judge: &str, provider: &str) -> Judges {
        let model = match self.by_name.get(provider) {
            Some(found) => found.clone(),
            None => {
                let known: Vec<&str> = self.by_name.keys().map(String::as_str).collect();
                JudgeModel {
                    name: provider.to_string(),
                    model: None,
                    source: Source::Unusable(format!(
                        "provider `{provider}` is not declared{}",
                        suggest(provider, known)
                    )),
                }
            }
        };
        if !self.named_default {
            self.default = Some(model.clone());
            self.named_default = true;
        }
        self.by_name.insert(judge.to_string(), model);
        self
    }

    /// [`Judges::alias`] for each `(judge, provider)` pair, in order: a PromptArena
    /// project's `judges:` list.
    pub(crate) fn aliases<'a>(
        self,
        pairs: impl IntoIterator<Item = (&'a String, &'a String)>,
    ) -> Judges {
        pairs.into_iter().fold(self, |judges, (judge, provider)| {
            judges.alias(judge, provider)
        })
    }

    /// Whether no judge at all is available.
    pub(crate) fn is_empty(&self) -> bool {
        self.default.is_none() && self.by_name.is_empty()
    }

    /// The judge an eval asks for: the one `named`, else the default; `Ok(None)`
    /// when it names none and there is no default.
    pub(crate) fn pick(&self, named: Option<&str>) -> Result<Option<&JudgeModel>, JudgeCallError> {
        let Some(name) = named else {
            return Ok(self.default.as_ref());
        };
        let found = self.by_name.get(name).or_else(|| {
            // A provider may also be named by its type, as `--provider` allows.
            self.by_name.values().find(|j| match &j.source {
                Source::Http(config) => config.kind == name,
                _ => false,
            })
        });
        match found {
            Some(judge) => Ok(Some(judge)),
            None => Err(JudgeCallError::Unknown {
                name: name.to_string(),
                known: self.by_name.keys().cloned().collect(),
            }),
        }
    }
}
