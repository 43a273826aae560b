//! `latency_budget`: how long the judged turn took, against a budget.

use serde_json::{Value as Json, json};

use super::Scored;
use super::{Judge, JudgeError, ParamError, Params};

/// Within `max_ms` scores 1; past it the score falls as `max_ms / latency`. The
/// latency is the context's `metadata.latency_ms`, which `run` fills in.
pub(super) fn budget(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["max_ms"]])?;
    let max_ms = p
        .number(&["max_ms"])?
        .filter(|m| *m > 0.0)
        .ok_or_else(|| p.missing(&["max_ms"], "a number of milliseconds above 0"))?;
    Ok(Box::new(move |input| {
        let latency = input.metadata["latency_ms"]
            .as_f64()
            .ok_or(JudgeError::NoLatency)?;
        Ok(Scored {
            score: if latency <= max_ms {
                1.0
            } else {
                max_ms / latency
            },
            detail: format!("{latency} ms (budget {max_ms} ms)"),
            data: json!({ "latency_ms": latency, "max_ms": max_ms }),
        })
    }))
}
