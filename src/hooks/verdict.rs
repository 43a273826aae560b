//! A filter hook's answer, read strictly: only a boolean `allow` decides.

use serde_json::{Map, Value as Json};

/// Why a filter hook's answer cannot be read (so it denies).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VerdictError {
    #[error("the answer is not a JSON object")]
    NotAnObject,
    #[error("`allow` must be true or false, found {0}")]
    AllowNotBoolean(Json),
    #[error("the answer has no `allow`")]
    NoAllow,
}

/// What a filter hook answered, once its answer is known to be well formed.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub allow: bool,
    pub reason: Option<String>,
    pub enforced: bool,
    pub metadata: Map<String, Json>,
}

/// Reads a filter hook's answer. Anything but an object with a boolean `allow` is an
/// error (which denies): `{}`, `{"allow": "true"}` and the like are not an allow.
pub fn read_verdict(value: &Json) -> Result<Verdict, VerdictError> {
    let Json::Object(object) = value else {
        return Err(VerdictError::NotAnObject);
    };
    let allow = match object.get("allow") {
        Some(Json::Bool(allow)) => *allow,
        Some(other) => return Err(VerdictError::AllowNotBoolean(other.clone())),
        None => return Err(VerdictError::NoAllow),
    };
    let reason = match object.get("reason") {
        None | Some(Json::Null) => None,
        Some(Json::String(s)) => Some(s.clone()),
        Some(other) => Some(other.to_string()),
    };
    let enforced = matches!(object.get("enforced"), Some(Json::Bool(true)));
    let metadata = match object.get("metadata") {
        Some(Json::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    Ok(Verdict {
        allow,
        reason,
        enforced,
        metadata,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_allow_deny_and_enforcement() {
        assert!(read_verdict(&json!({"allow": true})).expect("valid").allow);
        let deny = read_verdict(
            &json!({"allow": false, "enforced": true, "reason": "PII redacted",
            "metadata": {"replacement": "[redacted]"}}),
        )
        .expect("valid");
        assert!(!deny.allow && deny.enforced);
        assert_eq!(deny.reason.as_deref(), Some("PII redacted"));
        assert_eq!(deny.metadata["replacement"], "[redacted]");
    }

    #[test]
    fn malformed_answers_are_errors() {
        for bad in [
            json!({}),
            json!({"allow": "true"}),
            json!([true]),
            json!({"allow": 1}),
        ] {
            assert!(read_verdict(&bad).is_err(), "{bad}");
        }
    }
}
