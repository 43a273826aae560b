//! Reading a `kind: Scenario` file (YAML, or JSON by its extension) into a
//! [`Scenario`]. Every problem in the file is reported at once with its
//! `FILE:LINE:COL`; keys PromptArena defines that promptexec does not play are
//! warnings naming them, and keys nobody defines are errors.

use std::path::Path;

use indexmap::IndexMap;

use crate::conversation::ToolChoice;
use crate::doc::{
    Checker, Diagnostic, Fields, Loaded, Node, Pos, Rejected, UnknownKeys, Value, finish,
    parse_by_extension, pointer as ptr,
};

use super::scenario::*;
use super::self_play::SelfPlayTurn;

mod assertion;

use assertion::assertions;

/// The only API version there is.
pub(crate) const API_VERSION: &str = "promptkit.altairalabs.ai/v1alpha1";

/// Scenario keys promptexec does not play: self-play, media, memories, live
/// providers and context management need a real model or a runtime it is not.
const SPEC_KEYS_UNPLAYED: &[&str] = &[
    "mode",
    "context_metadata",
    "context",
    "constraints",
    "provider_group",
    "required_capabilities",
    "context_policy",
    "duplex",
    "voice",
    "seed_memories",
    "pack",
    "steps",
];

/// Turn keys of self-play turns: read on those, warned about on a user turn.
const TURN_KEYS_SELF_PLAY: &[&str] = &["persona", "turns"];

/// Turn keys that only a persona's sampling, natural termination or perturbed
/// trials read: warned about wherever they are.
const TURN_KEYS_UNPLAYED: &[&str] = &[
    "max_turns",
    "assistant_temp",
    "user_temp",
    "seed",
    "perturbations",
];

/// Reads and resolves the scenario at `path`.
pub(crate) fn load(path: &Path) -> Result<Loaded<Scenario>, Rejected> {
    let text = std::fs::read_to_string(path).map_err(|err| {
        Rejected(Diagnostic::whole_file(path, format!("cannot read file: {err}")).into())
    })?;
    let root = parse_by_extension(path, &text).map_err(|d| Rejected(d.into()))?;
    let mut cx = Checker::new(path, text);
    match resolve(&root, path, &mut cx) {
        Some(scenario) => finish(scenario, cx.diagnostics),
        None => Err(Rejected(cx.diagnostics)),
    }
}

fn resolve(root: &Node, path: &Path, cx: &mut Checker) -> Option<Scenario> {
    let mut top = cx.map(root, "the scenario")?;
    check_header(cx, &mut top, root);
    let (name, mut labels) = match top.get("metadata") {
        Some(node) => metadata(cx, node),
        None => (None, IndexMap::new()),
    };
    top.allow(&["$schema"]);
    let spec_node = top.get("spec");
    cx.unknown_keys(&top, "the scenario", UnknownKeys::Error);
    let Some(spec_node) = spec_node else {
        cx.error(root.pos, "the scenario: missing key `spec`");
        return None;
    };
    let mut spec = cx.map(spec_node, "/spec")?;
    let id = scenario_id(cx, &mut spec, spec_node, name);
    let task_type = required_string(cx, &mut spec, spec_node, "task_type");
    let task_type_pos = spec.get("task_type").map_or(spec_node.pos, |n| n.pos);
    let description = required_string(cx, &mut spec, spec_node, "description");
    if let Some(node) = spec.get("labels") {
        labels.extend(string_map(cx, node, "/spec/labels"));
    }
    let variables = spec
        .get("variables")
        .map(|node| string_map(cx, node, "/spec/variables"))
        .unwrap_or_default();
    let tool_policy = spec
        .get("tool_policy")
        .and_then(|node| tool_policy(cx, node, "/spec/tool_policy"));
    let (turns, unplayed) = match spec.get("turns") {
        Some(node) => turns(cx, node),
        None => {
            cx.error(spec_node.pos, "/spec: missing key `turns`");
            (Vec::new(), Vec::new())
        }
    };
    let conversation_assertions = spec
        .get("conversation_assertions")
        .map(|node| assertions(cx, node, "/spec/conversation_assertions"))
        .unwrap_or_default();
    let trials = spec
        .get("trials")
        .and_then(|node| cx.positive_integer(node, "/spec/trials"))
        .map_or(1, |n| n.min(u64::from(u32::MAX)) as u32);
    let providers = spec
        .get("providers")
        .map(|node| providers(cx, node))
        .unwrap_or_default();
    let streaming = spec
        .get("streaming")
        .and_then(|node| cx.boolean(node, "/spec/streaming"));
    cx.ignored_keys(&mut spec, SPEC_KEYS_UNPLAYED, "/spec");
    cx.unknown_keys(&spec, "/spec", UnknownKeys::Error);
    Some(Scenario {
        path: path.to_path_buf(),
        id: id?,
        task_type: task_type?,
        task_type_pos,
        description: description?,
        labels,
        variables,
        tool_policy,
        turns,
        unplayed,
        conversation_assertions,
        trials,
        providers,
        streaming,
        pos: spec_node.pos,
    })
}

