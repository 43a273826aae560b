//! What the judge is asked: the content its type shows it (the answer, the
//! conversation, the tool calls, or the answer beside retrieved chunks), under a
//! system prompt, with the criteria and rubric, built as PromptKit builds it.

use std::fmt::Write as _;

use serde_json::Value as Json;

use crate::conversation::{EvalInput, ToolCallRecord};

use super::JudgeKind;
use super::prompts::GENERAL;
use super::spec::{Contexts, JudgeSpec};

/// One judge call: a system prompt and a single user message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JudgeRequest {
    pub system: String,
    pub user: String,
    /// `llm_judge_tool_calls`: how many calls were shown.
    pub tool_calls_sent: Option<usize>,
}

/// What the spec makes of one input.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Asked {
    /// The judge is to be called with this.
    Call(JudgeRequest),
    /// There is nothing to judge (no tool call of those named); the eval is skipped.
    Nothing(String),
}

/// Why the input cannot be judged at all.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum Unjudgeable {
    #[error(
        "no retrieved chunks to judge: give `contexts` (a list), `context` (a text) or `context_field` (a key of the metadata)"
    )]
    Chunks,
    #[error("the metadata has no chunks under `{0}` (`context_field`)")]
    ChunkField(String),
    #[error("no question to judge against: give `question`, or play a user turn first")]
    Question,
    #[error("no ground-truth answer: give `reference` (or `expected_output`)")]
    Reference,
}

impl JudgeSpec {
    /// The judge call for `input`.
    pub(crate) fn ask(&self, input: &EvalInput) -> Result<Asked, Unjudgeable> {
        let mut tool_calls_sent = None;
        let content = match self.kind {
            JudgeKind::Answer | JudgeKind::Bias | JudgeKind::Toxicity => input.content.clone(),
            JudgeKind::Session => transcript(input),
            JudgeKind::ToolCalls => {
                let calls: Vec<(usize, &ToolCallRecord)> = input
                    .tool_calls
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| self.tools.is_empty() || self.tools.contains(&c.name))
                    .collect();
                if calls.is_empty() {
                    return Ok(Asked::Nothing(
                        "skipped: no matching tool calls to judge".into(),
                    ));
                }
                tool_calls_sent = Some(calls.len());
                tool_call_text(&calls)
            }
            JudgeKind::Faithfulness | JudgeKind::Hallucination => {
                let chunks = self.chunks(input)?;
                format!(
                    "CONTEXT:\n{}\n\nANSWER:\n{}",
                    numbered(&chunks),
                    input.content
                )
            }
            JudgeKind::AnswerRelevancy => {
                let question = self.question(input)?;
                format!("QUESTION:\n{question}\n\nANSWER:\n{}", input.content)
            }
            JudgeKind::ContextualPrecision | JudgeKind::ContextualRelevancy => {
                let chunks = self.chunks(input)?;
                let question = self.question(input)?;
                format!(
                    "QUESTION:\n{question}\n\nRETRIEVED CHUNKS:\n{}",
                    numbered(&chunks)
                )
            }
            JudgeKind::ContextualRecall => {
                let chunks = self.chunks(input)?;
                let reference = self.reference.as_deref().ok_or(Unjudgeable::Reference)?;
                format!(
                    "REFERENCE ANSWER:\n{reference}\n\nRETRIEVED CHUNKS:\n{}",
                    numbered(&chunks)
                )
            }
        };
        let (default_system, default_criteria) = self.kind.defaults().unwrap_or((GENERAL, ""));
        let system = self.system_prompt.as_deref().unwrap_or(default_system);
        let criteria = self.criteria.as_deref().unwrap_or(default_criteria);
        let mut user = format!("Content to evaluate:\n{content}\n\nCriteria: {criteria}");
        if let Some(rubric) = self.rubric.as_deref().filter(|r| !r.is_empty()) {
            let _ = write!(user, "\n\nRubric: {rubric}");
        }
        Ok(Asked::Call(JudgeRequest {
            system: system.to_string(),
            user,
            tool_calls_sent,
        }))
    }

    /// The retrieved chunks: given in the params, or read from the metadata.
    fn chunks(&self, input: &EvalInput) -> Result<Vec<String>, Unjudgeable> {
        match &self.contexts {
            Contexts::Given(list) => Ok(list.clone()),
            Contexts::None => Err(Unjudgeable::Chunks),
            Contexts::Field(field) => {
                let chunks: Vec<String> = match input.metadata.get(field) {
                    Some(Json::String(one)) if !one.is_empty() => vec![one.clone()],
                    Some(Json::Array(items)) => items
                        .iter()
                        .filter_map(|i| i.as_str().map(str::to_string))
                        .collect(),
                    _ => Vec::new(),
                };
                if chunks.is_empty() {
                    return Err(Unjudgeable::ChunkField(field.clone()));
                }
                Ok(chunks)
            }
        }
    }

    /// The question: given in the params, else the last user message.
    fn question(&self, input: &EvalInput) -> Result<String, Unjudgeable> {
        if let Some(question) = &self.question {
            return Ok(question.clone());
        }
        input
            .messages
            .iter()
            .rev()
            .find(|m| role(m).eq_ignore_ascii_case("user"))
            .map(|m| text(&m))
            .filter(|q| !q.is_empty())
            .ok_or(Unjudgeable::Question)
    }
}

