use std::path::PathBuf;

use indexmap::IndexMap;
use serde_json::Value as Json;

use crate::doc::{JsonStringCursor, Pos, locate_in_json_string};
use crate::template::Template;

#[derive(Debug, Clone)]
pub struct Pack {
    pub path: PathBuf,
    /// The file's text, to place template positions in it.
    pub text: String,
    pub id: String,
    pub name: String,
    pub version: String,
    pub description: Option<String>,
    pub prompts: IndexMap<String, Prompt>,
    pub tools: IndexMap<String, ToolDef>,
    pub evals: Vec<EvalDef>,
    pub fragments: IndexMap<String, TemplateText>,
    /// The state machine over the prompts (`workflow`), when the pack has one.
    pub workflow: Option<super::workflow::Workflow>,
}

/// A template and where its string literal stands in the pack file.
#[derive(Debug, Clone)]
pub struct TemplateText {
    pub template: Template,
    pub offset: usize,
    pub pos: Pos,
}

impl TemplateText {
    /// The file position of the template's byte `at`.
    pub fn file_pos(&self, pack_text: &str, at: usize) -> Pos {
        locate_in_json_string(pack_text, self.offset, self.pos, at)
    }

    /// File positions for many template bytes, asked for in increasing order.
    pub fn file_cursor<'t>(&self, pack_text: &'t str) -> JsonStringCursor<'t> {
        JsonStringCursor::new(pack_text, self.offset, self.pos)
    }
}

#[derive(Debug, Clone)]
pub struct Prompt {
    pub id: String,
    pub name: String,
    pub version: String,
    pub description: Option<String>,
    pub system_template: TemplateText,
    pub variables: Vec<Variable>,
    /// Tool names offered to the model, each with where it is written.
    pub tools: Vec<(String, Pos)>,
    pub tool_policy: ToolPolicy,
    pub evals: Vec<EvalDef>,
    /// Guardrails run on user messages before the model sees them, on model
    /// answers, or both (each validator's `direction`).
    pub validators: Vec<Validator>,
    pub pos: Pos,
}

/// A guardrail (`validators[]`): a built-in check run on each user message before
/// the model is called (`direction: input`), on each model answer (`output`, the
/// default) or on both. On an answer it fires on, the answer is enforced (truncated
/// or replaced); on a message, the model is not called and the turn is answered for
/// it.
#[derive(Debug, Clone)]
pub struct Validator {
    /// Its type as written (`banned_words`, `max_length`, ...): what reports and
    /// `guardrail_triggered` name it by.
    pub kind: String,
    /// The built-in check that runs it.
    pub check: String,
    /// The check's own params (the guardrail's `message`, `direction` and score
    /// bounds taken out).
    pub params: Json,
    /// Fires when the score is outside these (default: below 1).
    pub threshold: Threshold,
    /// What replaces an answer it fires on.
    pub message: Option<String>,
    /// A firing also fails the run.
    pub fail_on_violation: bool,
    /// Which side of the model call it judges.
    pub direction: Direction,
    pub pos: Pos,
}

crate::wire_enum! {
    /// Which side of the model call a guardrail judges (`params.direction`).
    #[derive(Default)]
    pub enum Direction {
        Input = "input",
        #[default]
        Output = "output",
        Both = "both",
    }
}

impl Direction {
    /// It judges the user's message before the model call.
    pub fn judges_input(self) -> bool {
        matches!(self, Direction::Input | Direction::Both)
    }

    /// It judges the model's answer.
    pub fn judges_output(self) -> bool {
        matches!(self, Direction::Output | Direction::Both)
    }
}

impl Prompt {
    pub fn variable(&self, name: &str) -> Option<&Variable> {
        self.variables.iter().find(|v| v.name == name)
    }
}

#[derive(Debug, Clone)]
pub struct Variable {
    pub name: String,
    pub var_type: VarType,
    pub required: bool,
    pub default: Option<Json>,
    pub description: Option<String>,
    pub validation: Validation,
    pub pos: Pos,
}

crate::wire_enum! {
    /// A variable's JSON type (`type`).
    pub enum VarType {
        String = "string",
        Number = "number",
        Integer = "integer",
        Boolean = "boolean",
        Object = "object",
        Array = "array",
    }
}

#[derive(Debug, Clone, Default)]
pub struct Validation {
    pub pattern: Option<regex::Regex>,
    pub allowed: Option<Vec<Json>>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
}

use crate::conversation::ToolChoice;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolPolicy {
    pub tool_choice: ToolChoice,
    pub max_rounds: u64,
    pub max_tool_calls_per_turn: u64,
    /// Tool calls in the whole conversation at most (a scenario's policy).
    pub max_total_tool_calls: Option<u64>,
    /// Calls of one tool with the same arguments at most (a scenario's policy).
    pub max_identical_tool_calls: Option<u64>,
    pub blocklist: Vec<String>,
}

impl Default for ToolPolicy {
    fn default() -> Self {
        Self {
            tool_choice: ToolChoice::Auto,
            max_rounds: 5,
            max_tool_calls_per_turn: 10,
            max_total_tool_calls: None,
            max_identical_tool_calls: None,
            blocklist: Vec::new(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct ToolDef {
    pub name: String,
    pub description: String,
    /// A JSON Schema for the arguments, already checked to be valid.
    pub parameters: Json,
    /// A JSON Schema every result must match (`output_schema`, as PromptKit's tool
    /// files have it); `check` holds results to it.
    pub output_schema: Option<Json>,
    pub pos: Pos,
}

#[derive(Debug, Clone)]
pub struct EvalDef {
    pub id: String,
    pub eval_type: String,
    pub trigger: Trigger,
    pub params: Json,
    pub metric: Option<Json>,
    pub threshold: Option<Threshold>,
    pub sample_percentage: f64,
    pub enabled: bool,
    /// Preconditions: when they do not hold, the eval is skipped with the reason.
    pub when: When,
    pub description: Option<String>,
    pub pos: Pos,
    /// Only after this turn (a scenario's turn assertions); `None`: wherever the
    /// trigger says.
    pub turn: Option<u32>,
}

/// An eval's `when`: every condition given must hold for it to run.
#[derive(Debug, Clone, Default)]
pub struct When {
    pub tool_called: Option<String>,
    pub tool_called_pattern: Option<regex::Regex>,
    pub any_tool_called: Option<bool>,
    pub min_tool_calls: Option<u64>,
}

crate::wire_enum! {
    /// When an eval runs (`trigger`).
    pub enum Trigger {
        EveryTurn = "every_turn",
        OnSessionComplete = "on_session_complete",
        SampleTurns = "sample_turns",
        SampleSessions = "sample_sessions",
        OnConversationComplete = "on_conversation_complete",
        OnWorkflowStep = "on_workflow_step",
    }
}

/// Score bounds that make an eval a gate.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Threshold {
    pub min: Option<Bound>,
    pub max: Option<Bound>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    pub value: f64,
    pub inclusive: bool,
}
