//! A pack's evals: type, trigger, params, preconditions (`when`) and thresholds.

use serde_json::Value as Json;

use crate::doc::{Checker, Node, UnknownKeys};

use crate::pack::model::*;

use super::document::{Resolver, ptr};

crate::wire_enum! {
    /// A threshold's `operator`: which bound `value` is, and whether it is included.
    enum Operator { Gte = "gte", Gt = "gt", Lte = "lte", Lt = "lt", Eq = "eq" }
}

impl Resolver<'_> {
    pub(super) fn evals(&mut self, node: &Node, at: &str) -> Vec<EvalDef> {
        let Some(items) = self.cx.list(node, at) else {
            return Vec::new();
        };
        let mut out: Vec<EvalDef> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let at = ptr(at, i);
            let Some(eval) = self.eval(item, &at) else {
                continue;
            };
            if out.iter().any(|e| e.id == eval.id) {
                self.cx.error(
                    item.pos,
                    format!("{at}: eval id `{}` is used twice", eval.id),
                );
                continue;
            }
            out.push(eval);
        }
        out
    }

    pub(super) fn eval(&mut self, node: &Node, at: &str) -> Option<EvalDef> {
        let mut f = self.cx.map(node, at)?;
        let id = self.required_string(&mut f, node, at, "id");
        let eval_type = self.required_string(&mut f, node, at, "type");
        let trigger = match f.get("trigger") {
            Some(t) => self.cx.choice(t, &ptr(at, "trigger"), Trigger::WIRE),
            None => {
                self.cx
                    .error(node.pos, format!("{at}: missing key `trigger`"));
                None
            }
        };
        let params = match f.get("params") {
            Some(p) => {
                self.cx.map(p, &ptr(at, "params"));
                p.to_json()
            }
            None => Json::Object(Default::default()),
        };
        let metric = f.get("metric").map(|m| {
            self.cx.map(m, &ptr(at, "metric"));
            m.to_json()
        });
        let threshold = f
            .get("threshold")
            .and_then(|t| self.threshold(t, &ptr(at, "threshold")));
        let sample_percentage = f
            .get("sample_percentage")
            .and_then(|n| self.cx.number(n, &ptr(at, "sample_percentage")))
            .unwrap_or(5.0);
        if !(0.0..=100.0).contains(&sample_percentage) {
            self.cx.error(
                node.pos,
                format!("{at}/sample_percentage: must be between 0 and 100"),
            );
        }
        let enabled = f
            .get("enabled")
            .and_then(|n| self.cx.boolean(n, &ptr(at, "enabled")))
            .unwrap_or(true);
        let description = self.optional_string(&mut f, at, "description");
        let when = f
            .get("when")
            .map(|w| self.when(w, &ptr(at, "when")))
            .unwrap_or_default();
        f.allow(&["message", "groups", "extensions"]);
        // A misspelt `threshold` would quietly turn a gate into a measurement.
        self.cx.unknown_keys(&f, at, UnknownKeys::Error);
        Some(EvalDef {
            id: id?,
            eval_type: eval_type?,
            trigger: trigger?,
            params,
            metric,
            threshold,
            sample_percentage,
            enabled,
            when,
            description,
            pos: node.pos,
            turn: None,
        })
    }

    pub(super) fn when(&mut self, node: &Node, at: &str) -> When {
        resolve_when(self.cx, node, at)
    }

    /// `{min_score, max_score}` (inclusive) or the pack format's `{operator, value}`.
    pub(super) fn threshold(&mut self, node: &Node, at: &str) -> Option<Threshold> {
        let mut f = self.cx.map(node, at)?;
        let inclusive = |value| Bound {
            value,
            inclusive: true,
        };
        let mut t = Threshold {
            min: f
                .get("min_score")
                .and_then(|n| self.cx.number(n, &ptr(at, "min_score")))
                .map(inclusive),
            max: f
                .get("max_score")
                .and_then(|n| self.cx.number(n, &ptr(at, "max_score")))
                .map(inclusive),
        };
        let operator = f.get("operator");
        let value = f.get("value");
        match (operator, value) {
            (Some(op), Some(v)) => {
                let op = self.cx.choice(op, &ptr(at, "operator"), Operator::WIRE);
                let v = self.cx.number(v, &ptr(at, "value"));
                if let (Some(op), Some(v)) = (op, v) {
                    let bound = Bound {
                        value: v,
                        inclusive: !matches!(op, Operator::Gt | Operator::Lt),
                    };
                    match op {
                        Operator::Gte | Operator::Gt => t.min = Some(bound),
                        Operator::Lte | Operator::Lt => t.max = Some(bound),
                        Operator::Eq => (t.min, t.max) = (Some(bound), Some(bound)),
                    }
                }
            }
            (Some(_), None) | (None, Some(_)) => {
                self.cx.error(
                    node.pos,
                    format!("{at}: `operator` and `value` go together"),
                );
            }
            (None, None) => {}
        }
        self.cx.unknown_keys(&f, at, UnknownKeys::Error);
        if t.min.is_none() && t.max.is_none() {
            self.cx.error(
                node.pos,
                format!("{at}: give `min_score`, `max_score`, or `operator` with `value`"),
            );
            return None;
        }
        Some(t)
    }
}

/// `when`: `tool_called`, `tool_called_pattern` (a regex), `any_tool_called`,
/// `min_tool_calls`. Scenario assertions take the same preconditions.
pub fn resolve_when(cx: &mut Checker, node: &Node, at: &str) -> When {
    let Some(mut f) = cx.map(node, at) else {
        return When::default();
    };
    let tool_called = f
        .get("tool_called")
        .and_then(|n| cx.string(n, &ptr(at, "tool_called")));
    let tool_called_pattern = f.get("tool_called_pattern").and_then(|n| {
        let source = cx.string(n, &ptr(at, "tool_called_pattern"))?;
        regex::Regex::new(&source)
            .map_err(|e| {
                cx.error(
                    n.pos,
                    format!("{at}/tool_called_pattern: not a valid regex: {e}"),
                )
            })
            .ok()
    });
    let any_tool_called = f
        .get("any_tool_called")
        .and_then(|n| cx.boolean(n, &ptr(at, "any_tool_called")));
    let min_tool_calls = f
        .get("min_tool_calls")
        .and_then(|n| cx.non_negative_integer(n, &ptr(at, "min_tool_calls")));
    cx.unknown_keys(&f, at, UnknownKeys::Error);
    When {
        tool_called,
        tool_called_pattern,
        any_tool_called,
        min_tool_calls,
    }
}
