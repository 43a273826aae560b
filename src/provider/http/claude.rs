//! Anthropic's Messages API: the request body, and the answer of a call that was not
//! streamed.

use serde_json::{Map, Value as Json, json};

use super::answer::{Answer, Call, Tokens, args_from_value};
use super::api_error::error_in;
use super::error::AnswerError;
use super::openai::{insert_some, text_of};
use crate::config::ModelDefaults;
use crate::conversation::ToolChoice;
use crate::provider::ModelCall;

/// `max_tokens` is required by this API; this is sent when the config sets none.
const DEFAULT_MAX_TOKENS: u64 = 4096;

/// The body of a Messages request.
pub(super) fn request_body(call: &ModelCall<'_>, model: &str, defaults: &ModelDefaults) -> Json {
    let mut system = call.system_prompt.to_string();
    let mut messages: Vec<(&'static str, Vec<Json>)> = Vec::new();
    for message in call.messages.iter() {
        let (role, blocks) = match message["role"].as_str().unwrap_or("user") {
            // The API has no system role in its messages; such text joins the prompt.
            "system" => {
                let text = text_of(&message);
                if !text.is_empty() {
                    if !system.is_empty() {
                        system.push_str("\n\n");
                    }
                    system.push_str(&text);
                }
                continue;
            }
            "assistant" => ("assistant", assistant_blocks(&message)),
            "tool" => ("user", vec![tool_result_block(&message)]),
            _ => ("user", text_block(&text_of(&message)).into_iter().collect()),
        };
        // Roles must alternate: a message of the same role as the last joins it.
        match messages.last_mut() {
            _ if blocks.is_empty() => {}
            Some((last, content)) if *last == role => content.extend(blocks),
            _ => messages.push((role, blocks)),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    let max_tokens = defaults.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    body.insert("max_tokens".into(), json!(max_tokens));
    if !system.is_empty() {
        body.insert("system".into(), json!(system));
    }
    let messages = messages
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}));
    body.insert("messages".into(), messages.collect());
    if !call.tools.is_empty() {
        body.insert("tools".into(), call.tools.iter().map(wire_tool).collect());
        // `auto` is the API's own default, and `none` comes with no tools.
        if call.tool_choice == ToolChoice::Required {
            body.insert("tool_choice".into(), json!({"type": "any"}));
        }
    }
    insert_some(
        &mut body,
        "temperature",
        defaults.temperature.map(Json::from),
    );
    insert_some(&mut body, "top_p", defaults.top_p.map(Json::from));
    if call.stream {
        body.insert("stream".into(), json!(true));
    }
    Json::Object(body)
}

/// The API refuses empty text blocks, so empty text gives none.
fn text_block(text: &str) -> Option<Json> {
    (!text.is_empty()).then(|| json!({"type": "text", "text": text}))
}

fn assistant_blocks(message: &Json) -> Vec<Json> {
    let mut blocks: Vec<Json> = text_block(&text_of(message)).into_iter().collect();
    for call in message["tool_calls"].as_array().into_iter().flatten() {
        // `input` must be an object; arguments that were not one were refused by the
        // session, whose tool result says so.
        let input = match &call["args"] {
            args @ Json::Object(_) => args.clone(),
            _ => json!({}),
        };
        blocks.push(
            json!({"type": "tool_use", "id": call["id"], "name": call["name"], "input": input}),
        );
    }
    blocks
}

fn tool_result_block(message: &Json) -> Json {
    let result = &message["tool_result"];
    let content = result["content"]
        .as_str()
        .map_or_else(|| text_of(message), str::to_string);
    let mut block = json!({"type": "tool_result", "tool_use_id": result["id"], "content": content});
    if result["error"].is_string() {
        block["is_error"] = json!(true);
    }
    block
}

/// `{"type": "function", "function": {name, description, parameters}}` as this API
/// lists a tool.
fn wire_tool(tool: &Json) -> Json {
    let function = &tool["function"];
    let mut wire = json!({"name": function["name"]});
    if let Some(description) = function.get("description").filter(|d| !d.is_null()) {
        wire["description"] = description.clone();
    }
    wire["input_schema"] = match function.get("parameters") {
        Some(schema @ Json::Object(_)) => schema.clone(),
        _ => json!({"type": "object", "properties": {}}),
    };
    wire
}

/// The answer in a Messages response body.
pub(super) fn parse_answer(body: &Json) -> Result<Answer, AnswerError> {
    if let Some(message) = error_in(body) {
        return Err(AnswerError::Api(message));
    }
    let Some(blocks) = body["content"].as_array() else {
        return Err(AnswerError::NoContent);
    };
    let mut answer = Answer {
        tokens: Tokens::read(&body["usage"], "input_tokens", "output_tokens"),
        finding: body["stop_reason"].as_str().and_then(finding),
        ..Answer::default()
    };
    for block in blocks {
        match block["type"].as_str() {
            Some("text") => answer
                .text
                .push_str(block["text"].as_str().unwrap_or_default()),
            Some("tool_use") => answer.calls.push(tool_use(block)?),
            // Thinking and other blocks are not part of the reply.
            _ => {}
        }
    }
    Ok(answer)
}

/// What a `stop_reason` says is wrong with the answer; `None` for a complete one.
pub(super) fn finding(reason: &str) -> Option<String> {
    let what = match reason {
        "max_tokens" => "the answer was cut at the token limit",
        "refusal" => "the answer was stopped by the model's safety refusal",
        _ => return None,
    };
    Some(format!("{what} (stop_reason `{reason}`)"))
}

