//! A2A agents answered by their mocks: each skill of an agent's card is a tool
//! `a2a__AGENT__SKILL`, and a call is answered by the first `responses` rule for
//! that skill whose `match` holds on the call's `query`, as PromptKit's mock A2A
//! server answers.

use regex::Regex;
use serde::Deserialize;
use serde_json::{Value as Json, json};

use super::{CallError, OfferedTool, object_args, string_arg};

/// Why an `a2a_agents` node cannot be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum A2aError {
    #[error("a2a_agents: {0}")]
    Shape(#[from] serde_json::Error),
    #[error(
        "a2a_agents: agent `{agent}`: `match.regex` {pattern:?} is not a regular expression: {error}"
    )]
    Regex {
        agent: String,
        pattern: String,
        error: regex::Error,
    },
}

#[derive(Debug, Deserialize)]
struct AgentEntry {
    name: String,
    #[serde(default)]
    card: Card,
    #[serde(default)]
    responses: Vec<RuleEntry>,
}

#[derive(Debug, Default, Deserialize)]
struct Card {
    #[serde(default)]
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    skills: Vec<Skill>,
}

#[derive(Debug, Clone, Deserialize)]
struct Skill {
    id: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    description: String,
}

#[derive(Debug, Deserialize)]
struct RuleEntry {
    #[serde(default)]
    skill: String,
    #[serde(default, rename = "match")]
    matching: Option<MatchEntry>,
    #[serde(default)]
    response: Option<ResponseEntry>,
    #[serde(default)]
    error: String,
}

#[derive(Debug, Deserialize)]
struct MatchEntry {
    #[serde(default)]
    contains: String,
    #[serde(default)]
    regex: String,
}

#[derive(Debug, Deserialize)]
struct ResponseEntry {
    #[serde(default)]
    parts: Vec<PartEntry>,
}

#[derive(Debug, Deserialize)]
struct PartEntry {
    #[serde(default)]
    text: String,
}

/// What a rule answers.
#[derive(Debug)]
enum Reply {
    Text(String),
    Failed(String),
}

#[derive(Debug)]
struct Rule {
    skill: String,
    contains: Option<String>,
    regex: Option<Regex>,
    reply: Reply,
}

impl Rule {
    fn holds(&self, skill: &str, text: &str) -> bool {
        (self.skill.is_empty() || self.skill == skill)
            && self
                .contains
                .as_ref()
                .is_none_or(|c| text.to_lowercase().contains(c))
            && self.regex.as_ref().is_none_or(|r| r.is_match(text))
    }
}

#[derive(Debug)]
struct Agent {
    /// The agent's name as tool names carry it.
    tool_name: String,
    description: String,
    skills: Vec<Skill>,
    rules: Vec<Rule>,
}

/// The mocked agents of an Arena config, in file order.
#[derive(Debug)]
pub(crate) struct A2aAgents {
    agents: Vec<Agent>,
}

/// Lower case, every run of other characters than letters and digits made one
/// `_`, and no `_` at either end: how PromptKit names an agent's tools.
fn sanitize(name: &str) -> String {
    let mut out = String::new();
    for c in name.to_lowercase().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
}

impl A2aAgents {
    /// Reads `a2a_agents`; `None` when no entry has mocked `responses` (agents
    /// reached over the network are not these).
    pub(crate) fn from_json(node: &Json) -> Result<Option<Self>, A2aError> {
        let entries: Vec<AgentEntry> = serde_json::from_value(node.clone())?;
        let mut agents = Vec::new();
        for entry in entries.into_iter().filter(|e| !e.responses.is_empty()) {
            let mut rules = Vec::new();
            for rule in entry.responses {
                let reply = match (rule.error.is_empty(), rule.response) {
                    (false, _) => Reply::Failed(rule.error),
                    (true, Some(response)) => Reply::Text(
                        response
                            .parts
                            .into_iter()
                            .map(|p| p.text)
                            .collect::<Vec<_>>()
                            .join("\n"),
                    ),
                    (true, None) => continue,
                };
                let (contains, regex) = match rule.matching {
                    None => (None, None),
                    Some(m) => {
                        let regex = if m.regex.is_empty() {
                            None
                        } else {
                            Some(Regex::new(&m.regex).map_err(|error| A2aError::Regex {
                                agent: entry.name.clone(),
                                pattern: m.regex.clone(),
                                error,
                            })?)
                        };
                        (
                            (!m.contains.is_empty()).then(|| m.contains.to_lowercase()),
                            regex,
                        )
                    }
                };
                rules.push(Rule {
                    skill: rule.skill,
                    contains,
                    regex,
                    reply,
                });
            }
            let card_name = if entry.card.name.is_empty() {
                &entry.name
            } else {
                &entry.card.name
            };
            agents.push(Agent {
                tool_name: sanitize(card_name),
                description: entry.card.description,
                skills: entry.card.skills,
                rules,
            });
        }
        Ok((!agents.is_empty()).then_some(Self { agents }))
    }

