//! A pack's prompts: their templates, variables with validation, and tool policy.

use indexmap::IndexMap;

use crate::conversation::ToolChoice;
use crate::doc::{Node, UnknownKeys};

use crate::pack::model::*;

use super::document::{Resolver, entries, ptr};

const PROMPT_KEYS_DESCRIPTIVE: &[&str] = &["tested_models", "extensions"];

const PROMPT_KEYS_UNUSED: &[&str] = &[
    "pipeline",
    "parameters",
    "model_overrides",
    "media",
    "provider",
];

impl Resolver<'_> {
    pub(super) fn prompts(&mut self, node: &Node) -> IndexMap<String, Prompt> {
        let mut out = IndexMap::new();
        if self.cx.map(node, "/prompts").is_none() {
            return out;
        }
        if entries(node).is_empty() {
            self.cx.error(
                node.pos,
                "/prompts: empty; a pack needs at least one prompt",
            );
        }
        for (key, value) in entries(node) {
            if let Some(prompt) = self.prompt(&key.name, value) {
                out.insert(key.name.clone(), prompt);
            }
        }
        out
    }

    pub(super) fn prompt(&mut self, key: &str, node: &Node) -> Option<Prompt> {
        let at = ptr("/prompts", key);
        let mut f = self.cx.map(node, &at)?;
        let id = self.required_string(&mut f, node, &at, "id");
        if let Some(id) = &id
            && id != key
        {
            self.cx.error(
                f.get("id").map_or(node.pos, |n| n.pos),
                format!("{at}/id: `{id}` differs from the key `{key}` it is listed under"),
            );
        }
        let name = self.required_string(&mut f, node, &at, "name");
        let version = self.required_string(&mut f, node, &at, "version");
        let description = self.optional_string(&mut f, &at, "description");
        let template_at = ptr(&at, "system_template");
        let system_template = match f.get("system_template") {
            Some(t) => self
                .cx
                .nonempty_string(t, &template_at)
                .and_then(|text| self.template_text(t, &template_at, text)),
            None => {
                self.cx
                    .error(node.pos, format!("{at}: missing key `system_template`"));
                None
            }
        };
        let variables = match f.get("variables") {
            Some(v) => self.variables(v, &ptr(&at, "variables")),
            None => Vec::new(),
        };
        let tools = f
            .get("tools")
            .and_then(|t| self.cx.string_list(t, &ptr(&at, "tools")))
            .unwrap_or_default();
        let tool_policy = match f.get("tool_policy") {
            Some(p) => self.tool_policy(p, &ptr(&at, "tool_policy")),
            None => ToolPolicy::default(),
        };
        let evals = match f.get("evals") {
            Some(e) => self.evals(e, &ptr(&at, "evals")),
            None => Vec::new(),
        };
        let validators = match f.get("validators") {
            Some(v) => self.validators(v, &ptr(&at, "validators")),
            None => Vec::new(),
        };
        f.allow(PROMPT_KEYS_DESCRIPTIVE);
        self.cx.ignored_keys(&mut f, PROMPT_KEYS_UNUSED, &at);
        self.cx.unknown_keys(&f, &at, UnknownKeys::Error);
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
            validators,
            pos: node.pos,
        })
    }

    pub(super) fn variables(&mut self, node: &Node, at: &str) -> Vec<Variable> {
        let Some(items) = self.cx.list(node, at) else {
            return Vec::new();
        };
        let mut out: Vec<Variable> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let at = ptr(at, i);
            let Some(mut f) = self.cx.map(item, &at) else {
                continue;
            };
            let name = self.required_string(&mut f, item, &at, "name");
            let var_type = match f.get("type") {
                Some(t) => self.cx.choice(t, &ptr(&at, "type"), VarType::WIRE),
                None => Some(VarType::String),
            };
            let required = f
                .get("required")
                .and_then(|r| self.cx.boolean(r, &ptr(&at, "required")))
                .unwrap_or(false);
            let default = f.get("default").map(Node::to_json);
            let description = self.optional_string(&mut f, &at, "description");
            let validation = match f.get("validation") {
                Some(v) => self.validation(v, &ptr(&at, "validation")),
                None => Some(Validation::default()),
            };
            f.allow(&["example"]);
            self.cx.ignored_keys(&mut f, &["binding"], &at);
            self.cx.unknown_keys(&f, &at, UnknownKeys::Error);
            let (Some(name), Some(var_type), Some(validation)) = (name, var_type, validation)
            else {
                continue;
            };
            if out.iter().any(|v| v.name == name) {
                self.cx.error(
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

    pub(super) fn validation(&mut self, node: &Node, at: &str) -> Option<Validation> {
        let mut f = self.cx.map(node, at)?;
        let mut ok = true;
        let pattern = match f.get("pattern") {
            Some(p) => match self
                .cx
                .string(p, &ptr(at, "pattern"))
                .map(|s| regex::Regex::new(&s))
            {
                Some(Ok(re)) => Some(re),
                Some(Err(err)) => {
                    self.cx.error(
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
            .and_then(|e| self.cx.list(e, &ptr(at, "enum")))
            .map(|items| items.iter().map(Node::to_json).collect());
        let min_length = f
            .get("min_length")
            .and_then(|n| self.cx.non_negative_integer(n, &ptr(at, "min_length")));
        let max_length = f
            .get("max_length")
            .and_then(|n| self.cx.non_negative_integer(n, &ptr(at, "max_length")));
        let minimum = f
            .get("minimum")
            .and_then(|n| self.cx.number(n, &ptr(at, "minimum")));
        let maximum = f
            .get("maximum")
            .and_then(|n| self.cx.number(n, &ptr(at, "maximum")));
        self.cx.unknown_keys(&f, at, UnknownKeys::Error);
        ok.then_some(Validation {
            pattern,
            allowed,
            min_length,
            max_length,
            minimum,
            maximum,
        })
    }

    pub(super) fn tool_policy(&mut self, node: &Node, at: &str) -> ToolPolicy {
        let mut policy = ToolPolicy::default();
        let Some(mut f) = self.cx.map(node, at) else {
            return policy;
        };
        if let Some(choice) = f
            .get("tool_choice")
            .and_then(|n| self.cx.choice(n, &ptr(at, "tool_choice"), ToolChoice::WIRE))
        {
            policy.tool_choice = choice;
        }
        // As in PromptKit, a limit of 0 is no limit given: the default stands.
        let mut limit = |key: &'static str| {
            f.get(key)
                .and_then(|n| self.cx.non_negative_integer(n, &ptr(at, key)))
                .filter(|n| *n > 0)
        };
        if let Some(n) = limit("max_rounds") {
            policy.max_rounds = n;
        }
        if let Some(n) = limit("max_tool_calls_per_turn") {
            policy.max_tool_calls_per_turn = n;
        }
        if let Some(list) = f
            .get("blocklist")
            .and_then(|n| self.cx.string_list(n, &ptr(at, "blocklist")))
        {
            policy.blocklist = list.into_iter().map(|(s, _)| s).collect();
        }
        self.cx.unknown_keys(&f, at, UnknownKeys::Error);
        policy
    }
}