/// `apiVersion` and `kind`, each there and the one there is.
fn check_header(cx: &mut Checker, top: &mut Fields<'_>, root: &Node) {
    match top.get("apiVersion") {
        Some(node) => {
            if let Some(version) = cx.string(node, "/apiVersion")
                && version != API_VERSION
            {
                cx.error(
                    node.pos,
                    format!("/apiVersion: `{version}` is not `{API_VERSION}`"),
                );
            }
        }
        None => cx.error(root.pos, "the scenario: missing key `apiVersion`"),
    }
    match top.get("kind") {
        Some(node) => {
            if let Some(kind) = cx.string(node, "/kind")
                && kind != "Scenario"
            {
                cx.error(
                    node.pos,
                    format!("/kind: expected `Scenario`, found `{kind}`"),
                );
            }
        }
        None => cx.error(root.pos, "the scenario: missing key `kind`"),
    }
}

/// The scenario's id: PromptArena names a scenario by `metadata.name` (`name`),
/// over `spec.id`.
fn scenario_id(
    cx: &mut Checker,
    spec: &mut Fields<'_>,
    spec_node: &Node,
    name: Option<String>,
) -> Option<String> {
    let spec_id_node = spec.get("id");
    let spec_id = spec_id_node.and_then(|node| cx.nonempty_string(node, "/spec/id"));
    let id = name.or(spec_id);
    // A `spec.id` that is there but wrong has been reported already.
    if id.is_none() && spec_id_node.is_none() {
        cx.error(
            spec_node.pos,
            "/spec: missing key `id` (and no `metadata.name` to stand for it)",
        );
    }
    id
}

/// `spec.providers`: PromptArena plays the scenario against each one listed.
/// promptexec plays one conversation: the provider `--provider` names, else the
/// first listed (the command says so when there are several).
fn providers(cx: &mut Checker, node: &Node) -> Vec<(String, Pos)> {
    cx.string_list(node, "/spec/providers").unwrap_or_default()
}

fn required_string(
    cx: &mut Checker,
    f: &mut Fields<'_>,
    parent: &Node,
    key: &'static str,
) -> Option<String> {
    match f.get(key) {
        Some(node) => cx.nonempty_string(node, &ptr("/spec", key)),
        None => {
            cx.error(parent.pos, format!("/spec: missing key `{key}`"));
            None
        }
    }
}

/// `metadata`: its `name` and `labels`; `namespace` and `annotations` only describe.
fn metadata(cx: &mut Checker, node: &Node) -> (Option<String>, IndexMap<String, String>) {
    let Some(mut f) = cx.map(node, "/metadata") else {
        return (None, IndexMap::new());
    };
    let name = f
        .get("name")
        .and_then(|n| cx.nonempty_string(n, "/metadata/name"));
    let labels = f
        .get("labels")
        .map(|n| string_map(cx, n, "/metadata/labels"))
        .unwrap_or_default();
    if let Some(n) = f.get("annotations") {
        string_map(cx, n, "/metadata/annotations");
    }
    f.allow(&["namespace"]);
    cx.unknown_keys(&f, "/metadata", UnknownKeys::Error);
    (name, labels)
}