fn tool_use(block: &Json) -> Result<Call, AnswerError> {
    let name = block["name"].as_str().unwrap_or_default();
    if name.is_empty() {
        return Err(AnswerError::UnnamedToolUse(block.clone()));
    }
    Ok(Call {
        id: block["id"].as_str().unwrap_or_default().to_string(),
        name: name.to_string(),
        args: args_from_value(&block["input"]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{History, assistant_message, message, tool_message};

    #[test]
    fn the_body_merges_roles_and_carries_tool_results() {
        let mut history = History::default();
        history.push(message("user", "Check both."));
        history.push(message("system", "Reply in French."));
        history.push(assistant_message(
            "Checking.",
            &[
                json!({"id": "t1", "name": "a", "args": {"k": 1}}),
                json!({"id": "t2", "name": "b", "args": "not json"}),
            ],
        ));
        history.push(tool_message("t1", "a", "one", None));
        history.push(tool_message(
            "t2",
            "b",
            "bad arguments",
            Some("bad arguments"),
        ));
        history.push(message("user", "And?"));
        history.push(message("user", ""));
        let tools = [
            json!({"type": "function", "function": {"name": "a", "description": "A", "parameters": {"type": "object", "properties": {"k": {}}}}}),
            json!({"type": "function", "function": {"name": "b"}}),
        ];
        let call = ModelCall {
            turn: 1,
            round: 2,
            system_prompt: "Be brief.",
            model: "fake-model",
            tool_choice: crate::conversation::ToolChoice::Auto,
            messages: &history,
            tools: &tools,
            stream: true,
        };
        let defaults = ModelDefaults {
            temperature: None,
            top_p: Some(0.9),
            max_tokens: None,
        };
        let body = request_body(&call, "claude-x", &defaults);
        assert_eq!(
            body,
            json!({
                "model": "claude-x",
                "max_tokens": 4096,
                "system": "Be brief.\n\nReply in French.",
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "Check both."}]},
                    {"role": "assistant", "content": [
                        {"type": "text", "text": "Checking."},
                        {"type": "tool_use", "id": "t1", "name": "a", "input": {"k": 1}},
                        {"type": "tool_use", "id": "t2", "name": "b", "input": {}},
                    ]},
                    {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "t1", "content": "one"},
                        {"type": "tool_result", "tool_use_id": "t2", "content": "bad arguments", "is_error": true},
                        {"type": "text", "text": "And?"},
                    ]},
                ],
                "tools": [
                    {"name": "a", "description": "A", "input_schema": {"type": "object", "properties": {"k": {}}}},
                    {"name": "b", "input_schema": {"type": "object", "properties": {}}},
                ],
                "top_p": 0.9,
                "stream": true,
            })
        );
    }

    #[test]
    fn an_answer_with_text_and_tool_use() {
        let body = json!({
            "type": "message",
            "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"q": "rust"}},
                {"type": "tool_use", "name": "other", "input": {}},
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 30, "output_tokens": 9},
        });
        let answer = parse_answer(&body).expect("an answer");
        assert_eq!(answer.text, "Let me look.");
        assert_eq!(
            answer.calls[0],
            Call {
                id: "toolu_1".into(),
                name: "search".into(),
                args: json!({"q": "rust"})
            }
        );
        assert_eq!(answer.calls[1].id, "");
        assert_eq!(
            answer.tokens,
            Some(Tokens {
                input: 30,
                output: 9
            })
        );
    }

    #[test]
    fn tool_choice_required_is_any_tool() {
        let history = History::default();
        let tools = [json!({"type": "function", "function": {"name": "f"}})];
        let call = |tool_choice, tools| ModelCall {
            turn: 1,
            round: 1,
            system_prompt: "",
            model: "claude-x",
            tool_choice,
            messages: &history,
            tools,
            stream: false,
        };
        let defaults = ModelDefaults::default();
        let body = request_body(&call(ToolChoice::Required, &tools[..]), "c", &defaults);
        assert_eq!(body["tool_choice"], json!({"type": "any"}));
        for (choice, tools) in [
            (ToolChoice::Auto, &tools[..]),
            (ToolChoice::Required, &[][..]),
            (ToolChoice::None, &[][..]),
        ] {
            let body = request_body(&call(choice, tools), "c", &defaults);
            assert_eq!(body.get("tool_choice"), None, "{choice:?}");
        }
    }

    #[test]
    fn a_cut_or_refused_answer_has_a_finding() {
        let answer = |reason: Json| {
            let body = json!({"content": [{"type": "text", "text": "Hal"}], "stop_reason": reason});
            parse_answer(&body).expect("an answer").finding
        };
        assert_eq!(
            answer(json!("max_tokens")).as_deref(),
            Some("the answer was cut at the token limit (stop_reason `max_tokens`)")
        );
        assert_eq!(
            answer(json!("refusal")).as_deref(),
            Some("the answer was stopped by the model's safety refusal (stop_reason `refusal`)")
        );
        for complete in [
            json!("end_turn"),
            json!("tool_use"),
            json!("stop_sequence"),
            Json::Null,
        ] {
            assert_eq!(answer(complete.clone()), None, "{complete}");
        }
    }

    #[test]
    fn an_error_body_is_an_error() {
        let body = json!({"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: too large"}});
        assert!(
            matches!(parse_answer(&body), Err(AnswerError::Api(m)) if m == "max_tokens: too large")
        );
        assert_eq!(
            parse_answer(&body).err().map(|e| e.to_string()).as_deref(),
            Some("max_tokens: too large")
        );
    }
}
