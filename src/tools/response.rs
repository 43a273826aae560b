use serde_json::Value as Json;

/// A tool's answer, read by the rules of the exec protocol.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolAnswer {
    Result(Json),
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
        let field = |key: &str| match pending.get(key) {
            Some(Json::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        return ToolAnswer::Pending(Pending {
            reason: field("reason"),
            message: field("message"),
        });
    }
    match object.remove("result") {
        Some(result) => ToolAnswer::Result(result),
        None => ToolAnswer::Result(Json::Object(object)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
