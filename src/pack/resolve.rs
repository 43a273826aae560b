//! Walks a parsed PromptPack document into [`Pack`]. A key PromptKit defines but
//! promptexec does not apply is a warning; a key nobody defines is an error, since a
//! typo must not silently change what runs.

use std::path::Path;

use indexmap::IndexMap;
use serde_json::Value as Json;

use crate::doc::{Checker, Fields, JsonStringCursor, Node, UnknownKeys, Value};
use crate::template::Template;

use super::model::*;

/// Keys that only describe the pack; nothing would act on them.
const TOP_KEYS_DESCRIPTIVE: &[&str] = &["$schema", "metadata", "compilation"];

/// Keys PromptKit defines and promptexec does not apply: each is a warning.
const TOP_KEYS_UNUSED: &[&str] = &["workflow", "agents", "skills", "compositions", "requires"];

const PROMPT_KEYS_DESCRIPTIVE: &[&str] = &["tested_models", "extensions"];

/// `validators` are the prompt's guardrails: a user must know they do not run.
const PROMPT_KEYS_UNUSED: &[&str] = &[
    "pipeline",
    "parameters",
    "validators",
    "model_overrides",
    "media",
    "provider",
];

/// Appends one segment to a JSON pointer, escaped as RFC 6901 asks.
fn ptr(base: &str, segment: impl std::fmt::Display) -> String {
    let segment = segment.to_string().replace('~', "~0").replace('/', "~1");
    format!("{base}/{segment}")
}

pub fn resolve(root: &Node, path: &Path, cx: &mut Checker) -> Option<Pack> {
    let mut top = cx.map(root, "the pack")?;
    let id = required_string(cx, &mut top, root, "", "id");
    let name = required_string(cx, &mut top, root, "", "name");
    let version = required_string(cx, &mut top, root, "", "version");
    let description = optional_string(cx, &mut top, "", "description");
    let fragments = match top.get("fragments") {
        Some(node) => fragments(cx, node),
        None => IndexMap::new(),
    };
    let tools = match top.get("tools") {
        Some(node) => tools(cx, node),
        None => IndexMap::new(),
    };
    let evals = match top.get("evals") {
        Some(node) => evals(cx, node, "/evals"),
        None => Vec::new(),
    };
    let prompts = match top.get("prompts") {
        Some(node) => prompts(cx, node),
        None => {
            cx.error(
                root.pos,
                "missing key `prompts`: a pack needs at least one prompt",
            );
            IndexMap::new()
        }
    };
    if let Some(node) = top.get("template_engine") {
        template_engine(cx, node);
    }
    top.allow(TOP_KEYS_DESCRIPTIVE);
    cx.ignored_keys(&mut top, TOP_KEYS_UNUSED, "the pack");
    cx.unknown_keys(&top, "the pack", UnknownKeys::Error);
    Some(Pack {
        path: path.to_path_buf(),
        text: cx.text.clone(),
        id: id?,
        name: name?,
        version: version?,
        description,
        prompts,
        tools,
        evals,
        fragments,
    })
}

/// The engine promptexec has is `{{variable}}` with fragments; a pack asking for
/// another syntax or for more features is told they are not applied.
fn template_engine(cx: &mut Checker, node: &Node) {
    let at = "/template_engine";
    let Some(mut f) = cx.map(node, at) else {
        return;
    };
    if let Some(n) = f.get("syntax")
        && let Some(syntax) = cx.string(n, &ptr(at, "syntax"))
        && syntax != "{{variable}}"
    {
        cx.warning(
            n.pos,
            format!("{at}/syntax: `{syntax}` is not applied; promptexec renders `{{{{variable}}}}` placeholders only"),
        );
    }
    if let Some(features) = f
        .get("features")
        .and_then(|n| cx.string_list(n, &ptr(at, "features")))
    {
        for (feature, pos) in features {
            if !matches!(feature.as_str(), "basic_substitution" | "fragments") {
                cx.warning(
                    pos,
                    format!("{at}/features: `{feature}` is not applied; promptexec supports `basic_substitution` and `fragments`"),
                );
            }
        }
    }
    f.allow(&["version"]);
    cx.unknown_keys(&f, at, UnknownKeys::Error);
}

fn required_string(
    cx: &mut Checker,
    f: &mut Fields<'_>,
    parent: &Node,
    at: &str,
    key: &'static str,
) -> Option<String> {
    match f.get(key) {
        Some(node) => cx.nonempty_string(node, &ptr(at, key)),
        None => {
            let place = if at.is_empty() { "the pack" } else { at };
            cx.error(parent.pos, format!("{place}: missing key `{key}`"));
            None
        }
    }
}

