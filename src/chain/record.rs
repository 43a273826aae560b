//! What a chain run did, step by step: the JSON report's shape and its human text.

use serde::Serialize;
use serde_json::Value as Json;

use crate::dotprompt::Message;

/// How a chain run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Outcome {
    /// A step went to `end`.
    Done,
    /// `max_steps` steps were played and the chain went on.
    StepLimit,
    /// No branch of a step held.
    NoBranch,
    /// A step could not run: a reference without a value, a slot refused a value, a
    /// check could not judge an output.
    Failed,
    /// The provider gave no answer.
    ProviderFailed,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct ChainRecord {
    pub chain: String,
    pub file: String,
    pub outcome: Outcome,
    pub max_steps: u64,
    pub steps: Vec<StepRecord>,
    /// The last step's output, when the chain is done.
    pub output: Option<String>,
    /// Why the chain stopped short of `end`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct StepRecord {
    pub id: String,
    pub prompt: PromptUsed,
    /// The values the slots got.
    pub inputs: Json,
    /// The messages the model was shown.
    pub rendered: Vec<Message>,
    pub output: String,
    /// Which rule of the mock, which recording or which API answered.
    pub answered_by: String,
    /// Where the chain went next; `None` when it stopped at this step.
    pub branch: Option<Branch>,
    pub duration_ms: u64,
    /// The slot values as the audit log keeps them (sensitive ones redacted).
    #[serde(skip)]
    pub audited: Json,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct PromptUsed {
    pub id: String,
    pub version: u64,
    pub content_hash: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Branch {
    /// The step gone to, or `end`.
    pub goto: String,
    /// Which branch of `next` (from 0); `None` when the step has no list of branches.
    pub index: Option<usize>,
    /// Why, in words.
    pub reason: String,
}

impl Outcome {
    fn words(self) -> &'static str {
        match self {
            Outcome::Done => "done",
            Outcome::StepLimit => "stopped at the step limit",
            Outcome::NoBranch => "stopped: no branch held",
            Outcome::Failed => "failed",
            Outcome::ProviderFailed => "failed: the provider gave no answer",
        }
    }
}

/// The human report: each step's prompt, output and branch, then how it ended.
pub(crate) fn human(record: &ChainRecord) -> String {
    let mut out = String::new();
    for (n, step) in record.steps.iter().enumerate() {
        out.push_str(&format!(
            "step {} `{}`: prompt {} v{}\n",
            n + 1,
            step.id,
            step.prompt.id,
            step.prompt.version
        ));
        for message in &step.rendered {
            out.push_str(&format!("  {}:\n", message.role));
            out.push_str(&indent(&message.text));
        }
        out.push_str("  output:\n");
        out.push_str(&indent(&step.output));
        if let Some(branch) = &step.branch {
            out.push_str(&format!("  next: {} ({})\n", branch.goto, branch.reason));
        }
    }
    let steps = match record.steps.len() {
        1 => "1 step".to_string(),
        n => format!("{n} steps"),
    };
    out.push_str(&format!(
        "chain `{}`: {} after {steps}\n",
        record.chain,
        record.outcome.words()
    ));
    if let Some(error) = &record.error {
        out.push_str(&format!("  {error}\n"));
    }
    out
}

fn indent(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        out.push_str("    ");
        out.push_str(line);
        out.push('\n');
    }
    if text.is_empty() {
        out.push_str("    (empty)\n");
    }
    out
}
