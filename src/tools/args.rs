use serde_json::Value as Json;

/// One way the arguments break the tool's schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgsError {
    /// JSON pointer into the arguments, `""` for the whole object.
    pub pointer: String,
    pub message: String,
}

impl std::fmt::Display for ArgsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(f, "{at}: {}", self.message)
    }
}

/// Why a tool's argument schema cannot check arguments.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    #[error("the tool's schema is invalid: {0}")]
    Invalid(#[source] Box<jsonschema::ValidationError<'static>>),
}

/// A tool's argument schema, compiled once for however many calls it checks.
pub struct ArgsSchema(Result<jsonschema::Validator, SchemaError>);

impl ArgsSchema {
    /// The schema was checked when the pack was loaded, and remote `$ref`s are
    /// never fetched.
    pub fn new(schema: &Json) -> Self {
        Self(jsonschema::validator_for(schema).map_err(|err| SchemaError::Invalid(Box::new(err))))
    }

    /// Every violation of the schema by `args`.
    pub fn check(&self, args: &Json) -> Vec<ArgsError> {
        match &self.0 {
            Ok(validator) => validator
                .iter_errors(args)
                .map(|err| ArgsError {
                    pointer: err.instance_path().to_string(),
                    message: err.to_string(),
                })
                .collect(),
            Err(error) => vec![ArgsError {
                pointer: String::new(),
                message: error.to_string(),
            }],
        }
    }
}

/// How the refusal of a call whose arguments fail the tool's schema begins, as the
/// model is told it (and as `tools_called`'s `ignore_validation` recognises it).
pub const INVALID_ARGUMENTS: &str = "invalid arguments:";

/// Every violation of `schema` by `args`, for a single call.
pub fn validate_args(schema: &Json, args: &Json) -> Vec<ArgsError> {
    ArgsSchema::new(schema).check(args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn violations_name_their_json_pointer() {
        let schema = json!({
            "type": "object",
            "properties": {"order": {"type": "object", "properties": {"id": {"type": "string"}}}},
            "required": ["order"]
        });
        assert!(validate_args(&schema, &json!({"order": {"id": "A-1"}})).is_empty());
        let errors = validate_args(&schema, &json!({"order": {"id": 7}}));
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].pointer, "/order/id");
        let errors = validate_args(&schema, &json!({}));
        assert_eq!(errors[0].to_string(), "/: \"order\" is a required property");
    }
}