    /// One tool per skill of every agent, in file order.
    pub(crate) fn tools(&self) -> Vec<OfferedTool> {
        self.agents
            .iter()
            .flat_map(|agent| {
                agent.skills.iter().map(move |skill| OfferedTool {
                    name: format!("a2a__{}__{}", agent.tool_name, sanitize(&skill.id)),
                    description: [&skill.description, &skill.name, &agent.description]
                        .into_iter()
                        .find(|d| !d.is_empty())
                        .cloned()
                        .unwrap_or_default(),
                    input_schema: json!({
                        "type": "object",
                        "properties": {
                            "query": {"type": "string", "description": "The message to send to the agent."}
                        },
                        "required": ["query"],
                    }),
                })
            })
            .collect()
    }

    /// The mock's answer to a call of `tool` (`{"response": TEXT}`), or `None` when
    /// `tool` is no skill of these agents.
    pub(crate) fn call(&self, tool: &str, args: &Json) -> Option<Result<Json, CallError>> {
        let (agent, skill) = self.agents.iter().find_map(|agent| {
            agent
                .skills
                .iter()
                .find(|s| format!("a2a__{}__{}", agent.tool_name, sanitize(&s.id)) == tool)
                .map(|s| (agent, s))
        })?;
        Some(answer(tool, agent, &skill.id, args))
    }
}

fn answer(tool: &str, agent: &Agent, skill: &str, args: &Json) -> Result<Json, CallError> {
    object_args(tool, args)?;
    let text = string_arg(tool, args, "query")?.ok_or(CallError::Required {
        tool: tool.into(),
        key: "query",
    })?;
    let rule = agent
        .rules
        .iter()
        .find(|r| r.holds(skill, &text))
        .ok_or_else(|| CallError::NoMatchingRule { tool: tool.into() })?;
    match &rule.reply {
        Reply::Text(text) => Ok(json!({ "response": text })),
        Reply::Failed(message) => Err(CallError::AgentFailed {
            tool: tool.into(),
            message: message.clone(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agents() -> A2aAgents {
        let node = json!([
            {"name": "research_agent",
             "card": {"name": "Research Agent", "description": "Finds papers",
                      "skills": [{"id": "search_papers", "name": "Search Papers",
                                  "description": "Search for papers"}]},
             "responses": [
                {"skill": "search_papers", "match": {"contains": "Quantum"},
                 "response": {"parts": [{"text": "3 papers"}, {"text": "on quantum"}]}},
                {"skill": "search_papers", "match": {"regex": "^fail"}, "error": "overloaded"},
                {"skill": "search_papers", "response": {"parts": [{"text": "1 paper"}]}}]},
            {"name": "remote", "url": "http://localhost:1"}
        ]);
        A2aAgents::from_json(&node)
            .expect("valid")
            .expect("mocked agents")
    }

    #[test]
    fn each_skill_is_a_tool_named_after_the_card() {
        let tools = agents().tools();
        assert_eq!(tools.len(), 1);
        assert_eq!(tools[0].name, "a2a__research_agent__search_papers");
        assert_eq!(tools[0].description, "Search for papers");
        assert_eq!(tools[0].input_schema["required"], json!(["query"]));
    }

    #[test]
    fn the_first_rule_that_holds_answers() {
        let a = agents();
        let tool = "a2a__research_agent__search_papers";
        let call = |q: &str| a.call(tool, &json!({"query": q})).expect("an agent tool");
        assert_eq!(
            call("papers on QUANTUM computing"),
            Ok(json!({"response": "3 papers\non quantum"}))
        );
        assert_eq!(call("anything"), Ok(json!({"response": "1 paper"})));
        assert_eq!(
            call("fail now"),
            Err(CallError::AgentFailed {
                tool: tool.into(),
                message: "overloaded".into()
            })
        );
        assert!(matches!(
            a.call(tool, &json!({})),
            Some(Err(CallError::Required { .. }))
        ));
        assert_eq!(a.call("lookup_order", &json!({})), None);
    }

    #[test]
    fn no_rule_for_the_skill_is_an_error() {
        let node = json!([{"name": "a", "card": {"skills": [{"id": "x"}, {"id": "y"}]},
                           "responses": [{"skill": "x", "response": {"parts": [{"text": "ok"}]}}]}]);
        let a = A2aAgents::from_json(&node).expect("valid").expect("mocked");
        assert_eq!(
            a.call("a2a__a__y", &json!({"query": "hi"})),
            Some(Err(CallError::NoMatchingRule {
                tool: "a2a__a__y".into()
            }))
        );
    }

    #[test]
    fn a_bad_regex_is_refused_when_read() {
        let node = json!([{"name": "a", "responses": [{"match": {"regex": "("}, "error": "x"}]}]);
        assert!(matches!(
            A2aAgents::from_json(&node),
            Err(A2aError::Regex { .. })
        ));
    }
}
