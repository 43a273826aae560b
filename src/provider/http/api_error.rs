//! The error message an API puts in its body, in either API's shape.

use serde_json::Value as Json;

/// How much of a server's error text a message quotes.
const QUOTED: usize = 300;

/// The message of an error body: `{"error": {"message"}}`, `{"error": "text"}` (some
/// compatible servers), or `{"type": "error", ...}`; `None` for a body that is not one.
pub(super) fn error_in(body: &Json) -> Option<String> {
    let error = body.get("error");
    let is_error = error.is_some_and(|e| !e.is_null()) || body["type"] == "error";
    if !is_error {
        return None;
    }
    let text = match error {
        Some(Json::String(text)) => text.clone(),
        Some(Json::Object(fields)) => match fields.get("message").and_then(Json::as_str) {
            Some(message) => message.to_string(),
            None => Json::Object(fields.clone()).to_string(),
        },
        _ => body.to_string(),
    };
    Some(quote(&text))
}

/// What an unsuccessful response's body says: its API error message, else its text.
pub(super) fn body_message(body: &[u8]) -> String {
    match serde_json::from_slice::<Json>(body) {
        Ok(json) => error_in(&json).unwrap_or_else(|| quote(&json.to_string())),
        Err(_) => quote(String::from_utf8_lossy(body).trim()),
    }
}

/// `text` cut to a readable length.
pub(super) fn quote(text: &str) -> String {
    match text.char_indices().nth(QUOTED) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn error_bodies_of_each_shape() {
        let openai =
            json!({"error": {"message": "Invalid model", "type": "invalid_request_error"}});
        assert_eq!(error_in(&openai).as_deref(), Some("Invalid model"));
        let ollama = json!({"error": "model \"x\" not found"});
        assert_eq!(error_in(&ollama).as_deref(), Some("model \"x\" not found"));
        let claude = json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
        assert_eq!(error_in(&claude).as_deref(), Some("Overloaded"));
        assert_eq!(error_in(&json!({"choices": [], "error": null})), None);
    }

    #[test]
    fn long_or_plain_bodies_are_quoted_short() {
        assert_eq!(body_message(b"  Bad Gateway\n"), "Bad Gateway");
        let long = "é".repeat(400);
        let quoted = body_message(long.as_bytes());
        assert_eq!(quoted.chars().count(), 301);
        assert!(quoted.ends_with('…'));
    }
}
