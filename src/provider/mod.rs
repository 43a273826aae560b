//! Model providers. For now the scripted mock: PromptKit's mock-responses YAML,
//! answering each call of a scenario by its number.

mod mock;

pub use mock::{MockScript, MockTurn, Rule, ScriptedCall, load_mock};
