use crate::exec::RawJson;
use crate::exec::raw_json::Member;
use serde_json::Value as Json;

/// A tool's answer, read by the rules of the exec protocol: by default as a tree,
/// from [`interpret_raw`] with the result kept as text.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolAnswer<T = Json> {
    Result(T),
    Error(String),
    Pending(Pending),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub reason: String,
    pub message: String,
}

/// `error` wins over `pending`, which wins over `result`; an object with none of the
/// three (or any other JSON value) is the result itself, as older tools answer. An
/// `error` that is null or empty is no error, as PromptKit reads it.
pub fn interpret(value: Json) -> ToolAnswer {
    let Json::Object(mut object) = value else {
        return ToolAnswer::Result(value);
    };
    match object.remove("error") {
        None | Some(Json::Null) => {}
        Some(Json::String(text)) if text.is_empty() => {}
        Some(Json::String(text)) => return ToolAnswer::Error(text),
        Some(other) => return ToolAnswer::Error(other.to_string()),
    }
    if let Some(pending) = object.remove("pending") {
        return ToolAnswer::Pending(pending_of(&pending));
    }
    match object.remove("result") {
        Some(result) => ToolAnswer::Result(result),
        None => ToolAnswer::Result(Json::Object(object)),
    }
}

fn pending_of(pending: &Json) -> Pending {
    let field = |key: &str| match pending.get(key) {
        Some(Json::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    Pending {
        reason: field("reason"),
        message: field("message"),
    }
}

/// [`interpret`] by the same rules, reading only the members it decides on: a
/// result is passed on as the text the tool wrote.
pub fn interpret_raw(answer: RawJson) -> ToolAnswer<RawJson> {
    let Some([error, pending, result]) = answer.members(["error", "pending", "result"]) else {
        return ToolAnswer::Result(answer);
    };
    let tree = |member: &Member| serde_json::from_str(answer.member(member)).unwrap_or(Json::Null);
    let is_error = |e: &Member| !matches!(answer.member(e), "null" | r#""""#);
    if let Some(error) = error.as_ref().filter(|e| is_error(e)) {
        return match tree(error) {
            Json::String(text) => ToolAnswer::Error(text),
            other => ToolAnswer::Error(other.to_string()),
        };
    }
    if let Some(pending) = pending {
        return ToolAnswer::Pending(pending_of(&tree(&pending)));
    }
    match (result, error) {
        (Some(result), _) => ToolAnswer::Result(answer.into_member(result)),
        (None, None) => ToolAnswer::Result(answer),
        // The object is the result, without the empty `error` member.
        (None, Some(_)) => match interpret(answer.to_value()) {
            ToolAnswer::Result(value) => ToolAnswer::Result(RawJson::from(&value)),
            ToolAnswer::Error(text) => ToolAnswer::Error(text),
            ToolAnswer::Pending(pending) => ToolAnswer::Pending(pending),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `interpret_raw` reads `answer` as `interpret` does.
    fn agree(answer: Json) {
        let tree = interpret(answer.clone());
        let raw = match interpret_raw(RawJson::from(&answer)) {
            ToolAnswer::Result(raw) => ToolAnswer::Result(raw.to_value()),
            ToolAnswer::Error(text) => ToolAnswer::Error(text),
            ToolAnswer::Pending(pending) => ToolAnswer::Pending(pending),
        };
        assert_eq!(raw, tree, "{answer}");
    }

    #[test]
    fn raw_answers_are_read_by_the_same_rules() {
        for answer in [
            json!({"result": {"t": 1}}),
            json!({"error": "no city"}),
            json!({"error": {"code": 3}}),
            json!({"pending": {"reason": "requires_approval", "message": 7}}),
            json!({"result": 1, "error": "but no"}),
            json!({"result": {"t": 1}, "error": null}),
            json!({"result": {"t": 1}, "error": ""}),
            json!({"temp": 22, "error": null}),
            json!({"temp": 22}),
            json!([1, 2]),
            json!("text"),
            json!({"result": null}),
        ] {
            agree(answer);
        }
    }

    #[test]
    fn reads_each_answer_form() {
        assert_eq!(
            interpret(json!({"result": {"t": 1}})),
            ToolAnswer::Result(json!({"t": 1}))
        );
        assert_eq!(
            interpret(json!({"error": "no city"})),
            ToolAnswer::Error("no city".into())
        );
        assert_eq!(
            interpret(json!({"pending": {"reason": "requires_approval", "message": "ask"}})),
            ToolAnswer::Pending(Pending {
                reason: "requires_approval".into(),
                message: "ask".into()
            })
        );
    }

    #[test]
    fn error_wins_over_result() {
        assert_eq!(
            interpret(json!({"result": 1, "error": "but no"})),
            ToolAnswer::Error("but no".into())
        );
    }

    #[test]
    fn a_null_or_empty_error_is_no_error() {
        for answer in [
            json!({"result": {"t": 1}, "error": null}),
            json!({"result": {"t": 1}, "error": ""}),
        ] {
            assert_eq!(interpret(answer), ToolAnswer::Result(json!({"t": 1})));
        }
        assert_eq!(
            interpret(json!({"temp": 22, "error": null})),
            ToolAnswer::Result(json!({"temp": 22}))
        );
    }

    #[test]
    fn anything_else_is_the_result_itself() {
        assert_eq!(
            interpret(json!({"temp": 22})),
            ToolAnswer::Result(json!({"temp": 22}))
        );
        assert_eq!(interpret(json!([1, 2])), ToolAnswer::Result(json!([1, 2])));
        assert_eq!(
            interpret(json!({"result": null})),
            ToolAnswer::Result(Json::Null)
        );
    }
}
