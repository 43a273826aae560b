//! What can go wrong with a built-in check: params it cannot be prepared from, and
//! an input it cannot judge.

use serde_json::Value as Json;

/// Why a built-in check cannot be prepared from its params. The messages name the
/// check as the user wrote it (alias or not) and the param at fault.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum ParamError {
    #[error("`{0}` is not a built-in check")]
    NotBuiltin(String),
    #[error("params must be an object, found {0}")]
    NotAnObject(Json),
    /// `suggestion` is empty or `; did you mean ...?`; `takes` lists every name.
    #[error("`{check}` takes no param `{key}`{suggestion} (it takes {takes})")]
    Unknown {
        check: String,
        key: String,
        suggestion: String,
        takes: String,
    },
    #[error("`{check}`: give one of {}, not both", given.join(" and "))]
    GivenTwice { check: String, given: Vec<String> },
    #[error("`{check}`: `{name}` must be {expected}, found {found}")]
    WrongType {
        check: String,
        name: String,
        expected: &'static str,
        found: Box<Json>,
    },
    /// A required param is missing (or empty); `what` says what it must be.
    #[error("`{check}` needs `{name}`, {what}")]
    Missing {
        check: String,
        name: String,
        what: &'static str,
    },
    /// A word param outside its set; `suggestion` is empty or `; did you mean ...?`.
    #[error("`{check}`: `{name}` is one of {choices}, found `{found}`{suggestion}")]
    NotAChoice {
        check: String,
        name: String,
        found: String,
        choices: String,
        suggestion: String,
    },
    #[error("`{check}` needs `max` (characters) or `max_tokens`")]
    NoLengthLimit { check: String },
    #[error("`{check}` needs `min`, `max` or both")]
    NoCountRange { check: String },
    #[error("`{check}`: `match_mode` is `word_boundary` or `substring`, found `{found}`")]
    MatchMode { check: String, found: String },
    #[error("`{check}`: cannot match `{word}`: {error}")]
    Word {
        check: String,
        word: String,
        error: regex::Error,
    },
    #[error("`{check}`: invalid `pattern`: {error}")]
    Pattern { check: String, error: regex::Error },
    #[error("`{check}`: `schema` is not a valid JSON Schema: {reason}")]
    Schema { check: String, reason: String },
    #[error("`{check}`: invalid JMESPath `expression`: {error}")]
    Expression {
        check: String,
        error: Box<jmespath::JmespathError>,
    },
    #[error("`{check}`: `contains` must be a list, found {found}")]
    ContainsNotAList { check: String, found: Json },
}

/// Why a prepared check could not judge an input (which is not a failed check:
/// it has no score at all).
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum JudgeError {
    #[error("the context has no `metadata.latency_ms` to judge")]
    NoLatency,
    /// A JMESPath expression failed on this input's JSON.
    #[error("{0}")]
    Search(Box<jmespath::JmespathError>),
    /// What the expression found could not be turned back into JSON.
    #[error("{0}")]
    Unrepresentable(String),
}