/// A mapping of names to strings; numbers and booleans are read as their text, as
/// a YAML author writing `limit: 50` means.
pub(in crate::suite) fn string_map(
    cx: &mut Checker,
    node: &Node,
    at: &str,
) -> IndexMap<String, String> {
    let mut out = IndexMap::new();
    if cx.map(node, at).is_none() {
        return out;
    }
    let Value::Map(entries) = &node.value else {
        return out;
    };
    for (key, value) in entries {
        let text = match &value.value {
            Value::Str(s) => s.clone(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => f.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => {
                cx.error(
                    value.pos,
                    format!(
                        "{}: expected a string, found {}",
                        ptr(at, &key.name),
                        value.kind()
                    ),
                );
                continue;
            }
        };
        out.insert(key.name.clone(), text);
    }
    out
}

/// `tool_policy`: PromptArena's schema requires `tool_choice`,
/// `max_tool_calls_per_turn` and `max_total_tool_calls`; a limit of `0` is unset,
/// as PromptKit reads it.
fn tool_policy(cx: &mut Checker, node: &Node, at: &str) -> Option<ScenarioPolicy> {
    let mut f = cx.map(node, at)?;
    for key in [
        "tool_choice",
        "max_tool_calls_per_turn",
        "max_total_tool_calls",
    ] {
        if f.get(key).is_none() {
            cx.error(node.pos, format!("{at}: missing key `{key}`"));
        }
    }
    let tool_choice = f
        .get("tool_choice")
        .and_then(|n| cx.choice(n, &ptr(at, "tool_choice"), ToolChoice::WIRE));
    let mut limit = |key: &'static str| {
        f.get(key)
            .map(|n| cx.non_negative_integer(n, &ptr(at, key)).ok_or(()))
            .transpose()
            .map(|n| n.filter(|n| *n > 0))
    };
    let per_turn = limit("max_tool_calls_per_turn");
    let total = limit("max_total_tool_calls");
    let max_rounds = limit("max_rounds");
    let max_identical_tool_calls = limit("max_identical_tool_calls");
    let blocklist = f
        .get("blocklist")
        .and_then(|n| cx.string_list(n, &ptr(at, "blocklist")))
        .map(|list| list.into_iter().map(|(name, _)| name).collect())
        .unwrap_or_default();
    cx.ignored_keys(&mut f, &["max_cost_usd"], at);
    cx.unknown_keys(&f, at, UnknownKeys::Error);
    Some(ScenarioPolicy {
        tool_choice: tool_choice?,
        max_rounds: max_rounds.ok()?,
        max_tool_calls_per_turn: per_turn.ok()?,
        max_total_tool_calls: total.ok()?,
        max_identical_tool_calls: max_identical_tool_calls.ok()?,
        blocklist,
    })
}

fn turns(cx: &mut Checker, node: &Node) -> (Vec<Turn>, Vec<UnplayedTurn>) {
    let Some(items) = cx.list(node, "/spec/turns") else {
        return (Vec::new(), Vec::new());
    };
    let mut played = Vec::new();
    let mut unplayed = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match turn(cx, item, &ptr("/spec/turns", i), i as u32 + 1) {
            Some(Read::Played(turn)) => played.push(turn),
            Some(Read::Unplayed(mut turn)) => {
                turn.after = played.len() as u32;
                unplayed.push(turn);
            }
            None => {}
        }
    }
    // A file of self-play turns alone is kept: nothing of it is played, and every
    // assertion in it is reported skipped.
    if played.is_empty() && unplayed.is_empty() && !cx.diagnostics.has_errors() {
        cx.error(node.pos, "/spec/turns: no user turn to play");
    }
    (played, unplayed)
}

/// A turn as read: played, or kept for its assertions to be reported as skipped.
enum Read {
    Played(Turn),
    Unplayed(UnplayedTurn),
}

