//! `tool_efficiency`: the judged tool calls stay within limits on how many there
//! are (`max_calls`), how many failed (`max_errors`) and which share failed
//! (`max_error_rate`, 0 to 1). At least one limit must be given. PromptKit scores a
//! run within its limits by the room left under `max_calls`; here it scores 1, the
//! score a check passes with, and that share is in the data as `room`.

use serde_json::{Value as Json, json};

use super::{Judge, ParamError, Params, Scored};

pub(super) fn efficient(check: &str, params: &Json) -> Result<Judge, ParamError> {
    const LIMITS: [&str; 3] = ["max_calls", "max_errors", "max_error_rate"];
    let p = Params::new(
        check,
        params,
        &[&["max_calls"], &["max_errors"], &["max_error_rate"]],
    )?;
    let max_calls = p.count(&["max_calls"])?;
    let max_errors = p.count(&["max_errors"])?;
    let max_rate = p.number(&["max_error_rate"])?;
    if max_calls.is_none() && max_errors.is_none() && max_rate.is_none() {
        return Err(p.missing(&LIMITS, "a number (or `max_errors`, `max_error_rate`)"));
    }
    Ok(Box::new(move |input| {
        let calls = input.tool_calls.len() as u64;
        let errors = input
            .tool_calls
            .iter()
            .filter(|c| c.error.is_some())
            .count() as u64;
        let rate = if calls == 0 {
            0.0
        } else {
            errors as f64 / calls as f64
        };
        let mut over = Vec::new();
        if let Some(max) = max_calls.filter(|max| calls > *max) {
            over.push(format!("too many calls: {calls} (max {max})"));
        }
        if let Some(max) = max_errors.filter(|max| errors > *max) {
            over.push(format!("too many errors: {errors} (max {max})"));
        }
        if let Some(max) = max_rate.filter(|max| calls > 0 && rate > *max) {
            over.push(format!(
                "error rate {:.1}% exceeds max {:.1}%",
                rate * 100.0,
                max * 100.0
            ));
        }
        let room = max_calls
            .filter(|max| *max > 0)
            .map(|max| (1.0 - calls as f64 / max as f64).max(0.0));
        let data =
            json!({ "total_calls": calls, "errors": errors, "error_rate": rate, "room": room });
        Ok(if over.is_empty() {
            Scored {
                score: 1.0,
                detail: format!("{calls} calls, {errors} errors: within limits"),
                data,
            }
        } else {
            Scored {
                score: 0.0,
                detail: format!("efficiency check failed: {}", over.join("; ")),
                data,
            }
        })
    }))
}
