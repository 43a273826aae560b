//! Tools a PromptArena runtime offers the model by itself, with no Tool file:
//! A2A agents answered by their mocks (`a2a_agents` with `responses`), the
//! memory tools (`memory: {enabled: true}`) and the skill tools (`skills`). Pure
//! and offline: the caller offers [`RuntimeTools::offered`] with the prompt's
//! tools and routes each call through [`RuntimeTools::call`] before any binding.

mod a2a;
mod memory;
mod skills;

use std::path::PathBuf;
use std::sync::Mutex;

use serde_json::Value as Json;

pub(crate) use a2a::{A2aAgents, A2aError};
pub(crate) use memory::MemoryStore;
pub(crate) use skills::{SkillError, Skills};

/// What a project declares of the runtime tools, checked when it is read: each
/// conversation starts its own [`RuntimeTools`] from it.
#[derive(Debug, Clone, Default)]
pub(crate) struct RuntimeSpec {
    /// The `a2a_agents` node as written.
    pub agents: Option<Json>,
    /// `memory.enabled`.
    pub memory: bool,
    /// The skill folders (`skills[].path`), resolved.
    pub skills: Vec<PathBuf>,
    /// The folders of `preload: true` entries.
    pub preload: Vec<PathBuf>,
    /// The names of the tools offered, once [`RuntimeSpec::checked`] started them.
    pub offered: Vec<String>,
}

/// Why a project's runtime tools cannot be started.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SpecError {
    #[error(transparent)]
    Agents(#[from] A2aError),
    #[error(transparent)]
    Skills(#[from] SkillError),
}

impl RuntimeSpec {
    /// The spec, its tools started once to check it, and the tools they offer.
    pub(crate) fn checked(mut self) -> Result<(Self, Vec<OfferedTool>), SpecError> {
        let tools = self.start()?.offered();
        self.offered = tools.iter().map(|t| t.name.clone()).collect();
        Ok((self, tools))
    }

    /// Whether `tool` is one of the runtime's tools (known once checked).
    pub(crate) fn offers(&self, tool: &str) -> bool {
        self.offered.iter().any(|name| name == tool)
    }

    /// Fresh runtime tools for one conversation: no memories, only the preloaded
    /// skills active.
    pub(crate) fn start(&self) -> Result<RuntimeTools, SpecError> {
        let agents = match &self.agents {
            Some(node) => A2aAgents::from_json(node)?,
            None => None,
        };
        let skills = if self.skills.is_empty() {
            None
        } else {
            let mut skills = Skills::load(&self.skills)?;
            for dir in &self.preload {
                skills.preload(&Skills::load(std::slice::from_ref(dir))?.names());
            }
            Some(skills)
        };
        Ok(RuntimeTools::new(agents, self.memory, skills))
    }
}

/// A tool the runtime offers: what the model is shown of it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OfferedTool {
    pub name: String,
    pub description: String,
    pub input_schema: Json,
}

/// Why a call of a runtime tool was answered with an error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum CallError {
    #[error("{tool}: the arguments are not a JSON object")]
    NotAnObject { tool: String },
    #[error("{tool}: `{key}` is required")]
    Required { tool: String, key: &'static str },
    #[error("{tool}: `{key}` must be {what}")]
    WrongType {
        tool: String,
        key: &'static str,
        what: &'static str,
    },
    #[error("{tool}: no mocked response matches the message")]
    NoMatchingRule { tool: String },
    #[error("{tool}: no skill is named `{name}`")]
    UnknownSkill { tool: String, name: String },
    #[error("{tool}: `{path}` is not a path inside the skill's folder")]
    OutsideSkill { tool: String, path: String },
    #[error("{tool}: `{path}`: {error}")]
    Unreadable {
        tool: String,
        path: String,
        error: String,
    },
    #[error("`{tool}` is not a tool of the runtime")]
    NotOffered { tool: String },
    #[error("{tool}: the agent failed the task: {message}")]
    AgentFailed { tool: String, message: String },
}

/// The runtime tools of one conversation: the mocked agents (shared, read only)
/// and a memory store of its own.
#[derive(Debug, Default)]
pub(crate) struct RuntimeTools {
    agents: Option<A2aAgents>,
    memory: Option<Mutex<MemoryStore>>,
    skills: Option<Mutex<Skills>>,
}

impl RuntimeTools {
    /// Runtime tools from an Arena config's `a2a_agents` node (when it has mocked
    /// agents) and `memory.enabled`.
    pub(crate) fn new(agents: Option<A2aAgents>, memory: bool, skills: Option<Skills>) -> Self {
        Self {
            agents,
            memory: memory.then(|| Mutex::new(MemoryStore::default())),
            skills: skills.map(Mutex::new),
        }
    }

    /// Every tool offered, agents first, in a fixed order.
    pub(crate) fn offered(&self) -> Vec<OfferedTool> {
        let mut tools = self
            .agents
            .as_ref()
            .map(A2aAgents::tools)
            .unwrap_or_default();
        if self.memory.is_some() {
            tools.extend(memory::tools());
        }
        if let Some(skills) = &self.skills {
            tools.extend(locked(skills).tools());
        }
        tools
    }

    /// The answer to a call of `tool`, or `None` when it is not a runtime tool
    /// (the caller then runs it as it runs any other).
    pub(crate) fn call(&self, tool: &str, args: &Json) -> Option<Result<Json, CallError>> {
        if let Some(answer) = self.agents.as_ref().and_then(|a| a.call(tool, args)) {
            return Some(answer);
        }
        if let Some(answer) = self
            .memory
            .as_ref()
            .and_then(|m| locked(m).call(tool, args))
        {
            return Some(answer);
        }
        self.skills
            .as_ref()
            .and_then(|s| locked(s).call(tool, args))
    }
}

fn locked<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// A string argument `key` of `args`, if given.
fn string_arg(tool: &str, args: &Json, key: &'static str) -> Result<Option<String>, CallError> {
    match args.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(CallError::WrongType {
            tool: tool.into(),
            key,
            what: "a string",
        }),
    }
}

/// `args` as an object (`null` reads as an empty one, as Go decodes it).
fn object_args<'a>(
    tool: &str,
    args: &'a Json,
) -> Result<Option<&'a serde_json::Map<String, Json>>, CallError> {
    match args {
        Json::Object(map) => Ok(Some(map)),
        Json::Null => Ok(None),
        _ => Err(CallError::NotAnObject { tool: tool.into() }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn agents_come_first_and_each_call_goes_to_its_tool() {
        let node = json!([{"name": "helper", "card": {"skills": [{"id": "ask"}]},
                           "responses": [{"response": {"parts": [{"text": "hi"}]}}]}]);
        let tools = RuntimeTools::new(A2aAgents::from_json(&node).expect("valid"), true, None);
        let names: Vec<String> = tools.offered().into_iter().map(|t| t.name).collect();
        assert_eq!(
            names,
            [
                "a2a__helper__ask",
                "memory__recall",
                "memory__remember",
                "memory__list",
                "memory__forget"
            ]
        );
        assert_eq!(
            tools.call("a2a__helper__ask", &json!({"query": "q"})),
            Some(Ok(json!({"response": "hi"})))
        );
        assert_eq!(
            tools.call("memory__remember", &json!({"content": "c"})),
            Some(Ok(json!({"status": "remembered", "id": "mem_1"})))
        );
        assert_eq!(tools.call("lookup_order", &json!({})), None);
        assert_eq!(
            RuntimeTools::default().call("memory__list", &json!({})),
            None
        );
    }
}