/// One turn, the `index`-th of the file; `None` when it has errors. A turn whose
/// role is not `user` is not played: its self-play keys are not warned about one by
/// one, since the whole turn is reported as not played.
fn turn(cx: &mut Checker, node: &Node, at: &str, index: u32) -> Option<Read> {
    let mut f = cx.map(node, at)?;
    let role = match f.get("role") {
        Some(n) => cx.string(n, &ptr(at, "role")),
        None => {
            cx.error(node.pos, format!("{at}: missing key `role`"));
            None
        }
    };
    let content = f
        .get("content")
        .and_then(|n| cx.string(n, &ptr(at, "content")));
    let (parts, dropped) = f
        .get("parts")
        .map(|n| text_parts(cx, n, &ptr(at, "parts")))
        .unwrap_or_default();
    let assertions = f
        .get("assertions")
        .map(|n| assertions(cx, n, &ptr(at, "assertions")))
        .unwrap_or_default();
    let consent = f
        .get("consent_overrides")
        .map(|n| consent(cx, n, &ptr(at, "consent_overrides")))
        .unwrap_or_default();
    let chaos = f
        .get("chaos")
        .map(|n| chaos(cx, n, &ptr(at, "chaos")))
        .unwrap_or_default();
    let streaming = f
        .get("streaming")
        .and_then(|n| cx.boolean(n, &ptr(at, "streaming")));
    let self_play = role
        .as_deref()
        .is_some_and(|r| r != "user" && r != "assistant");
    let (persona, count) = self_play_keys(cx, &mut f, at, self_play);
    cx.unknown_keys(&f, at, UnknownKeys::Error);
    let role = role?;
    if role != "user" {
        // `turns: 0` plays once, as in PromptArena.
        let spec = self_play.then(|| SelfPlayTurn {
            role: role.clone(),
            persona: persona.clone(),
            turns: count.map_or(1, |n| n.clamp(1, u64::from(u32::MAX)) as u32),
            pos: node.pos,
        });
        return Some(Read::Unplayed(UnplayedTurn {
            index,
            after: 0,
            reason: not_played(&role, persona.as_deref()),
            role,
            assertions,
            self_play: spec,
        }));
    }
    // Text parts, when given, take precedence over `content`, as in PromptArena.
    let content = match (parts, content) {
        (Some(text), _) => text,
        (None, Some(text)) => text,
        // Media alone (a duplex scenario's audio, say) cannot reach the scripted
        // model: the turn is kept, not played, and its assertions are skipped.
        (None, None) if !dropped.is_empty() => {
            return Some(Read::Unplayed(UnplayedTurn {
                index,
                after: 0,
                role,
                reason: format!(
                    "not played: the turn has only {} part(s) and no text for the model",
                    dropped.join(", ")
                ),
                assertions,
                self_play: None,
            }));
        }
        (None, None) => {
            cx.error(
                node.pos,
                format!("{at}: a user turn needs `content` or text `parts`"),
            );
            return None;
        }
    };
    Some(Read::Played(Turn {
        content,
        dropped,
        assertions,
        consent,
        chaos,
        streaming,
        speaker: None,
    }))
}

/// A turn's `persona` and `turns`, read on a self-play turn and warned about on
/// any other; the keys only a persona's sampling or trials read are warned about.
fn self_play_keys(
    cx: &mut Checker,
    f: &mut Fields<'_>,
    at: &str,
    self_play: bool,
) -> (Option<String>, Option<u64>) {
    let read = if self_play {
        (
            f.get("persona")
                .and_then(|n| cx.nonempty_string(n, &ptr(at, "persona"))),
            f.get("turns")
                .and_then(|n| cx.non_negative_integer(n, &ptr(at, "turns"))),
        )
    } else {
        cx.ignored_keys(f, TURN_KEYS_SELF_PLAY, at);
        (None, None)
    };
    cx.ignored_keys(f, TURN_KEYS_UNPLAYED, at);
    read
}

