//! The scripted mock as a provider: each model call of a session takes the next turn
//! of its scenario, and tool calls get ids that are the same on every run.

use serde_json::Value as Json;

use futures::future::LocalBoxFuture;

use super::{Completion, MockScript, ModelCall, ModelError, Provider, Rule};

/// What the model answered: text, tool calls, or both.
#[derive(Debug, Clone, PartialEq)]
pub struct AssistantMessage {
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// The arguments object; when a model sent text that is not JSON, that text as a
    /// JSON string, which the session refuses to run.
    pub args: Json,
}

/// A provider playing one scenario of a mock script.
#[derive(Debug, Clone)]
pub struct ScriptedProvider {
    script: MockScript,
    scenario: String,
    calls: u64,
    tool_calls: u64,
}

impl ScriptedProvider {
    pub fn new(script: MockScript, scenario: &str) -> Self {
        Self {
            script,
            scenario: scenario.to_string(),
            calls: 0,
            tool_calls: 0,
        }
    }

    /// The answer to the next model call, and which rule of the script gave it.
    pub fn next_answer(&mut self) -> (AssistantMessage, Rule) {
        self.calls += 1;
        let (turn, rule) = self.script.respond(&self.scenario, self.calls);
        tracing::info!(
            "mock: call {} of scenario `{}` answered by {}",
            self.calls,
            self.scenario,
            self.describe(rule)
        );
        let tool_calls = turn
            .tool_calls
            .into_iter()
            .map(|call| {
                self.tool_calls += 1;
                ToolCall {
                    id: format!("call_{}_{}", self.tool_calls, call.name),
                    name: call.name,
                    args: call.arguments,
                }
            })
            .collect();
        let message = AssistantMessage {
            content: turn.content,
            tool_calls,
        };
        (message, rule)
    }

    /// Which rule answered, in words: `scenario `support` turn 2`, `global defaultResponse`.
    fn describe(&self, rule: Rule) -> String {
        match rule {
            Rule::ScenarioTurn => format!("scenario `{}` turn {}", self.scenario, self.calls),
            Rule::ScenarioDefault => format!("scenario `{}` defaultResponse", self.scenario),
            Rule::GlobalDefault => "global defaultResponse".into(),
            Rule::Fallback => "the fixed fallback text (nothing in the script answers)".into(),
        }
    }
}

impl Provider for ScriptedProvider {
    fn complete<'a>(
        &'a mut self,
        _call: ModelCall<'a>,
    ) -> LocalBoxFuture<'a, Result<Completion, ModelError>> {
        let (message, rule) = self.next_answer();
        let completion = Completion {
            message,
            answered_by: self.describe(rule),
            usage: None,
            exchange: None,
            findings: Vec::new(),
        };
        Box::pin(std::future::ready(Ok(completion)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{MockTurn, ScriptedCall};
    use serde_json::json;

    fn script() -> MockScript {
        let mut script = MockScript::default();
        let mut scenario = crate::provider::Scenario::default();
        let call = |name: &str| ScriptedCall {
            name: name.into(),
            arguments: json!({"q": name}),
        };
        scenario.turns.insert(
            1,
            MockTurn {
                content: "looking".into(),
                tool_calls: vec![call("a"), call("b")],
            },
        );
        scenario.turns.insert(
            2,
            MockTurn {
                content: "again".into(),
                tool_calls: vec![call("a")],
            },
        );
        script.scenarios.insert("s".into(), scenario);
        script
    }

    #[test]
    fn calls_take_turns_in_order_with_stable_tool_call_ids() {
        for _ in 0..2 {
            let mut provider = ScriptedProvider::new(script(), "s");
            let (first, rule) = provider.next_answer();
            assert_eq!(rule, Rule::ScenarioTurn);
            let ids: Vec<&str> = first.tool_calls.iter().map(|c| c.id.as_str()).collect();
            assert_eq!(ids, ["call_1_a", "call_2_b"]);
            let (second, _) = provider.next_answer();
            assert_eq!(second.tool_calls[0].id, "call_3_a");
            let (third, rule) = provider.next_answer();
            assert_eq!(
                (third.content.as_str(), rule),
                ("Mock response", Rule::Fallback)
            );
        }
    }
}