fn optional_string(
    cx: &mut Checker,
    f: &mut Fields<'_>,
    at: &str,
    key: &'static str,
) -> Option<String> {
    f.get(key).and_then(|node| cx.string(node, &ptr(at, key)))
}

fn entries(node: &Node) -> &[(crate::doc::Key, Node)] {
    match &node.value {
        Value::Map(entries) => entries,
        _ => &[],
    }
}

fn template_text(cx: &mut Checker, node: &Node, at: &str, text: String) -> Option<TemplateText> {
    let template = match Template::parse(&text) {
        Ok(t) => t,
        Err(errors) => {
            let mut file = JsonStringCursor::new(&cx.text, node.offset, node.pos);
            let placed: Vec<_> = errors.iter().map(|e| file.locate(e.offset)).collect();
            for (e, pos) in errors.iter().zip(placed) {
                cx.error(pos, format!("{at}: {e}"));
            }
            return None;
        }
    };
    Some(TemplateText {
        template,
        offset: node.offset,
        pos: node.pos,
    })
}

fn fragments(cx: &mut Checker, node: &Node) -> IndexMap<String, TemplateText> {
    let mut out = IndexMap::new();
    if cx.map(node, "/fragments").is_none() {
        return out;
    }
    for (key, value) in entries(node) {
        let at = ptr("/fragments", &key.name);
        if let Some(text) = cx.string(value, &at)
            && let Some(t) = template_text(cx, value, &at, text)
        {
            out.insert(key.name.clone(), t);
        }
    }
    out
}

fn tools(cx: &mut Checker, node: &Node) -> IndexMap<String, ToolDef> {
    let mut out = IndexMap::new();
    if cx.map(node, "/tools").is_none() {
        return out;
    }
    for (key, value) in entries(node) {
        let at = ptr("/tools", &key.name);
        let Some(mut f) = cx.map(value, &at) else {
            continue;
        };
        let name = required_string(cx, &mut f, value, &at, "name");
        if let Some(name) = &name
            && *name != key.name
        {
            cx.error(
                f.get("name").map_or(value.pos, |n| n.pos),
                format!(
                    "{at}/name: `{name}` differs from the key `{}` it is listed under",
                    key.name
                ),
            );
        }
        let description = required_string(cx, &mut f, value, &at, "description");
        let parameters = match f.get("parameters") {
            Some(p) => {
                cx.map(p, &ptr(&at, "parameters"));
                p.to_json()
            }
            None => serde_json::json!({"type": "object"}),
        };
        cx.ignored_keys(&mut f, &["action_scope"], &at);
        cx.unknown_keys(&f, &at, UnknownKeys::Error);
        if let (Some(_), Some(description)) = (name, description) {
            out.insert(
                key.name.clone(),
                ToolDef {
                    name: key.name.clone(),
                    description,
                    parameters,
                    pos: key.pos,
                },
            );
        }
    }
    out
}

fn prompts(cx: &mut Checker, node: &Node) -> IndexMap<String, Prompt> {
    let mut out = IndexMap::new();
    if cx.map(node, "/prompts").is_none() {
        return out;
    }
    if entries(node).is_empty() {
        cx.error(
            node.pos,
            "/prompts: empty; a pack needs at least one prompt",
        );
    }
    for (key, value) in entries(node) {
        if let Some(prompt) = prompt(cx, &key.name, value) {
            out.insert(key.name.clone(), prompt);
        }
    }
    out
}

fn prompt(cx: &mut Checker, key: &str, node: &Node) -> Option<Prompt> {
    let at = ptr("/prompts", key);
    let mut f = cx.map(node, &at)?;
    let id = required_string(cx, &mut f, node, &at, "id");
    if let Some(id) = &id
        && id != key
    {
        cx.error(
            f.get("id").map_or(node.pos, |n| n.pos),
            format!("{at}/id: `{id}` differs from the key `{key}` it is listed under"),
        );
    }
    let name = required_string(cx, &mut f, node, &at, "name");
    let version = required_string(cx, &mut f, node, &at, "version");
    let description = optional_string(cx, &mut f, &at, "description");
    let template_at = ptr(&at, "system_template");
    let system_template = match f.get("system_template") {
        Some(t) => cx
            .nonempty_string(t, &template_at)
            .and_then(|text| template_text(cx, t, &template_at, text)),
        None => {
            cx.error(node.pos, format!("{at}: missing key `system_template`"));
            None
        }
    };
    let variables = match f.get("variables") {
        Some(v) => variables(cx, v, &ptr(&at, "variables")),
        None => Vec::new(),
    };
    let tools = f
        .get("tools")
        .and_then(|t| cx.string_list(t, &ptr(&at, "tools")))
        .unwrap_or_default();
    let tool_policy = match f.get("tool_policy") {
        Some(p) => tool_policy(cx, p, &ptr(&at, "tool_policy")),
        None => ToolPolicy::default(),
    };
    let evals = match f.get("evals") {
        Some(e) => evals(cx, e, &ptr(&at, "evals")),
        None => Vec::new(),
    };
    f.allow(PROMPT_KEYS_DESCRIPTIVE);
    cx.ignored_keys(&mut f, PROMPT_KEYS_UNUSED, &at);
    cx.unknown_keys(&f, &at, UnknownKeys::Error);
    Some(Prompt {
        id: id?,
        name: name?,
        version: version?,
        description,
        system_template: system_template?,
        variables,
        tools,
        tool_policy,
        evals,
        pos: node.pos,
    })
}