/// Why a turn of `role` (not `user`) is not played (until self-play plays it, with
/// an Arena project's roles and personas).
fn not_played(role: &str, persona: Option<&str>) -> String {
    match persona {
        _ if role == "assistant" => {
            "not played: promptexec plays `user` turns, not `assistant` turns".to_string()
        }
        Some(persona) => format!(
            "not played: self-play (persona `{persona}`) needs a second model to play the user"
        ),
        None => format!(
            "not played: a `{role}` turn is self-play, which needs a second model to play the user"
        ),
    }
}

/// The text of `parts`, joined by blank lines, and the kinds of the media parts left
/// out (not played: only text reaches the model).
fn text_parts(cx: &mut Checker, node: &Node, at: &str) -> (Option<String>, Vec<String>) {
    let Some(items) = cx.list(node, at) else {
        return (None, Vec::new());
    };
    let mut texts = Vec::new();
    let mut dropped: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = ptr(at, i);
        let Some(mut f) = cx.map(item, &at) else {
            continue;
        };
        let kind = f.get("type").and_then(|n| cx.string(n, &ptr(&at, "type")));
        match kind.as_deref() {
            Some("text") => {
                if let Some(text) = f.get("text").and_then(|n| cx.string(n, &ptr(&at, "text"))) {
                    texts.push(text);
                }
            }
            Some(other) => {
                cx.warning(
                    item.pos,
                    format!(
                        "{at}: `{other}` parts are not played; only text reaches the scripted model"
                    ),
                );
                if !dropped.iter().any(|k| k == other) {
                    dropped.push(other.to_string());
                }
            }
            None => cx.error(item.pos, format!("{at}: missing key `type`")),
        }
        f.allow(&["media"]);
        cx.unknown_keys(&f, &at, UnknownKeys::Error);
    }
    ((!texts.is_empty()).then(|| texts.join("\n\n")), dropped)
}

fn consent(cx: &mut Checker, node: &Node, at: &str) -> Vec<(String, Consent)> {
    if cx.map(node, at).is_none() {
        return Vec::new();
    }
    let Value::Map(entries) = &node.value else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|(key, value)| {
            let answer = cx.choice(value, &ptr(at, &key.name), Consent::WIRE)?;
            Some((key.name.clone(), answer))
        })
        .collect()
}

fn chaos(cx: &mut Checker, node: &Node, at: &str) -> Vec<ToolFailure> {
    let Some(mut f) = cx.map(node, at) else {
        return Vec::new();
    };
    let rules = f.get("tool_failures");
    cx.unknown_keys(&f, at, UnknownKeys::Error);
    let at = ptr(at, "tool_failures");
    let Some(items) = rules.and_then(|n| cx.list(n, &at)) else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| tool_failure(cx, item, &ptr(&at, i)))
        .collect()
}

fn tool_failure(cx: &mut Checker, node: &Node, at: &str) -> Option<ToolFailure> {
    let mut f = cx.map(node, at)?;
    let tool = match f.get("tool") {
        Some(n) => cx.nonempty_string(n, &ptr(at, "tool")),
        None => {
            cx.error(node.pos, format!("{at}: missing key `tool`"));
            None
        }
    };
    let mode = match f.get("mode") {
        Some(n) => cx.choice(n, &ptr(at, "mode"), FailureMode::WIRE),
        None => {
            cx.error(node.pos, format!("{at}: missing key `mode`"));
            None
        }
    };
    let probability = match f.get("probability") {
        Some(n) => {
            let p = cx.number(n, &ptr(at, "probability"))?;
            if !(0.0..=1.0).contains(&p) {
                cx.error(n.pos, format!("{at}/probability: must be between 0 and 1"));
                return None;
            }
            p
        }
        None => 1.0,
    };
    let message = f
        .get("message")
        .and_then(|n| cx.string(n, &ptr(at, "message")));
    cx.unknown_keys(&f, at, UnknownKeys::Error);
    Some(ToolFailure {
        tool: tool?,
        mode: mode?,
        probability,
        message,
    })
}

#[cfg(test)]
mod tests;
