//! A `kind: Persona` file: the simulated user of self-play turns, read as
//! PromptArena reads it (a K8s-style manifest whose `metadata.name` is its id), and
//! the system prompt it speaks from: its `system_template` rendered with its goals,
//! constraints and style, else its plain `system_prompt`.

use std::collections::HashMap;
use std::path::Path;

use indexmap::IndexMap;

use crate::doc::{
    Checker, Diagnostic, Fields, Loaded, Node, Rejected, UnknownKeys, finish, parse_by_extension,
};
use crate::suite::scenario_file::string_map;
use crate::template::Template;

/// The only API version there is.
const API_VERSION: &str = "promptkit.altairalabs.ai/v1alpha1";

/// The temperature and seed a persona plays with when it names none.
const DEFAULT_TEMPERATURE: f64 = 0.7;
const DEFAULT_SEED: i64 = 42;

/// One persona, resolved.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Persona {
    pub id: String,
    pub description: String,
    /// The system prompt the persona's model is given.
    pub system_prompt: String,
    pub goals: Vec<String>,
    pub constraints: Vec<String>,
    pub style: Style,
    pub temperature: f64,
    pub seed: i64,
}

/// `spec.style`.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Style {
    pub verbosity: Option<String>,
    pub challenge_level: Option<String>,
    pub friction_tags: Vec<String>,
}

const LEVELS: &[(&str, &str)] = &[("low", "low"), ("medium", "medium"), ("high", "high")];
const VERBOSITY: &[(&str, &str)] = &[("short", "short"), ("medium", "medium"), ("long", "long")];

/// Spec keys PromptArena reads that promptexec does not act on.
const UNPLAYED_SPEC_KEYS: &[&str] = &["voice", "prompt_activity"];

/// Reads the persona at `path`, with every problem at its `FILE:LINE:COL`.
pub(crate) fn load(path: &Path) -> Result<Loaded<Persona>, Rejected> {
    let text = std::fs::read_to_string(path).map_err(|err| {
        Rejected(Diagnostic::whole_file(path, format!("cannot read file: {err}")).into())
    })?;
    let root = parse_by_extension(path, &text).map_err(|d| Rejected(d.into()))?;
    let mut cx = Checker::new(path, text);
    match resolve(&mut cx, &root) {
        Some(persona) => finish(persona, cx.diagnostics),
        None => Err(Rejected(cx.diagnostics)),
    }
}

fn resolve(cx: &mut Checker, root: &Node) -> Option<Persona> {
    let mut top = cx.map(root, "the persona")?;
    header(cx, &mut top, root);
    let name = top.get("metadata").and_then(|node| metadata_name(cx, node));
    if top.get("metadata").is_none() {
        cx.error(root.pos, "the persona: missing key `metadata`");
    }
    let spec_node = top.get("spec");
    top.allow(&["$schema"]);
    cx.unknown_keys(&top, "the persona", UnknownKeys::Warn);
    let Some(spec_node) = spec_node else {
        cx.error(root.pos, "the persona: missing key `spec`");
        return None;
    };
    let mut spec = cx.map(spec_node, "/spec")?;
    let text = |cx: &mut Checker, spec: &mut Fields<'_>, key: &'static str| {
        spec.get(key)
            .and_then(|n| cx.string(n, &format!("/spec/{key}")))
    };
    let description = text(cx, &mut spec, "description").unwrap_or_default();
    let system_prompt = text(cx, &mut spec, "system_prompt");
    let system_template = spec.get("system_template").and_then(|n| {
        let source = cx.string(n, "/spec/system_template")?;
        match Template::parse(&source) {
            Ok(template) => Some(template),
            Err(errors) => {
                let first = errors.first().map(|e| e.to_string()).unwrap_or_default();
                cx.error(n.pos, format!("/spec/system_template: {first}"));
                None
            }
        }
    });
    let strings = |cx: &mut Checker, spec: &mut Fields<'_>, key: &'static str| -> Vec<String> {
        spec.get(key)
            .and_then(|n| cx.string_list(n, &format!("/spec/{key}")))
            .map(|list| list.into_iter().map(|(s, _)| s).collect())
            .unwrap_or_default()
    };
    let goals = strings(cx, &mut spec, "goals");
    let constraints = strings(cx, &mut spec, "constraints");
    let required_vars = strings(cx, &mut spec, "required_vars");
    let optional_vars = spec
        .get("optional_vars")
        .map(|n| string_map(cx, n, "/spec/optional_vars"))
        .unwrap_or_default();
    let style = spec.get("style").map(|n| style(cx, n)).unwrap_or_default();
    let (temperature, seed) = spec
        .get("defaults")
        .map_or((None, None), |n| defaults(cx, n));
    if let Some(node) = spec.get("fragments") {
        cx.error(
            node.pos,
            "/spec/fragments: fragment composition is not supported for personas (as in PromptArena); use `system_template` or `system_prompt`",
        );
    }
    // `spec.id` is overwritten by `metadata.name`, as PromptArena does.
    spec.allow(&["id"]);
    cx.ignored_keys(&mut spec, UNPLAYED_SPEC_KEYS, "/spec");
    cx.unknown_keys(&spec, "/spec", UnknownKeys::Warn);
    let id = name?;
    let system_prompt = match (system_template, system_prompt) {
        (Some(template), _) => {
            let vars = template_vars(&id, &goals, &constraints, &style, &optional_vars);
            render(cx, &template, &vars, &required_vars, spec_node)?
        }
        (None, Some(text)) => text,
        (None, None) => {
            cx.error(
                spec_node.pos,
                "/spec: a persona needs `system_template` or `system_prompt`",
            );
            return None;
        }
    };
    Some(Persona {
        id,
        description,
        system_prompt,
        goals,
        constraints,
        style,
        temperature: temperature.unwrap_or(DEFAULT_TEMPERATURE),
        seed: seed.unwrap_or(DEFAULT_SEED),
    })
}