fn variables(cx: &mut Checker, node: &Node, at: &str) -> Vec<Variable> {
    let Some(items) = cx.list(node, at) else {
        return Vec::new();
    };
    let mut out: Vec<Variable> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = ptr(at, i);
        let Some(mut f) = cx.map(item, &at) else {
            continue;
        };
        let name = required_string(cx, &mut f, item, &at, "name");
        let var_type = match f.get("type") {
            Some(t) => cx.choice(t, &ptr(&at, "type"), VarType::WIRE),
            None => Some(VarType::String),
        };
        let required = f
            .get("required")
            .and_then(|r| cx.boolean(r, &ptr(&at, "required")))
            .unwrap_or(false);
        let default = f.get("default").map(Node::to_json);
        let description = optional_string(cx, &mut f, &at, "description");
        let validation = match f.get("validation") {
            Some(v) => validation(cx, v, &ptr(&at, "validation")),
            None => Some(Validation::default()),
        };
        f.allow(&["example"]);
        cx.ignored_keys(&mut f, &["binding"], &at);
        cx.unknown_keys(&f, &at, UnknownKeys::Error);
        let (Some(name), Some(var_type), Some(validation)) = (name, var_type, validation) else {
            continue;
        };
        if out.iter().any(|v| v.name == name) {
            cx.error(
                item.pos,
                format!("{at}: variable `{name}` is declared twice"),
            );
            continue;
        }
        out.push(Variable {
            name,
            var_type,
            required,
            default,
            description,
            validation,
            pos: item.pos,
        });
    }
    out
}

fn validation(cx: &mut Checker, node: &Node, at: &str) -> Option<Validation> {
    let mut f = cx.map(node, at)?;
    let mut ok = true;
    let pattern = match f.get("pattern") {
        Some(p) => match cx
            .string(p, &ptr(at, "pattern"))
            .map(|s| regex::Regex::new(&s))
        {
            Some(Ok(re)) => Some(re),
            Some(Err(err)) => {
                cx.error(
                    p.pos,
                    format!("{at}/pattern: not a valid regular expression: {err}"),
                );
                ok = false;
                None
            }
            None => None,
        },
        None => None,
    };
    let allowed = f
        .get("enum")
        .and_then(|e| cx.list(e, &ptr(at, "enum")))
        .map(|items| items.iter().map(Node::to_json).collect());
    let min_length = f
        .get("min_length")
        .and_then(|n| cx.non_negative_integer(n, &ptr(at, "min_length")));
    let max_length = f
        .get("max_length")
        .and_then(|n| cx.non_negative_integer(n, &ptr(at, "max_length")));
    let minimum = f
        .get("minimum")
        .and_then(|n| cx.number(n, &ptr(at, "minimum")));
    let maximum = f
        .get("maximum")
        .and_then(|n| cx.number(n, &ptr(at, "maximum")));
    cx.unknown_keys(&f, at, UnknownKeys::Error);
    ok.then_some(Validation {
        pattern,
        allowed,
        min_length,
        max_length,
        minimum,
        maximum,
    })
}

fn tool_policy(cx: &mut Checker, node: &Node, at: &str) -> ToolPolicy {
    let mut policy = ToolPolicy::default();
    let Some(mut f) = cx.map(node, at) else {
        return policy;
    };
    if let Some(choice) = f
        .get("tool_choice")
        .and_then(|n| cx.choice(n, &ptr(at, "tool_choice"), ToolChoice::WIRE))
    {
        policy.tool_choice = choice;
    }
    if let Some(n) = f
        .get("max_rounds")
        .and_then(|n| cx.positive_integer(n, &ptr(at, "max_rounds")))
    {
        policy.max_rounds = n;
    }
    if let Some(n) = f
        .get("max_tool_calls_per_turn")
        .and_then(|n| cx.positive_integer(n, &ptr(at, "max_tool_calls_per_turn")))
    {
        policy.max_tool_calls_per_turn = n;
    }
    if let Some(list) = f
        .get("blocklist")
        .and_then(|n| cx.string_list(n, &ptr(at, "blocklist")))
    {
        policy.blocklist = list.into_iter().map(|(s, _)| s).collect();
    }
    cx.unknown_keys(&f, at, UnknownKeys::Error);
    policy
}