/// Chunks numbered from 1, one a line; `(none)` when there are none.
fn numbered(chunks: &[String]) -> String {
    if chunks.is_empty() {
        return "(none)".into();
    }
    let lines: Vec<String> = chunks
        .iter()
        .enumerate()
        .map(|(i, c)| format!("[chunk {}] {c}", i + 1))
        .collect();
    lines.join("\n")
}

fn role(message: &Json) -> &str {
    message["role"].as_str().unwrap_or_default().trim()
}

/// A message's text: its `content` string, or the text of its parts.
fn text(message: &Json) -> String {
    match &message["content"] {
        Json::String(text) => text.trim().to_string(),
        Json::Array(parts) => {
            let texts: Vec<&str> = parts.iter().filter_map(|p| p["text"].as_str()).collect();
            texts.join("\n").trim().to_string()
        }
        _ => String::new(),
    }
}

/// The conversation as the session judge reads it: one `Role: text` line a
/// message (system and tool messages, and empty ones, left out), then the tool
/// calls with their arguments and results.
fn transcript(input: &EvalInput) -> String {
    let mut out = String::new();
    for message in input.messages.iter() {
        let role = role(&message);
        if role.eq_ignore_ascii_case("system") || role.eq_ignore_ascii_case("tool") {
            continue;
        }
        let content = text(&message);
        if content.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = write!(out, "{}: {content}", title(role));
    }
    if !input.tool_calls.is_empty() {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str("Tool calls (name, arguments, result):\n");
        let calls: Vec<(usize, &ToolCallRecord)> = input.tool_calls.iter().enumerate().collect();
        out.push_str(&tool_call_text(&calls));
    }
    out
}

/// `user` as `User`; a role nobody expects is kept as it is written, capitalised.
fn title(role: &str) -> String {
    let mut chars = role.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => "Unknown".into(),
    }
}

/// Each call (with its index in the turn's calls) as a block of lines.
fn tool_call_text(calls: &[(usize, &ToolCallRecord)]) -> String {
    let mut out = String::new();
    for (n, (index, call)) in calls.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let none = || "(none)".to_string();
        let _ = writeln!(out, "TOOL CALL {} (index {index}):", n + 1);
        let _ = writeln!(out, "  Tool: {}", call.name);
        let _ = writeln!(out, "  Arguments: {}", call.args);
        let _ = writeln!(
            out,
            "  Result: {}",
            call.result
                .clone()
                .filter(|r| !r.is_empty())
                .unwrap_or_else(none)
        );
        let _ = writeln!(
            out,
            "  Error: {}",
            call.error
                .clone()
                .filter(|e| !e.is_empty())
                .unwrap_or_else(none)
        );
    }
    out
}
