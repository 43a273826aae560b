//! What the model calls of a run cost: how many, how long, how many tokens, and the
//! money when the provider has `pricing`. One pass over the events; every report
//! (human, JSON, JUnit, suite) shows the same figures.

use serde::Serialize;

use crate::provider::Usage;
use crate::session::SessionEvent;

#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub(crate) struct ModelTotals {
    pub calls: u64,
    pub latency_ms: u64,
    /// Summed over the calls that reported usage; `None` when none did (the mock).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Known only when every call with usage had a price.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Answers that were malformed (an empty answer, say).
    pub findings: u64,
}

impl ModelTotals {
    pub(crate) fn of<E: std::borrow::Borrow<SessionEvent>>(
        events: impl IntoIterator<Item = E>,
    ) -> Self {
        let mut totals = Self::default();
        for event in events {
            match event.borrow() {
                SessionEvent::ModelCall {
                    latency_ms, usage, ..
                } => {
                    totals = totals
                        + ModelTotals {
                            calls: 1,
                            latency_ms: *latency_ms,
                            ..ModelTotals::used(*usage)
                        }
                }
                SessionEvent::ModelFinding { .. } => totals.findings += 1,
                _ => {}
            }
        }
        totals
    }

    /// One call's usage as totals (no call counted).
    fn used(usage: Option<Usage>) -> Self {
        ModelTotals {
            input_tokens: usage.map(|u| u.input_tokens),
            output_tokens: usage.map(|u| u.output_tokens),
            cost_usd: usage.and_then(|u| u.cost_usd),
            ..ModelTotals::default()
        }
    }

    /// Whether the cost covers every call that used tokens.
    fn fully_priced(&self) -> bool {
        self.cost_usd.is_some() || self.input_tokens.is_none()
    }

    /// Whether anything beyond the mock's bare call count is known.
    pub(crate) fn has_usage(&self) -> bool {
        self.input_tokens.is_some()
    }

    /// `model: 3 call(s) in 1.24 s; 830 tokens in, 120 out; $0.0031`, for the human
    /// summary; `None` for the mock, whose calls are counted on the totals line.
    pub(crate) fn line(&self) -> Option<String> {
        if !self.has_usage() && self.findings == 0 {
            return None;
        }
        let mut text = format!(
            "model: {} call(s) in {:.2} s",
            self.calls,
            self.latency_ms as f64 / 1000.0
        );
        if let (Some(input), Some(output)) = (self.input_tokens, self.output_tokens) {
            text.push_str(&format!("; {input} tokens in, {output} out"));
        }
        if let Some(cost) = self.cost_usd {
            text.push_str(&format!("; {}", dollars(cost)));
        }
        if self.findings > 0 {
            text.push_str(&format!("; {} malformed answer(s)", self.findings));
        }
        Some(text)
    }

    /// JUnit `<property>` pairs.
    pub(crate) fn properties(&self) -> Vec<(&'static str, String)> {
        let mut props = vec![
            ("model.calls", self.calls.to_string()),
            ("model.latency_ms", self.latency_ms.to_string()),
        ];
        if let Some(input) = self.input_tokens {
            props.push(("model.input_tokens", input.to_string()));
        }
        if let Some(output) = self.output_tokens {
            props.push(("model.output_tokens", output.to_string()));
        }
        if let Some(cost) = self.cost_usd {
            props.push(("model.cost_usd", format!("{cost:.6}")));
        }
        props
    }
}

/// Two runs' totals together (a scenario's trials, a suite's scenarios).
impl std::ops::Add for ModelTotals {
    type Output = ModelTotals;

    fn add(self, other: ModelTotals) -> ModelTotals {
        let sum = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
        };
        ModelTotals {
            calls: self.calls + other.calls,
            latency_ms: self.latency_ms.saturating_add(other.latency_ms),
            input_tokens: sum(self.input_tokens, other.input_tokens),
            output_tokens: sum(self.output_tokens, other.output_tokens),
            cost_usd: match (self.cost_usd, other.cost_usd) {
                (None, None) => None,
                _ if !(self.fully_priced() && other.fully_priced()) => None,
                (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
            },
            findings: self.findings + other.findings,
        }
    }
}

/// US dollars, with the digits a small cost needs: `$0.0385`, `$0.000118`.
pub(crate) fn dollars(cost: f64) -> String {
    if cost == 0.0 || cost >= 0.01 {
        format!("${cost:.4}")
    } else {
        format!("${cost:.6}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(latency_ms: u64, usage: Option<Usage>) -> SessionEvent {
        SessionEvent::ModelCall {
            turn: 1,
            round: 1,
            answered_by: "x".into(),
            latency_ms,
            usage,
        }
    }

    fn usage(input: u64, output: u64, cost: Option<f64>) -> Option<Usage> {
        Some(Usage {
            input_tokens: input,
            output_tokens: output,
            cost_usd: cost,
        })
    }

    #[test]
    fn calls_latency_tokens_and_cost_are_summed() {
        let totals = ModelTotals::of([
            call(100, usage(10, 2, Some(0.01))),
            call(50, usage(5, 1, Some(0.02))),
        ]);
        assert_eq!((totals.calls, totals.latency_ms), (2, 150));
        assert_eq!(
            (totals.input_tokens, totals.output_tokens),
            (Some(15), Some(3))
        );
        assert!((totals.cost_usd.expect("priced") - 0.03).abs() < 1e-12);
        assert_eq!(
            totals.line().as_deref(),
            Some("model: 2 call(s) in 0.15 s; 15 tokens in, 3 out; $0.0300")
        );
    }

    #[test]
    fn the_mock_shows_no_line_and_an_unpriced_call_leaves_the_cost_unknown() {
        let mock = ModelTotals::of([call(0, None), call(0, None)]);
        assert_eq!((mock.calls, mock.line()), (2, None));
        let mixed = ModelTotals::of([call(1, usage(1, 1, Some(0.5))), call(1, usage(1, 1, None))]);
        assert_eq!(mixed.cost_usd, None);
        let priced = ModelTotals::of([call(1, usage(1, 1, Some(0.5)))]);
        assert_eq!((priced + mixed).cost_usd, None);
        assert_eq!((priced + mock).cost_usd, Some(0.5));
        assert_eq!((priced + priced).input_tokens, Some(2));
    }
}
