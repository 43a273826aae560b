//! What the mock answers a persona: PromptKit's mock-responses file keeps the
//! simulated user's messages in a `selfplay` section keyed by persona id, each with
//! numbered `turns` and a `defaultResponse`. A message missing there is taken from
//! the scenario's own section (its turn of the same number, its default, then the
//! file's default), as PromptKit's mock repository does.

use std::collections::BTreeMap;
use std::path::Path;

use indexmap::IndexMap;

use crate::doc::{Checker, Diagnostic, Diagnostics, Node, UnknownKeys, Value, parse_by_extension};
use crate::provider::{MockScript, Rule, load_mock};

/// One persona's scripted messages.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PersonaScript {
    pub default_response: Option<String>,
    /// By the 1-based number PromptArena asks for.
    pub turns: BTreeMap<u64, String>,
}

/// The mock file of a self-play role's provider: its `selfplay` section and the
/// rest of the script.
#[derive(Debug, Clone, Default)]
pub(crate) struct RoleScript {
    pub personas: IndexMap<String, PersonaScript>,
    pub script: MockScript,
}

impl RoleScript {
    /// Reads the mock file at `path`; a file with errors gives them back.
    pub(crate) fn load(path: &Path) -> Result<(RoleScript, Diagnostics), Diagnostics> {
        let loaded = load_mock(path).map_err(|rejected| rejected.0)?;
        // The mock loader warns that it does not read `selfplay`: it is read here.
        let mut warnings: Diagnostics = loaded
            .warnings
            .iter()
            .filter(|d| !d.message.contains("`selfplay`"))
            .cloned()
            .collect();
        let text = std::fs::read_to_string(path)
            .map_err(|err| Diagnostics::from(Diagnostic::whole_file(path, err.to_string())))?;
        let root = parse_by_extension(path, &text).map_err(Diagnostics::from)?;
        let mut cx = Checker::new(path, text);
        let personas = selfplay(&mut cx, &root);
        if cx.diagnostics.has_errors() {
            return Err(cx.diagnostics);
        }
        warnings.extend(cx.diagnostics);
        let script = RoleScript {
            personas,
            script: loaded.value,
        };
        Ok((script, warnings))
    }

    /// The message of `persona` numbered `number` in scenario `scenario`, and which
    /// rule gave it, in words.
    pub(crate) fn answer(&self, persona: &str, scenario: &str, number: u64) -> (String, String) {
        if let Some(script) = self.personas.get(persona) {
            if let Some(text) = script.turns.get(&number) {
                return (
                    text.clone(),
                    format!("mock selfplay `{persona}` turn {number}"),
                );
            }
            if let Some(text) = &script.default_response {
                return (
                    text.clone(),
                    format!("mock selfplay `{persona}` defaultResponse"),
                );
            }
        }
        let (turn, rule) = self.script.clone().respond(scenario, number);
        let by = match rule {
            Rule::ScenarioTurn => format!("scenario `{scenario}` turn {number}"),
            Rule::ScenarioDefault => format!("scenario `{scenario}` defaultResponse"),
            Rule::GlobalDefault => "the global defaultResponse".to_string(),
            Rule::Fallback => "the fixed fallback text".to_string(),
        };
        (turn.content, format!("mock {by}"))
    }
}

/// The `selfplay` section: persona id to its script.
fn selfplay(cx: &mut Checker, root: &Node) -> IndexMap<String, PersonaScript> {
    let mut out = IndexMap::new();
    let Value::Map(entries) = &root.value else {
        return out;
    };
    let Some((_, node)) = entries.iter().find(|(k, _)| k.name == "selfplay") else {
        return out;
    };
    if cx.map(node, "selfplay").is_none() {
        return out;
    }
    let Value::Map(personas) = &node.value else {
        return out;
    };
    for (key, value) in personas {
        let at = format!("selfplay.{}", key.name);
        let Some(mut f) = cx.map(value, &at) else {
            continue;
        };
        let mut script = PersonaScript {
            default_response: f
                .get("defaultResponse")
                .and_then(|n| cx.string(n, &format!("{at}.defaultResponse"))),
            ..PersonaScript::default()
        };
        if let Some(turns) = f.get("turns")
            && cx.map(turns, &format!("{at}.turns")).is_some()
            && let Value::Map(items) = &turns.value
        {
            for (k, v) in items {
                let what = format!("{at}.turns.{}", k.name);
                let Some(number) = k.name.parse::<u64>().ok().filter(|n| *n > 0) else {
                    cx.error(k.pos, format!("{what}: a turn key is a number from 1"));
                    continue;
                };
                if let Some(text) = message(cx, v, &what) {
                    script.turns.insert(number, text);
                }
            }
        }
        cx.unknown_keys(&f, &at, UnknownKeys::Warn);
        out.insert(key.name.clone(), script);
    }
    out
}

/// A scripted message: a string, or a map with its text in `content`.
fn message(cx: &mut Checker, node: &Node, at: &str) -> Option<String> {
    if let Value::Str(text) = &node.value {
        return Some(text.clone());
    }
    let mut f = cx.map(node, at)?;
    let text = ["content", "text", "response"].into_iter().find_map(|key| {
        f.get(key)
            .and_then(|n| cx.string(n, &format!("{at}.{key}")))
    });
    f.allow(&["type", "parts"]);
    cx.unknown_keys(&f, at, UnknownKeys::Warn);
    if text.is_none() {
        cx.error(
            node.pos,
            format!("{at}: a self-play message needs `content`"),
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn persona_turns_then_its_default_then_the_scenario_section() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("mock.yaml");
        std::fs::write(
            &path,
            "defaultResponse: global\nscenarios:\n  s:\n    turns:\n      3: from the scenario\nselfplay:\n  learner:\n    turns:\n      1: first question\n  quiet:\n    defaultResponse: hm\n",
        )
        .expect("write");
        let (script, warnings) = RoleScript::load(&path).expect("valid");
        assert!(warnings.iter().next().is_none(), "{warnings:?}");
        assert_eq!(script.answer("learner", "s", 1).0, "first question");
        assert_eq!(script.answer("learner", "s", 3).0, "from the scenario");
        assert_eq!(script.answer("quiet", "s", 1).0, "hm");
        assert_eq!(script.answer("other", "t", 1).0, "global");
    }
}
