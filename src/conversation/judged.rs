//! What an eval judges: the answer, the conversation around it, the tool calls
//! and hook decisions of the turn. Transcripts keep it, so evals run again later.

use serde::{Deserialize, Serialize};
use serde_json::{Value as Json, json};

use super::{History, WorkflowRecord};

/// A tool call as evals see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRecord {
    pub name: String,
    #[serde(default)]
    pub args: Json,
    /// The result as the model saw it: text (JSON given here is read as its text).
    #[serde(default, deserialize_with = "as_text")]
    pub result: Option<String>,
    #[serde(default, deserialize_with = "as_text")]
    pub error: Option<String>,
    /// Content parts the tool returned beside the result (`type`, `text`, `media`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Json>,
}

fn as_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Json::deserialize(d)? {
        Json::Null => None,
        Json::String(s) => Some(s),
        other => Some(other.to_string()),
    })
}

/// A hook's part in the judged turn (or session): consulted at `phase`, and what
/// it did when it changed what happened next (`action`; `None`: it let things be).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookRecord {
    pub hook: String,
    pub phase: String,
    #[serde(default)]
    pub action: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
}

/// What an eval judges: the assistant's output and the conversation around it.
/// Transcripts keep it whole, so evals can be run again over a recorded run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EvalInput {
    pub content: String,
    pub messages: History,
    pub turn_index: u32,
    /// The calls of the judged turn (of the whole session for session-level evals).
    pub tool_calls: Vec<ToolCallRecord>,
    /// The hooks consulted and what they did, for `hook_decision`; exec evals are
    /// not sent it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<HookRecord>,
    /// The guardrails that fired, by type, for `guardrail_triggered`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub guardrails: Vec<String>,
    pub variables: Json,
    pub metadata: Json,
    /// The workflow's states and transitions so far, when one is played.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workflow: Option<WorkflowRecord>,
}

/// An empty context is empty objects and lists, never `null`: evals index into it.
impl Default for EvalInput {
    fn default() -> Self {
        Self {
            content: String::new(),
            messages: History::default(),
            turn_index: 0,
            tool_calls: Vec::new(),
            hooks: Vec::new(),
            guardrails: Vec::new(),
            variables: json!({}),
            metadata: json!({}),
            workflow: None,
        }
    }
}

impl EvalInput {
    /// The `context` object of the exec eval request; a `null` given for an object
    /// goes out as `{}`.
    pub fn context(&self) -> Json {
        let object = |value: &Json| match value {
            Json::Null => json!({}),
            other => other.clone(),
        };
        let mut context = json!({
            "messages": self.messages,
            "turn_index": self.turn_index,
            "tool_calls": self.tool_calls,
            "variables": object(&self.variables),
            "metadata": object(&self.metadata),
        });
        if let Some(workflow) = &self.workflow {
            context["workflow"] = json!(workflow);
        }
        context
    }
}