fn evals(cx: &mut Checker, node: &Node, at: &str) -> Vec<EvalDef> {
    let Some(items) = cx.list(node, at) else {
        return Vec::new();
    };
    let mut out: Vec<EvalDef> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = ptr(at, i);
        let Some(eval) = eval(cx, item, &at) else {
            continue;
        };
        if out.iter().any(|e| e.id == eval.id) {
            cx.error(
                item.pos,
                format!("{at}: eval id `{}` is used twice", eval.id),
            );
            continue;
        }
        out.push(eval);
    }
    out
}

fn eval(cx: &mut Checker, node: &Node, at: &str) -> Option<EvalDef> {
    let mut f = cx.map(node, at)?;
    let id = required_string(cx, &mut f, node, at, "id");
    let eval_type = required_string(cx, &mut f, node, at, "type");
    let trigger = match f.get("trigger") {
        Some(t) => cx.choice(t, &ptr(at, "trigger"), Trigger::WIRE),
        None => {
            cx.error(node.pos, format!("{at}: missing key `trigger`"));
            None
        }
    };
    let params = match f.get("params") {
        Some(p) => {
            cx.map(p, &ptr(at, "params"));
            p.to_json()
        }
        None => Json::Object(Default::default()),
    };
    let metric = f.get("metric").map(|m| {
        cx.map(m, &ptr(at, "metric"));
        m.to_json()
    });
    let threshold = f
        .get("threshold")
        .and_then(|t| threshold(cx, t, &ptr(at, "threshold")));
    let sample_percentage = f
        .get("sample_percentage")
        .and_then(|n| cx.number(n, &ptr(at, "sample_percentage")))
        .unwrap_or(5.0);
    if !(0.0..=100.0).contains(&sample_percentage) {
        cx.error(
            node.pos,
            format!("{at}/sample_percentage: must be between 0 and 100"),
        );
    }
    let enabled = f
        .get("enabled")
        .and_then(|n| cx.boolean(n, &ptr(at, "enabled")))
        .unwrap_or(true);
    let description = optional_string(cx, &mut f, at, "description");
    let when = f
        .get("when")
        .map(|w| when(cx, w, &ptr(at, "when")))
        .unwrap_or_default();
    f.allow(&["message", "groups", "extensions"]);
    // A misspelt `threshold` would quietly turn a gate into a measurement.
    cx.unknown_keys(&f, at, UnknownKeys::Error);
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
    })
}

/// `when`: `tool_called`, `tool_called_pattern` (a regex), `any_tool_called`,
/// `min_tool_calls`.
fn when(cx: &mut Checker, node: &Node, at: &str) -> When {
    let Some(mut f) = cx.map(node, at) else {
        return When::default();
    };
    let tool_called = optional_string(cx, &mut f, at, "tool_called");
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

crate::wire_enum! {
    /// A threshold's `operator`: which bound `value` is, and whether it is included.
    enum Operator { Gte = "gte", Gt = "gt", Lte = "lte", Lt = "lt", Eq = "eq" }
}

/// `{min_score, max_score}` (inclusive) or the pack format's `{operator, value}`.
fn threshold(cx: &mut Checker, node: &Node, at: &str) -> Option<Threshold> {
    let mut f = cx.map(node, at)?;
    let inclusive = |value| Bound {
        value,
        inclusive: true,
    };
    let mut t = Threshold {
        min: f
            .get("min_score")
            .and_then(|n| cx.number(n, &ptr(at, "min_score")))
            .map(inclusive),
        max: f
            .get("max_score")
            .and_then(|n| cx.number(n, &ptr(at, "max_score")))
            .map(inclusive),
    };
    let operator = f.get("operator");
    let value = f.get("value");
    match (operator, value) {
        (Some(op), Some(v)) => {
            let op = cx.choice(op, &ptr(at, "operator"), Operator::WIRE);
            let v = cx.number(v, &ptr(at, "value"));
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
            cx.error(
                node.pos,
                format!("{at}: `operator` and `value` go together"),
            );
        }
        (None, None) => {}
    }
    cx.unknown_keys(&f, at, UnknownKeys::Error);
    if t.min.is_none() && t.max.is_none() {
        cx.error(
            node.pos,
            format!("{at}: give `min_score`, `max_score`, or `operator` with `value`"),
        );
        return None;
    }
    Some(t)
}
