//! OpenAI chat completions: the request body, and the answer of a call that was not
//! streamed.

use serde_json::{Map, Value as Json, json};

use super::answer::{Answer, Call, Tokens, args_from_value};
use super::api_error::error_in;
use super::error::AnswerError;
use crate::config::ModelDefaults;
use crate::conversation::ToolChoice;
use crate::provider::ModelCall;

/// The body of a chat completions request.
pub(super) fn request_body(call: &ModelCall<'_>, model: &str, defaults: &ModelDefaults) -> Json {
    let mut messages = Vec::with_capacity(call.messages.len() + 1);
    if !call.system_prompt.is_empty() {
        messages.push(json!({"role": "system", "content": call.system_prompt}));
    }
    messages.extend(call.messages.iter().map(|m| wire_message(&m)));
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("messages".into(), Json::Array(messages));
    if !call.tools.is_empty() {
        body.insert("tools".into(), Json::Array(call.tools.to_vec()));
        // `auto` is the API's own default, and `none` comes with no tools.
        if call.tool_choice == ToolChoice::Required {
            body.insert("tool_choice".into(), json!("required"));
        }
    }
    insert_some(
        &mut body,
        "temperature",
        defaults.temperature.map(Json::from),
    );
    insert_some(&mut body, "top_p", defaults.top_p.map(Json::from));
    insert_some(&mut body, "max_tokens", defaults.max_tokens.map(Json::from));
    if call.stream {
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Json::Object(body)
}

pub(super) fn insert_some(body: &mut Map<String, Json>, key: &str, value: Option<Json>) {
    if let Some(value) = value {
        body.insert(key.into(), value);
    }
}

/// The text of a history message: its `content`, else its text `parts`.
pub(super) fn text_of(message: &Json) -> String {
    if let Some(text) = message["content"].as_str() {
        return text.to_string();
    }
    message["parts"]
        .as_array()
        .map(|parts| parts.iter().filter_map(|p| p["text"].as_str()).collect())
        .unwrap_or_default()
}

/// One history message as the API reads it.
fn wire_message(message: &Json) -> Json {
    let role = message["role"].as_str().unwrap_or("user");
    let text = text_of(message);
    match role {
        "assistant" => {
            let calls: Vec<Json> = message["tool_calls"]
                .as_array()
                .map(|calls| calls.iter().map(wire_tool_call).collect())
                .unwrap_or_default();
            if calls.is_empty() {
                return json!({"role": "assistant", "content": text});
            }
            let content = if text.is_empty() {
                Json::Null
            } else {
                json!(text)
            };
            json!({"role": "assistant", "content": content, "tool_calls": calls})
        }
        "tool" => {
            let result = &message["tool_result"];
            let content = result["content"].as_str().map_or(text, str::to_string);
            json!({"role": "tool", "tool_call_id": result["id"], "content": content})
        }
        _ => json!({"role": role, "content": text}),
    }
}

/// A call from the history (`{"id", "name", "args"}`), its arguments as JSON text.
fn wire_tool_call(call: &Json) -> Json {
    let args = call.get("args").cloned().unwrap_or_else(|| json!({}));
    json!({
        "id": call["id"],
        "type": "function",
        "function": {"name": call["name"], "arguments": args.to_string()},
    })
}

/// The answer in a chat completions response body.
pub(super) fn parse_answer(body: &Json) -> Result<Answer, AnswerError> {
    if let Some(message) = error_in(body) {
        return Err(AnswerError::Api(message));
    }
    let message = &body["choices"][0]["message"];
    if !message.is_object() {
        return Err(AnswerError::NoMessage);
    }
    let calls = match &message["tool_calls"] {
        Json::Array(calls) => calls.iter().map(parse_call).collect::<Result<_, _>>()?,
        _ => Vec::new(),
    };
    Ok(Answer {
        text: content_text(&message["content"]),
        calls,
        tokens: Tokens::read(&body["usage"], "prompt_tokens", "completion_tokens"),
        finding: body["choices"][0]["finish_reason"]
            .as_str()
            .and_then(finding),
    })
}

/// What a `finish_reason` says is wrong with the answer; `None` for a complete one.
pub(super) fn finding(reason: &str) -> Option<String> {
    let what = match reason {
        "length" => "the answer was cut at the token limit",
        "content_filter" => "the answer was cut or withheld by the content filter",
        _ => return None,
    };
    Some(format!("{what} (finish_reason `{reason}`)"))
}

/// `content` as a string, null, or a list of text parts.
fn content_text(content: &Json) -> String {
    match content {
        Json::String(text) => text.clone(),
        Json::Array(parts) => parts
            .iter()
            .filter_map(|p| p.as_str().or_else(|| p["text"].as_str()))
            .collect(),
        _ => String::new(),
    }
}

fn parse_call(call: &Json) -> Result<Call, AnswerError> {
    let function = &call["function"];
    let name = function["name"].as_str().unwrap_or_default();
    if name.is_empty() {
        return Err(AnswerError::UnnamedCall(call.clone()));
    }
    Ok(Call {
        id: call["id"].as_str().unwrap_or_default().to_string(),
        name: name.to_string(),
        args: args_from_value(&function["arguments"]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{History, assistant_message, message, tool_message};

    fn history() -> History {
        let mut history = History::default();
        history.push(message("user", "weather in Paris?"));
        history.push(assistant_message(
            "",
            &[json!({"id": "c1", "name": "weather", "args": {"city": "Paris"}})],
        ));
        history.push(tool_message("c1", "weather", "sunny", None));
        history.push(assistant_message("Sunny.", &[]));
        history
    }

    fn call<'a>(history: &'a History, tools: &'a [Json], stream: bool) -> ModelCall<'a> {
        ModelCall {
            turn: 1,
            round: 2,
            system_prompt: "Be brief.",
            model: "fake-model",
            tool_choice: crate::conversation::ToolChoice::Auto,
            messages: history,
            tools,
            stream,
        }
    }

    #[test]
    fn the_body_carries_history_tools_and_settings() {
        let history = history();
        let tools = [
            json!({"type": "function", "function": {"name": "weather", "description": "d", "parameters": {"type": "object"}}}),
        ];
        let defaults = ModelDefaults {
            temperature: Some(0.5),
            top_p: None,
            max_tokens: Some(100),
        };
        let body = request_body(&call(&history, &tools, true), "gpt-4o-mini", &defaults);
        assert_eq!(
            body,
            json!({
                "model": "gpt-4o-mini",
                "messages": [
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": "weather in Paris?"},
                    {"role": "assistant", "content": null, "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Paris\"}"}}
                    ]},
                    {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
                    {"role": "assistant", "content": "Sunny."},
                ],
                "tools": tools,
                "temperature": 0.5,
                "max_tokens": 100,
                "stream": true,
                "stream_options": {"include_usage": true},
            })
        );
    }

    #[test]
    fn tool_choice_required_is_sent_only_with_tools() {
        let history = History::default();
        let tools = [json!({"type": "function", "function": {"name": "f"}})];
        let defaults = ModelDefaults::default();
        let mut required = call(&history, &tools, false);
        required.tool_choice = ToolChoice::Required;
        let body = request_body(&required, "m", &defaults);
        assert_eq!(body["tool_choice"], json!("required"));
        for (choice, tools) in [
            (ToolChoice::Auto, &tools[..]),
            (ToolChoice::Required, &[][..]),
            (ToolChoice::None, &[][..]),
        ] {
            let mut other = call(&history, tools, false);
            other.tool_choice = choice;
            let body = request_body(&other, "m", &defaults);
            assert_eq!(body.get("tool_choice"), None, "{choice:?}");
        }
    }

    #[test]
    fn a_cut_or_filtered_answer_has_a_finding() {
        let answer = |reason: Json| {
            let body =
                json!({"choices": [{"message": {"content": "Hal"}, "finish_reason": reason}]});
            parse_answer(&body).expect("an answer").finding
        };
        assert_eq!(
            answer(json!("length")).as_deref(),
            Some("the answer was cut at the token limit (finish_reason `length`)")
        );
        assert_eq!(
            answer(json!("content_filter")).as_deref(),
            Some(
                "the answer was cut or withheld by the content filter (finish_reason `content_filter`)"
            )
        );
        for complete in [json!("stop"), json!("tool_calls"), json!(""), Json::Null] {
            assert_eq!(answer(complete.clone()), None, "{complete}");
        }
    }

    #[test]
    fn an_empty_system_prompt_and_no_tools_are_left_out() {
        let history = History::default();
        let mut plain = call(&history, &[], false);
        plain.system_prompt = "";
        let body = request_body(&plain, "m", &ModelDefaults::default());
        assert_eq!(body, json!({"model": "m", "messages": []}));
    }

    #[test]
    fn an_answer_with_text_and_tool_calls() {
        let body = json!({
            "choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_a", "type": "function", "function": {"name": "f", "arguments": "{\"x\":1}"}},
                {"type": "function", "function": {"name": "g", "arguments": {"y": 2}}},
                {"id": "", "function": {"name": "h", "arguments": ""}},
                {"id": "z", "function": {"name": "k", "arguments": "not json"}},
            ]}, "finish_reason": ""}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 3},
        });
        let answer = parse_answer(&body).expect("an answer");
        assert_eq!(answer.text, "");
        let calls: Vec<(&str, &str, Json)> = answer
            .calls
            .iter()
            .map(|c| (c.id.as_str(), c.name.as_str(), c.args.clone()))
            .collect();
        assert_eq!(
            calls,
            [
                ("call_a", "f", json!({"x": 1})),
                ("", "g", json!({"y": 2})),
                ("", "h", json!({})),
                ("z", "k", json!("not json")),
            ]
        );
        assert_eq!(
            answer.tokens,
            Some(Tokens {
                input: 12,
                output: 3
            })
        );
    }

    #[test]
    fn content_as_parts_and_no_usage() {
        let body = json!({"choices": [{"message": {"content": [{"type": "text", "text": "Hel"}, {"type": "text", "text": "lo"}]}}]});
        let answer = parse_answer(&body).expect("an answer");
        assert_eq!((answer.text.as_str(), answer.tokens), ("Hello", None));
    }

    #[test]
    fn error_bodies_and_missing_choices_are_errors() {
        let error = json!({"error": {"message": "model not found"}});
        let said = |body: &Json| parse_answer(body).err().map(|e| e.to_string());
        assert!(matches!(parse_answer(&error), Err(AnswerError::Api(m)) if m == "model not found"));
        assert_eq!(said(&error).as_deref(), Some("model not found"));
        let empty = json!({"choices": []});
        assert!(matches!(parse_answer(&empty), Err(AnswerError::NoMessage)));
        assert_eq!(
            said(&empty).as_deref(),
            Some("the answer has no `choices[0].message`")
        );
    }
}
