//! The next user message of a self-play turn: what the persona's model is shown
//! (the conversation with the roles swapped, tool traffic left out) and its answer.

use serde_json::Value as Json;

use crate::conversation::{History, ToolChoice, message};
use crate::provider::{ModelCall, ModelError, SetupError};

use super::{Speaker, Voice};

/// A user message the persona wrote, and what wrote it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Spoken {
    pub text: String,
    /// Which rule of the mock, or which provider, in words.
    pub answered_by: String,
}

/// Why the persona could not speak.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SpeakError {
    #[error("self-play role `{role}`: {source}")]
    Setup {
        role: String,
        #[source]
        source: SetupError,
    },
    #[error("self-play role `{role}`: {source}")]
    Model {
        role: String,
        #[source]
        source: ModelError,
    },
    #[error("self-play role `{role}` (persona `{persona}`) wrote an empty message")]
    Empty { role: String, persona: String },
}

impl Speaker {
    /// The next user message, after `history` (the conversation so far). `turn`: the
    /// number of the user turn it opens.
    pub(crate) async fn speak(&self, history: &History, turn: u32) -> Result<Spoken, SpeakError> {
        let seen = persona_view(history);
        let spoken = match &self.role_plan.voice {
            Voice::Mock(script) => {
                // PromptArena numbers the persona's message by the messages it sees as
                // the other side's (the target's answers, once swapped), plus one.
                let number = seen.iter().filter(|m| m["role"] == "user").count() as u64 + 1;
                let (text, answered_by) = script.answer(&self.persona.id, &self.scenario, number);
                Spoken { text, answered_by }
            }
            Voice::Model(plan) => {
                let setup = |source| SpeakError::Setup {
                    role: self.role.clone(),
                    source,
                };
                let model_name = plan.hook_names.1.clone();
                let mut provider = (**plan).clone().provider().map_err(setup)?;
                let mut messages = History::default();
                for m in seen {
                    messages.push(m);
                }
                let call = ModelCall {
                    turn,
                    round: 1,
                    system_prompt: &self.persona.system_prompt,
                    model: &model_name,
                    tool_choice: ToolChoice::None,
                    messages: &messages,
                    tools: &[],
                    stream: false,
                };
                let completion =
                    provider
                        .complete(call)
                        .await
                        .map_err(|source| SpeakError::Model {
                            role: self.role.clone(),
                            source,
                        })?;
                Spoken {
                    text: completion.message.content,
                    answered_by: format!(
                        "{} (self-play role `{}`)",
                        completion.answered_by, self.role
                    ),
                }
            }
        };
        if spoken.text.trim().is_empty() {
            return Err(SpeakError::Empty {
                role: self.role.clone(),
                persona: self.persona.id.clone(),
            });
        }
        Ok(spoken)
    }
}

/// The conversation as the persona's model sees it: system and tool messages left
/// out, tool calls stripped, messages with no text dropped, and `user` and
/// `assistant` swapped, so that the persona's own earlier messages are its answers.
pub(crate) fn persona_view(history: &History) -> Vec<Json> {
    history
        .iter()
        .filter_map(|m| {
            let role = match m["role"].as_str()? {
                "user" => "assistant",
                "assistant" => "user",
                _ => return None,
            };
            let text = m["content"].as_str().unwrap_or_default();
            (!text.is_empty()).then(|| message(role, text))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{assistant_message, tool_message};
    use serde_json::json;

    #[test]
    fn the_persona_sees_the_talk_swapped_without_tool_traffic() {
        let mut history = History::default();
        history.push(message("system", "be helpful"));
        history.push(message("user", "hi"));
        history.push(assistant_message(
            "",
            &[json!({"id": "c1", "name": "t", "args": {}})],
        ));
        history.push(tool_message("c1", "t", "{}", None));
        history.push(assistant_message("hello there", &[]));
        let seen = persona_view(&history);
        assert_eq!(
            seen,
            [message("assistant", "hi"), message("user", "hello there")]
        );
    }
}
