//! A prompt's `validators` (guardrails): each a built-in check (or `pii_leakage`'s
//! offline pre-pass) with its params checked now, the side of the model call it
//! judges, the score bounds that make it fire, and what replaces what it fires on.
//! As in PromptKit, a type nobody knows is an error, while a validator whose params
//! are unusable is a warning and is skipped; params a check does not take are
//! warnings and are not applied.

use serde_json::{Map, Value as Json};

use crate::doc::{Node, Pos, UnknownKeys, Value};
use crate::pack::builtin::{ParamError, builtin_names, drop_unread, is_builtin, prepare};
use crate::pack::model::*;

use super::document::{Resolver, ptr};

/// PromptKit's validator names that are checks under another name here.
const VALIDATOR_ALIASES: &[(&str, &str)] = &[("regex_match", "regex")];

/// PromptKit's `pii_leakage`, run as its offline pre-pass (see
/// the built-in check of that name).
const PII_LEAKAGE: &str = "pii_leakage";

/// `pii_leakage`'s params for PromptKit's model judge, which promptexec does not
/// run.
const PII_JUDGE_PARAMS: &[&str] = &["rubric", "model", "system_prompt", "criteria"];

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

    /// One validator; a disabled one, or one whose params are unusable, is read but
    /// not returned.
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
        let params_node = f.get("params");
        let mut params = match params_node {
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
        let site = Site {
            at,
            node,
            type_pos,
            params: params_node,
        };
        // The guardrail's own params (`message`, `direction`, the score bounds) are
        // taken out; the rest are its check's.
        let own = |params: &mut Map<String, Json>, key: &str| params.remove(key);
        let message = top_message
            .or_else(|| own(&mut params, "message").and_then(|m| m.as_str().map(str::to_string)));
        let direction = self.direction(own(&mut params, "direction"), &site);
        let threshold = threshold(own(&mut params, "min_score"), own(&mut params, "max_score"));
        let check = VALIDATOR_ALIASES
            .iter()
            .find(|(name, _)| *name == kind)
            .map_or(kind.as_str(), |(_, check)| check)
            .to_string();
        if !enabled {
            // As in PromptKit, a disabled validator is not built, so nothing but a
            // type nobody knows (likely a typo) is worth a word.
            if check != PII_LEAKAGE && !is_builtin(&check) {
                let why = unknown_type(&kind);
                self.cx
                    .warning(type_pos, format!("{at}: {why} (it is disabled)"));
            }
            return None;
        }
        let usable = if check == PII_LEAKAGE {
            self.pii_params(&params, &site);
            true
        } else {
            self.check_params(&kind, &check, &mut params, &site)?
        };
        usable.then(|| Validator {
            check,
            kind,
            params: Json::Object(params),
            threshold,
            message,
            fail_on_violation,
            direction,
            pos: node.pos,
        })
    }

    /// The side of the model call the guardrail judges, as `direction` says; the
    /// model's answers when it is not written or not understood (a warning).
    fn direction(&mut self, written: Option<Json>, site: &Site<'_>) -> Direction {
        let Some(written) = written else {
            return Direction::Output;
        };
        let read = written.as_str().and_then(Direction::from_wire);
        if read.is_none() {
            self.cx.warning(
                site.param_pos("direction"),
                format!(
                    "{}/params/direction: {written} is not `input`, `output` or `both`, so the guardrail judges the model's answers (`output`){}",
                    site.at,
                    crate::doc::suggest(
                        written.as_str().unwrap_or_default(),
                        Direction::NAMES.iter().copied()
                    )
                ),
            );
        }
        read.unwrap_or_default()
    }

    /// Prepares the built-in check with the validator's params: `None` (an error)
    /// when the check does not exist; `Some(false)` (a warning: the validator is
    /// skipped) when its params are unusable. A param the check does not take is a
    /// warning and is taken out.
    fn check_params(
        &mut self,
        kind: &str,
        check: &str,
        params: &mut Map<String, Json>,
        site: &Site<'_>,
    ) -> Option<bool> {
        let at = site.at;
        let mut given = Json::Object(std::mem::take(params));
        let unread = if is_builtin(check) {
            drop_unread(check, &mut given)
        } else {
            Vec::new()
        };
        if let Json::Object(kept) = given {
            *params = kept;
        }
        for unread in unread {
            self.cx.warning(
                site.param_pos(&unread.key),
                format!("{at}/params: {}; it is not applied", unread.message),
            );
        }
        match prepare(check, &Json::Object(params.clone())) {
            Ok(_) => Some(true),
            Err(ParamError::NotBuiltin(_)) => {
                self.cx
                    .error(site.type_pos, format!("{at}: {}", unknown_type(kind)));
                None
            }
            Err(other) => {
                self.cx.warning(
                    site.node.pos,
                    format!("{at}: {other}; the guardrail is skipped"),
                );
                Some(false)
            }
        }
    }

    /// `pii_leakage` takes only its model judge's params, which are not applied.
    fn pii_params(&mut self, params: &Map<String, Json>, site: &Site<'_>) {
        let at = site.at;
        for key in params.keys() {
            let why = if PII_JUDGE_PARAMS.contains(&key.as_str()) {
                "is for PromptKit's model judge; promptexec runs the offline pre-pass only"
                    .to_string()
            } else {
                format!(
                    "is not a param of `{PII_LEAKAGE}`{}",
                    crate::doc::suggest(key, PII_JUDGE_PARAMS.iter().copied())
                )
            };
            self.cx.warning(
                site.param_pos(key),
                format!("{at}/params/{key} {why}; it is not applied"),
            );
        }
    }
}

/// The score bounds that make a guardrail fire (both inclusive); a score of at
/// least 1 when neither is written.
fn threshold(min_score: Option<Json>, max_score: Option<Json>) -> Threshold {
    let bound = |value: Option<Json>| {
        value.and_then(|v| v.as_f64()).map(|value| Bound {
            value,
            inclusive: true,
        })
    };
    let mut threshold = Threshold {
        min: bound(min_score),
        max: bound(max_score),
    };
    if threshold.min.is_none() && threshold.max.is_none() {
        threshold.min = bound(Some(Json::from(1.0)));
    }
    threshold
}

/// Why `kind` is no guardrail, with a "did you mean".
fn unknown_type(kind: &str) -> String {
    let known = builtin_names()
        .chain(VALIDATOR_ALIASES.iter().map(|(n, _)| *n))
        .chain([PII_LEAKAGE]);
    format!(
        "`{kind}` is not a check promptexec can run as a guardrail{}",
        crate::doc::suggest(kind, known)
    )
}

/// Where a validator is written, for messages about it.
struct Site<'a> {
    /// Its JSON pointer.
    at: &'a str,
    node: &'a Node,
    type_pos: Pos,
    params: Option<&'a Node>,
}

impl Site<'_> {
    /// Where param `key` is written (else the validator).
    fn param_pos(&self, key: &str) -> Pos {
        let entries = match self.params.map(|p| &p.value) {
            Some(Value::Map(entries)) => entries.as_slice(),
            _ => &[],
        };
        entries
            .iter()
            .find(|(k, _)| k.name == key)
            .map_or(self.node.pos, |(k, _)| k.pos)
    }
}