/// `metadata.name`: the persona's id.
fn metadata_name(cx: &mut Checker, node: &Node) -> Option<String> {
    let mut f = cx.map(node, "/metadata")?;
    let name = match f.get("name") {
        Some(n) => cx.nonempty_string(n, "/metadata/name"),
        None => {
            cx.error(node.pos, "/metadata: missing key `name` (the persona's id)");
            None
        }
    };
    f.allow(&["namespace", "labels", "annotations"]);
    cx.unknown_keys(&f, "/metadata", UnknownKeys::Warn);
    name
}

/// The `system_template` rendered with `vars`; a required or used variable with no
/// value is an error at the spec.
fn render(
    cx: &mut Checker,
    template: &Template,
    vars: &HashMap<String, String>,
    required: &[String],
    spec: &Node,
) -> Option<String> {
    if let Some(missing) = required.iter().find(|v| !vars.contains_key(*v)) {
        cx.error(
            spec.pos,
            format!("/spec/required_vars: `{missing}` has no value"),
        );
        return None;
    }
    match template.render(vars) {
        Ok(text) => Some(text),
        Err(unfilled) => {
            let names: Vec<String> = unfilled.0.iter().map(|p| format!("`{}`", p.name)).collect();
            cx.error(
                spec.pos,
                format!(
                    "/spec/system_template: no value for {}; give it in `optional_vars`",
                    names.join(", ")
                ),
            );
            None
        }
    }
}

/// `apiVersion` and `kind: Persona`, as PromptArena requires of a YAML persona.
fn header(cx: &mut Checker, top: &mut Fields<'_>, root: &Node) {
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
        None => cx.error(root.pos, "the persona: missing key `apiVersion`"),
    }
    match top.get("kind") {
        Some(node) => {
            if let Some(kind) = cx.string(node, "/kind")
                && kind != "Persona"
            {
                cx.error(
                    node.pos,
                    format!("/kind: expected `Persona`, found `{kind}`"),
                );
            }
        }
        None => cx.error(root.pos, "the persona: missing key `kind`"),
    }
}

fn style(cx: &mut Checker, node: &Node) -> Style {
    let Some(mut f) = cx.map(node, "/spec/style") else {
        return Style::default();
    };
    let verbosity = f
        .get("verbosity")
        .and_then(|n| cx.choice(n, "/spec/style/verbosity", VERBOSITY))
        .map(str::to_string);
    let challenge_level = f
        .get("challenge_level")
        .and_then(|n| cx.choice(n, "/spec/style/challenge_level", LEVELS))
        .map(str::to_string);
    let friction_tags: Vec<String> = f
        .get("friction_tags")
        .and_then(|n| {
            let list = cx.string_list(n, "/spec/style/friction_tags")?;
            if list.len() > 10 {
                cx.error(
                    n.pos,
                    format!(
                        "/spec/style/friction_tags: {} tags, at most 10 are allowed",
                        list.len()
                    ),
                );
            }
            Some(list.into_iter().map(|(s, _)| s).collect())
        })
        .unwrap_or_default();
    cx.ignored_keys(
        &mut f,
        &["expressive", "characterization_rubric"],
        "/spec/style",
    );
    cx.unknown_keys(&f, "/spec/style", UnknownKeys::Warn);
    Style {
        verbosity,
        challenge_level,
        friction_tags,
    }
}

fn defaults(cx: &mut Checker, node: &Node) -> (Option<f64>, Option<i64>) {
    let Some(mut f) = cx.map(node, "/spec/defaults") else {
        return (None, None);
    };
    let temperature = f
        .get("temperature")
        .and_then(|n| cx.number(n, "/spec/defaults/temperature"));
    let seed = f
        .get("seed")
        .and_then(|n| cx.integer(n, "/spec/defaults/seed"));
    cx.unknown_keys(&f, "/spec/defaults", UnknownKeys::Warn);
    (temperature, seed)
}

