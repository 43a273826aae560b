//! Model providers. For now the scripted mock: PromptKit's mock-responses YAML,
//! answering each call of a scenario by its number.

mod mock;
mod scripted;

pub use mock::{MockScript, MockTurn, Rule, Scenario, ScriptedCall, load_mock};
pub use scripted::{AssistantMessage, ScriptedProvider, ToolCall};
