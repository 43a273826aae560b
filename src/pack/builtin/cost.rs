//! `cost_budget`: what the conversation has spent so far, in money and tokens,
//! against limits, as PromptKit's handler judges it: any limit passed scores 0;
//! within them the score is the share of `max_cost_usd` left (1 without it), so a
//! gate that wants 1 passes only a run that cost nothing or has no money limit.

use serde_json::{Value as Json, json};

use super::{Judge, ParamError, Params, Scored};

const LIMITS: &[&str] = &[
    "max_cost_usd",
    "max_input_tokens",
    "max_output_tokens",
    "max_total_tokens",
];

/// The spend is read from the context's `metadata` (`total_cost`, `input_tokens`,
/// `output_tokens`, summed over the model calls so far); what is not there counts
/// as 0, as in PromptKit (the mock reports no usage).
pub(super) fn budget(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(
        check,
        params,
        &[
            &["max_cost_usd"],
            &["max_input_tokens"],
            &["max_output_tokens"],
            &["max_total_tokens"],
        ],
    )?;
    let max_cost = p.number(&["max_cost_usd"])?;
    let max_input = p.count(&["max_input_tokens"])?;
    let max_output = p.count(&["max_output_tokens"])?;
    let max_total = p.count(&["max_total_tokens"])?;
    if max_cost.is_none() && max_input.is_none() && max_output.is_none() && max_total.is_none() {
        return Err(p.missing(
            LIMITS,
            "a limit: `max_cost_usd`, `max_input_tokens`, `max_output_tokens` or `max_total_tokens`",
        ));
    }
    Ok(Box::new(move |input| {
        let meta = &input.metadata;
        let reported = ["total_cost", "input_tokens", "output_tokens"]
            .iter()
            .any(|k| meta.get(k).is_some_and(|v| !v.is_null()));
        let cost = meta["total_cost"].as_f64().unwrap_or(0.0);
        let tokens = |key: &str| meta[key].as_f64().map_or(0, |n| n.max(0.0) as u64);
        let (input_tokens, output_tokens) = (tokens("input_tokens"), tokens("output_tokens"));
        let total = input_tokens + output_tokens;
        let mut over = Vec::new();
        if let Some(max) = max_cost
            && cost > max
        {
            over.push(format!("cost ${cost:.4} exceeds budget ${max:.4}"));
        }
        for (name, used, max) in [
            ("input tokens", input_tokens, max_input),
            ("output tokens", output_tokens, max_output),
            ("total tokens", total, max_total),
        ] {
            if let Some(max) = max
                && used > max
            {
                over.push(format!("{name} {used} exceeds max {max}"));
            }
        }
        let data = json!({
            "total_cost_usd": cost,
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "total_tokens": total,
        });
        if !over.is_empty() {
            return Ok(Scored {
                score: 0.0,
                detail: format!("budget exceeded: {}", over.join("; ")),
                data,
            });
        }
        let score = match max_cost {
            Some(max) if max > 0.0 => (1.0 - cost / max).max(0.0),
            _ => 1.0,
        };
        let unreported = if reported {
            ""
        } else {
            " (the provider reported no usage)"
        };
        Ok(Scored {
            score,
            detail: format!("within budget: ${cost:.4}, {total} tokens{unreported}"),
            data,
        })
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::EvalInput;

    fn spent(metadata: Json) -> EvalInput {
        EvalInput {
            metadata,
            ..EvalInput::default()
        }
    }

    #[test]
    fn limits_passed_score_zero_and_say_which() {
        let judge = budget(
            "cost_budget",
            &json!({"max_cost_usd": 0.01, "max_total_tokens": 100}),
        )
        .expect("params");
        let over = judge(&spent(
            json!({"total_cost": 0.02, "input_tokens": 90, "output_tokens": 20}),
        ))
        .expect("judged");
        assert_eq!(over.score, 0.0);
        assert_eq!(
            over.detail,
            "budget exceeded: cost $0.0200 exceeds budget $0.0100; total tokens 110 exceeds max 100"
        );
        let within = judge(&spent(
            json!({"total_cost": 0.0025, "input_tokens": 10, "output_tokens": 5}),
        ))
        .expect("judged");
        assert_eq!(within.score, 0.75);
        assert_eq!(within.data["total_tokens"], 15);
    }

    #[test]
    fn no_usage_counts_as_nothing_spent() {
        let judge = budget("cost_budget", &json!({"max_output_tokens": 0})).expect("params");
        let judged = judge(&spent(json!({"latency_ms": 3}))).expect("judged");
        assert_eq!(judged.score, 1.0);
        assert_eq!(
            judged.detail,
            "within budget: $0.0000, 0 tokens (the provider reported no usage)"
        );
    }

    #[test]
    fn a_budget_needs_a_limit() {
        let err = budget("cost_budget", &json!({})).err().expect("refused");
        assert!(err.to_string().contains("needs `max_cost_usd`"), "{err}");
        let typo = budget("cost_budget", &json!({"max_cost": 1}))
            .err()
            .expect("refused");
        assert!(
            typo.to_string().contains("did you mean `max_cost_usd`"),
            "{typo}"
        );
    }
}