/// The values a `system_template` is rendered with, as PromptArena assembles them:
/// the template's `optional_vars`, the self-play context (`context_slot` empty,
/// `domain_hint` `general`, `user_context` `user`), then the persona's own (its goals
/// and constraints joined by `, `, its style, and the region its id ends in), each
/// with PromptArena's default when empty.
fn template_vars(
    id: &str,
    goals: &[String],
    constraints: &[String],
    style: &Style,
    optional: &IndexMap<String, String>,
) -> HashMap<String, String> {
    let mut vars: HashMap<String, String> = optional
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (k, v) in [
        ("context_slot", ""),
        ("domain_hint", "general"),
        ("user_context", "user"),
    ] {
        vars.insert(k.to_string(), v.to_string());
    }
    let or = |value: String, default: &str| {
        if value.is_empty() {
            default.to_string()
        } else {
            value
        }
    };
    let own = [
        (
            "persona_goals",
            or(goals.join(", "), "Interact naturally and helpfully"),
        ),
        (
            "persona_constraints",
            or(constraints.join(", "), "Be respectful and constructive"),
        ),
        (
            "verbosity",
            or(style.verbosity.clone().unwrap_or_default(), "medium"),
        ),
        (
            "challenge_level",
            or(style.challenge_level.clone().unwrap_or_default(), "medium"),
        ),
        ("friction_tags", or(style.friction_tags.join(", "), "none")),
        ("region", region(id).to_string()),
    ];
    for (k, v) in own {
        vars.insert(k.to_string(), v);
    }
    vars
}

/// The region a persona id ends in (`_uk`, `_au`, `_us`); `us` otherwise.
fn region(id: &str) -> &'static str {
    ["uk", "au", "us"]
        .into_iter()
        .find(|r| id.ends_with(&format!("_{r}")))
        .unwrap_or("us")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_text(text: &str) -> Result<Loaded<Persona>, Rejected> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("p.persona.yaml");
        std::fs::write(&path, text).expect("write");
        load(&path)
    }

    const HEAD: &str = "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Persona\nmetadata:\n  name: curious_uk\n";

    #[test]
    fn a_plain_system_prompt_is_taken_as_written_with_the_defaults() {
        let text = format!(
            "{HEAD}spec:\n  id: other\n  description: asks\n  system_prompt: Ask one question.\n  goals: [learn]\n"
        );
        let persona = load_text(&text).expect("valid").value;
        assert_eq!(persona.id, "curious_uk");
        assert_eq!(persona.system_prompt, "Ask one question.");
        assert_eq!(persona.goals, ["learn"]);
        assert_eq!((persona.temperature, persona.seed), (0.7, 42));
    }

    #[test]
    fn a_template_is_rendered_with_goals_style_region_and_optional_vars() {
        let text = format!(
            "{HEAD}spec:\n  system_template: \"{{{{persona_goals}}}} / {{{{persona_constraints}}}} / {{{{verbosity}}}} / {{{{friction_tags}}}} / {{{{region}}}} / {{{{shop}}}}\"\n  goals: [a, b]\n  optional_vars:\n    shop: corner\n  style:\n    verbosity: short\n  defaults:\n    temperature: 0.2\n"
        );
        let persona = load_text(&text).expect("valid").value;
        assert_eq!(
            persona.system_prompt,
            "a, b / Be respectful and constructive / short / none / uk / corner"
        );
        assert_eq!(persona.temperature, 0.2);
    }

    #[test]
    fn problems_are_placed_in_the_file() {
        let text = format!("{HEAD}spec:\n  system_promt: x\n  style:\n    verbosity: loud\n");
        let err = load_text(&text).expect_err("invalid");
        let lines: Vec<String> = err.0.iter().map(|d| d.to_string()).collect();
        assert!(
            lines
                .iter()
                .any(|l| l.contains(":6:3:") && l.contains("did you mean `system_prompt`")),
            "{lines:?}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.contains(":8:16:") && l.contains("verbosity")),
            "{lines:?}"
        );
        let unfilled = format!("{HEAD}spec:\n  system_template: \"{{{{nope}}}}\"\n");
        let err = load_text(&unfilled).expect_err("unfilled");
        assert!(
            err.0.iter().any(|d| d.message.contains("`nope`")),
            "{err:?}"
        );
        let wrong_kind = "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nmetadata: {name: x}\nspec: {system_prompt: y}\n";
        let err = load_text(wrong_kind).expect_err("kind");
        assert!(
            err.0
                .iter()
                .any(|d| d.message.contains("expected `Persona`")),
            "{err:?}"
        );
    }
}
