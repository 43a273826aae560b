//! A scenario's assertions as written: type, params (with the message PromptArena
//! files carry inside them lifted out), preconditions and pass threshold.

use serde_json::Value as Json;

use crate::doc::{Checker, Node, UnknownKeys, Value, pointer as ptr};
use crate::evals::drop_unread;
use crate::pack::resolve_when;

use super::super::assertions::check_of;
use super::Assertion;

pub(super) fn assertions(cx: &mut Checker, node: &Node, at: &str) -> Vec<Assertion> {
    let Some(items) = cx.list(node, at) else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| assertion(cx, item, &ptr(at, i)))
        .collect()
}

fn assertion(cx: &mut Checker, node: &Node, at: &str) -> Option<Assertion> {
    let mut f = cx.map(node, at)?;
    let kind = match f.get("type") {
        Some(n) => cx.nonempty_string(n, &ptr(at, "type")),
        None => {
            cx.error(node.pos, format!("{at}: missing key `type`"));
            None
        }
    };
    let (mut params, lifted) = match f.get("params") {
        Some(n) => params(cx, n, &ptr(at, "params")),
        None => (Json::Object(Default::default()), None),
    };
    if let (Some(kind), Some(node)) = (&kind, f.get("params")) {
        unread_params(cx, kind, node, &mut params, &ptr(at, "params"));
    }
    // PromptArena's files often carry the message inside `params`; one written
    // beside `type` wins.
    let message = f
        .get("message")
        .and_then(|n| cx.string(n, &ptr(at, "message")))
        .or(lifted);
    let when = f
        .get("when")
        .map(|n| resolve_when(cx, n, &ptr(at, "when")))
        .unwrap_or_default();
    let pass_threshold = match f.get("pass_threshold") {
        Some(n) => {
            let share = cx.number(n, &ptr(at, "pass_threshold"))?;
            if !(0.0..=1.0).contains(&share) {
                cx.error(
                    n.pos,
                    format!("{at}/pass_threshold: must be between 0 and 1"),
                );
                return None;
            }
            share
        }
        None => 1.0,
    };
    cx.unknown_keys(&f, at, UnknownKeys::Error);
    Some(Assertion {
        kind: kind?,
        params,
        message,
        when,
        pass_threshold,
        pos: node.pos,
    })
}

/// An assertion's `params`, without `message`, which is the assertion's own message
/// (returned beside them) rather than a param of its check.
fn params(cx: &mut Checker, node: &Node, at: &str) -> (Json, Option<String>) {
    let mut params = node.to_json();
    if cx.map(node, at).is_none() {
        return (params, None);
    }
    let Value::Map(entries) = &node.value else {
        return (params, None);
    };
    let Some((key, value)) = entries.iter().find(|(key, _)| key.name == "message") else {
        return (params, None);
    };
    if let Json::Object(map) = &mut params {
        map.remove("message");
    }
    match &value.value {
        Value::Str(text) => (params, Some(text.clone())),
        _ => {
            cx.warning(
                key.pos,
                format!(
                    "{}: the assertion's message must be a string, found {}; it is ignored",
                    ptr(at, "message"),
                    value.kind()
                ),
            );
            (params, None)
        }
    }
}

/// Params the built-in check of `kind` does not read: PromptKit's handlers ignore
/// them, so each is a warning at its place (with the name meant, when one is close)
/// and is taken out. Other problems with the params are left for the plan to
/// report; a type that is no built-in check is not looked into.
fn unread_params(cx: &mut Checker, kind: &str, node: &Node, params: &mut Json, at: &str) {
    let Value::Map(entries) = &node.value else {
        return;
    };
    for unread in drop_unread(check_of(kind), params) {
        let pos = entries
            .iter()
            .find(|(k, _)| k.name == unread.key)
            .map_or(node.pos, |(k, _)| k.pos);
        cx.warning(pos, format!("{at}: {}; it is ignored", unread.message));
    }
}
