//! What can be wrong with an extension's reply as the probes read it: the shape the
//! protocol needs, the JSON-RPC framing of a reply line, or no answer at all.

use serde_json::Value as Json;

use crate::exec::rpc::Refused;
use crate::hooks::{AnswerError, VerdictError};

/// Why a reply does not have the shape its request needs.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReplyError {
    #[error("the answer is not a JSON object")]
    NotAnObject,
    #[error("the answer has none of `result`, `error`, `pending`")]
    NoToolKey,
    #[error(transparent)]
    Verdict(#[from] VerdictError),
    #[error("`ack` must be true or false, found {0}")]
    Ack(Json),
    #[error("`score` must be a number, found {0}")]
    ScoreNotANumber(Json),
    #[error("the answer has no `score`")]
    NoScore,
    /// The eval's score as `read_score` judges it (out of range, say).
    #[error(transparent)]
    Score(Box<dyn std::error::Error + Send + Sync>),
    /// A `hook.hello` reply a run would refuse too.
    #[error("`hook.hello` not accepted: {0}")]
    Hello(Refused),
    #[error(transparent)]
    Action(#[from] AnswerError),
    /// A JSON-RPC request answered with an error object.
    #[error("answered an error: {0}")]
    AnsweredError(Json),
    #[error("no reply with its id")]
    NoReplyWithId,
    #[error(transparent)]
    Response(#[from] ResponseError),
    /// The call gave no answer to read: how it ended, with its last stderr line.
    #[error("{0}")]
    NoAnswer(String),
}

/// Why a reply line is not a JSON-RPC response. `head` is the line's start, quoted.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ResponseError {
    #[error("the last reply has no newline: {head}")]
    NoNewline { head: String },
    #[error("a reply line of {0} bytes")]
    TooLong(usize),
    #[error("stdout closed before the reply")]
    Eof,
    #[error("no reply by the deadline")]
    Silent,
    #[error("a reply line is not JSON ({source}): {head}")]
    NotJson {
        head: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("a reply line is not a JSON object: {head}")]
    NotAnObject { head: String },
    #[error("a reply without \"jsonrpc\": \"2.0\": {head}")]
    NoJsonrpc { head: String },
    #[error("a reply with neither `result` nor `error`, or both: {head}")]
    ResultOrError { head: String },
}
