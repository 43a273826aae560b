//! A model's answer as either API gives it, before it becomes the session's
//! `AssistantMessage`: lenient about what "compatible" servers get wrong.

use std::collections::HashSet;

use serde_json::{Value as Json, json};

use crate::config::Pricing;
use crate::conversation::History;
use crate::provider::{AssistantMessage, ToolCall, Usage};

/// What one model call answered.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Answer {
    pub text: String,
    pub calls: Vec<Call>,
    pub tokens: Option<Tokens>,
    /// What was wrong with an answer that is used all the same: cut at the token
    /// limit, or filtered.
    pub finding: Option<String>,
}

/// A tool call as the server sent it; `id` is empty when it sent none.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Call {
    pub id: String,
    pub name: String,
    pub args: Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Tokens {
    pub input: u64,
    pub output: u64,
}

impl Tokens {
    /// Counts read from a usage object under the API's two names; `None` when it has
    /// neither.
    pub(super) fn read(usage: &Json, input: &str, output: &str) -> Option<Tokens> {
        let (i, o) = (usage[input].as_u64(), usage[output].as_u64());
        (i.is_some() || o.is_some()).then(|| Tokens {
            input: i.unwrap_or(0),
            output: o.unwrap_or(0),
        })
    }

    /// The usage to report, priced when the provider has `pricing`.
    pub(super) fn usage(self, pricing: Option<Pricing>) -> Usage {
        Usage {
            input_tokens: self.input,
            output_tokens: self.output,
            cost_usd: pricing.map(|p| {
                self.input as f64 / 1000.0 * p.input_per_1k
                    + self.output as f64 / 1000.0 * p.output_per_1k
            }),
        }
    }
}

/// Arguments sent as text: `{}` when empty, the object when it is one, else the text
/// itself as a JSON string, which the session refuses to run.
pub(super) fn args_from_text(raw: &str) -> Json {
    if raw.trim().is_empty() {
        return json!({});
    }
    match serde_json::from_str::<Json>(raw) {
        Ok(object @ Json::Object(_)) => object,
        _ => Json::String(raw.to_string()),
    }
}

/// Arguments as a server put them: text to parse, or already an object.
pub(super) fn args_from_value(value: &Json) -> Json {
    match value {
        Json::String(raw) => args_from_text(raw),
        Json::Null => json!({}),
        Json::Object(_) => value.clone(),
        other => Json::String(other.to_string()),
    }
}

/// Gives tool calls ids that are unique within a session: a server's own id is kept
/// unless it is empty or already used; the rest get `call_N`, numbered in the order
/// they are needed, so the same conversation gets the same ids on every run.
#[derive(Debug, Default)]
pub(super) struct CallIds {
    made: u64,
}

impl CallIds {
    pub(super) fn assign(&mut self, calls: &mut [Call], history: &History) {
        let mut taken: HashSet<String> = history
            .iter()
            .filter_map(|m| m.get("tool_calls").and_then(Json::as_array).cloned())
            .flatten()
            .filter_map(|c| c["id"].as_str().map(str::to_string))
            .collect();
        for call in calls.iter_mut() {
            if call.id.is_empty() || taken.contains(&call.id) {
                call.id = self.fresh(&taken);
            }
            taken.insert(call.id.clone());
        }
    }

    fn fresh(&mut self, taken: &HashSet<String>) -> String {
        loop {
            self.made += 1;
            let id = format!("call_{}", self.made);
            if !taken.contains(&id) {
                return id;
            }
        }
    }
}

impl Answer {
    pub(super) fn into_message(self) -> AssistantMessage {
        AssistantMessage {
            content: self.text,
            tool_calls: self
                .calls
                .into_iter()
                .map(|c| ToolCall {
                    id: c.id,
                    name: c.name,
                    args: c.args,
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::assistant_message;

    #[test]
    fn arguments_are_parsed_leniently() {
        assert_eq!(args_from_text(""), json!({}));
        assert_eq!(args_from_text(" {\"q\": 1} "), json!({"q": 1}));
        assert_eq!(args_from_text("{\"q\": "), json!("{\"q\": "));
        assert_eq!(args_from_text("[1]"), json!("[1]"));
        assert_eq!(args_from_value(&json!({"q": 1})), json!({"q": 1}));
        assert_eq!(args_from_value(&json!("{\"q\":2}")), json!({"q": 2}));
        assert_eq!(args_from_value(&Json::Null), json!({}));
    }

    #[test]
    fn missing_and_reused_ids_get_fresh_stable_ones() {
        let call = |id: &str| Call {
            id: id.into(),
            name: "f".into(),
            args: json!({}),
        };
        let mut history = History::default();
        history.push(assistant_message(
            "",
            &[
                json!({"id": "call_1", "name": "f", "args": {}}),
                json!({"id": "x", "name": "f", "args": {}}),
            ],
        ));
        let mut ids = CallIds::default();
        let mut calls = vec![call(""), call("x"), call("own"), call("own")];
        ids.assign(&mut calls, &history);
        let got: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(got, ["call_2", "call_3", "own", "call_4"]);
    }

    #[test]
    fn usage_is_priced_per_thousand_tokens() {
        let tokens = Tokens::read(
            &json!({"prompt_tokens": 1500, "completion_tokens": 200}),
            "prompt_tokens",
            "completion_tokens",
        )
        .expect("counts");
        let pricing = Pricing {
            input_per_1k: 0.01,
            output_per_1k: 0.03,
        };
        let usage = tokens.usage(Some(pricing));
        assert_eq!((usage.input_tokens, usage.output_tokens), (1500, 200));
        let cost = usage.cost_usd.expect("priced");
        assert!((cost - 0.021).abs() < 1e-12, "{cost}");
        assert_eq!(tokens.usage(None).cost_usd, None);
        assert_eq!(Tokens::read(&json!({}), "a", "b"), None);
    }

    #[test]
    fn the_largest_counts_are_priced_without_overflow() {
        let tokens = Tokens::read(
            &json!({"input_tokens": u64::MAX, "output_tokens": u64::MAX}),
            "input_tokens",
            "output_tokens",
        )
        .expect("counts");
        let pricing = Pricing {
            input_per_1k: 1.0,
            output_per_1k: 1.0,
        };
        let usage = tokens.usage(Some(pricing));
        assert_eq!(
            (usage.input_tokens, usage.output_tokens),
            (u64::MAX, u64::MAX)
        );
        let cost = usage.cost_usd.expect("priced");
        assert!(cost.is_finite() && cost > 3.6e16, "{cost}");
        // A count beyond u64 is no count.
        let beyond = json!({"input_tokens": 1e20});
        assert_eq!(Tokens::read(&beyond, "input_tokens", "output_tokens"), None);
    }
}
