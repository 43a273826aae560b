//! A prompt's `validators` (guardrails): each a built-in check with its params
//! checked now, the score bounds that make it fire, and what replaces an answer it
//! fires on.

use serde_json::{Map, Value as Json};

use crate::doc::{Node, UnknownKeys};
use crate::evals::prepare_check;
use crate::pack::model::*;

use super::document::{Resolver, ptr};

/// PromptKit's validator names that are checks under another name here.
const VALIDATOR_ALIASES: &[(&str, &str)] = &[("regex_match", "regex")];

impl Resolver<'_> {
    pub(super) fn validators(&mut self, node: &Node, at: &str) -> Vec<Validator> {
        let Some(items) = self.cx.list(node, at) else {
            return Vec::new();
        };
        items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| self.validator(item, &ptr(at, i)))
            .collect()
    }

    /// One validator; a disabled one is read (and checked) but not returned.
    fn validator(&mut self, node: &Node, at: &str) -> Option<Validator> {
        let mut f = self.cx.map(node, at)?;
        let kind = self.required_string(&mut f, node, at, "type");
        let type_pos = f.get("type").map_or(node.pos, |n| n.pos);
        let enabled = f
            .get("enabled")
            .and_then(|n| self.cx.boolean(n, &ptr(at, "enabled")))
            .unwrap_or(true);
        let fail_on_violation = f
            .get("fail_on_violation")
            .and_then(|n| self.cx.boolean(n, &ptr(at, "fail_on_violation")))
            .unwrap_or(false);
        let mut params = match f.get("params") {
            Some(n) => {
                self.cx.map(n, &ptr(at, "params"));
                match n.to_json() {
                    Json::Object(map) => map,
                    _ => Map::new(),
                }
            }
            None => Map::new(),
        };
        let top_message = self.optional_string(&mut f, at, "message");
        self.cx.unknown_keys(&f, at, UnknownKeys::Error);
        let kind = kind?;
        // The guardrail's own params (`message`, `direction`, the score bounds) are
        // taken out; the rest are its check's.
        let own = |params: &mut Map<String, Json>, key: &str| params.remove(key);
        let message = top_message
            .or_else(|| own(&mut params, "message").and_then(|m| m.as_str().map(str::to_string)));
        if let Some(direction) = own(&mut params, "direction")
            && direction != "output"
        {
            self.cx.warning(
                node.pos,
                format!("{at}/params/direction: {direction} is not applied; guardrails check the model's answers (`output`)"),
            );
        }
        let bound = |value: Option<Json>| {
            value.and_then(|v| v.as_f64()).map(|value| Bound {
                value,
                inclusive: true,
            })
        };
        let mut threshold = Threshold {
            min: bound(own(&mut params, "min_score")),
            max: bound(own(&mut params, "max_score")),
        };
        if threshold.min.is_none() && threshold.max.is_none() {
            threshold.min = bound(Some(Json::from(1.0)));
        }
        let check = VALIDATOR_ALIASES
            .iter()
            .find(|(name, _)| *name == kind)
            .map_or(kind.as_str(), |(_, check)| check)
            .to_string();
        let params = Json::Object(params);
        if let Err(err) = prepare_check(&check, &params) {
            let known =
                crate::evals::builtin_names().chain(VALIDATOR_ALIASES.iter().map(|(n, _)| *n));
            // An unknown type is pointed at; wrong params at the validator.
            let (pos, why) = match err {
                crate::evals::ParamError::NotBuiltin(_) => (
                    type_pos,
                    format!(
                        "`{kind}` is not a check promptexec can run as a guardrail{}",
                        crate::doc::suggest(&kind, known)
                    ),
                ),
                other => (node.pos, other.to_string()),
            };
            self.cx.error(pos, format!("{at}: {why}"));
            return None;
        }
        enabled.then(|| Validator {
            check,
            kind,
            params,
            threshold,
            message,
            fail_on_violation,
            pos: node.pos,
        })
    }
}
