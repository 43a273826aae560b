//! The PromptKit mock-responses format:
//!
//! ```yaml
//! defaultResponse: "text for any call nothing else answers"
//! scenarios:
//!   support:                  # chosen with --scenario (default: the prompt id)
//!     defaultResponse: "…"
//!     turns:
//!       1: "a plain answer to the first model call"
//!       2:
//!         content: "an answer that calls tools"
//!         tool_calls:
//!           - name: lookup_order
//!             arguments: { order_id: A-1002 }
//! ```
//!
//! A call is answered by the scenario's turn with its 1-based number, else the
//! scenario's default, else the global default, else a fixed text.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde_json::Value as Json;

use crate::doc::{
    Checker, Diagnostic, Loaded, Node, Pos, Rejected, UnknownKeys, Value, finish, one_of,
    parse_by_extension, suggest,
};

/// The text when nothing in the script answers.
pub(super) const FALLBACK_TEXT: &str = "Mock response";

#[derive(Debug, Clone, Default)]
pub struct MockScript {
    pub default_response: Option<String>,
    pub scenarios: IndexMap<String, Scenario>,
    /// The file it was read from; `None` when there is none.
    pub path: Option<PathBuf>,
    /// Where `scenarios` is written (else the document's start), for messages about it.
    pub scenarios_pos: Pos,
}

#[derive(Debug, Clone, Default)]
pub struct Scenario {
    pub default_response: Option<String>,
    /// By 1-based call number.
    pub turns: BTreeMap<u64, MockTurn>,
}

/// One scripted model answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MockTurn {
    pub content: String,
    pub tool_calls: Vec<ScriptedCall>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ScriptedCall {
    pub name: String,
    pub arguments: Json,
}

/// Which rule answered a call, for `-v` traces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    ScenarioTurn,
    ScenarioDefault,
    GlobalDefault,
    Fallback,
}

impl MockScript {
    /// The answer to call number `call` (from 1) of `scenario`, and the rule that gave it.
    /// A scripted turn is taken out of the script: each call number is asked for once,
    /// and a long script is not held twice, as script and as history.
    pub fn respond(&mut self, scenario: &str, call: u64) -> (MockTurn, Rule) {
        if let Some(turn) = self
            .scenarios
            .get_mut(scenario)
            .and_then(|s| s.turns.remove(&call))
        {
            return (turn, Rule::ScenarioTurn);
        }
        let found = self.scenarios.get(scenario);
        let text = |t: &str| MockTurn {
            content: t.to_string(),
            tool_calls: Vec::new(),
        };
        if let Some(default) = found.and_then(|s| s.default_response.as_deref()) {
            return (text(default), Rule::ScenarioDefault);
        }
        match &self.default_response {
            Some(default) => (text(default), Rule::GlobalDefault),
            None => (text(FALLBACK_TEXT), Rule::Fallback),
        }
    }
}

impl MockScript {
    /// Whether `scenario` is one the script defines. A scenario asked for by name that
    /// is missing is an error; the prompt id, used when none is named, only warns,
    /// since the default responses still answer. Without a file, only a named
    /// scenario is a problem.
    pub fn check_scenario(&self, scenario: &str, named: bool) -> Option<Diagnostic> {
        if self.scenarios.contains_key(scenario) {
            return None;
        }
        let Some(path) = &self.path else {
            return named.then(|| {
                Diagnostic::plain(format!(
                    "--scenario `{scenario}`: there are no mock responses to take it from; give --mock FILE or a mock provider's `mock_config`"
                ))
            });
        };
        let names = self.scenarios.keys().map(String::as_str);
        if named {
            let hint = suggest(scenario, names.clone());
            let known = if self.scenarios.is_empty() {
                " (it defines none)".to_string()
            } else {
                format!(" (it defines {})", one_of(&names.collect::<Vec<_>>()))
            };
            return Some(Diagnostic::error(
                path,
                self.scenarios_pos,
                format!("--scenario `{scenario}` is not a scenario of this file{known}{hint}"),
            ));
        }
        Some(Diagnostic::warning(
            path,
            self.scenarios_pos,
            format!(
                "no scenario `{scenario}` (the prompt id) in this file; every model call gets the default responses{}",
                suggest(scenario, names)
            ),
        ))
    }
}

/// Reads a mock-responses file, with positions for every problem.
pub fn load_mock(path: &Path) -> Result<Loaded<MockScript>, Rejected> {
    let text = std::fs::read_to_string(path).map_err(|err| {
        Rejected(Diagnostic::whole_file(path, format!("cannot read file: {err}")).into())
    })?;
    let root = parse_by_extension(path, &text).map_err(|d| Rejected(d.into()))?;
    let mut cx = Checker::new(path, text);
    let mut script = script(&mut cx, &root);
    script.path = Some(path.to_path_buf());
    finish(script, cx.diagnostics)
}

fn script(cx: &mut Checker, root: &Node) -> MockScript {
    let mut script = MockScript {
        scenarios_pos: root.pos,
        ..MockScript::default()
    };
    let Some(mut f) = cx.map(root, "the mock responses") else {
        return script;
    };
    if let Some((key, _)) = f.entry("scenarios") {
        script.scenarios_pos = key.pos;
    }
    script.default_response = f
        .get("defaultResponse")
        .and_then(|n| cx.string(n, "defaultResponse"));
    if let Some(node) = f.get("scenarios")
        && cx.map(node, "scenarios").is_some()
        && let Value::Map(entries) = &node.value
    {
        for (key, value) in entries {
            if let Some(scenario) = scenario(cx, value, &format!("scenarios.{}", key.name)) {
                script.scenarios.insert(key.name.clone(), scenario);
            }
        }
    }
    cx.ignored_keys(&mut f, &["selfplay"], "the mock responses");
    cx.unknown_keys(&f, "the mock responses", UnknownKeys::Warn);
    script
}

fn scenario(cx: &mut Checker, node: &Node, what: &str) -> Option<Scenario> {
    let mut f = cx.map(node, what)?;
    let mut scenario = Scenario {
        default_response: f
            .get("defaultResponse")
            .and_then(|n| cx.string(n, &format!("{what}.defaultResponse"))),
        ..Scenario::default()
    };
    if let Some(turns) = f.get("turns")
        && cx.map(turns, &format!("{what}.turns")).is_some()
        && let Value::Map(entries) = &turns.value
    {
        for (key, value) in entries {
            let at = format!("{what}.turns.{}", key.name);
            let Ok(number) = key.name.parse::<u64>() else {
                cx.error(
                    key.pos,
                    format!("{at}: a turn key is the 1-based number of a model call"),
                );
                continue;
            };
            if number == 0 {
                cx.error(key.pos, format!("{at}: turns count from 1"));
                continue;
            }
            if matches!(cx.text.as_bytes().get(key.offset), Some(b'"' | b'\'')) {
                cx.warning(
                    key.pos,
                    format!("{at}: the key is quoted; write it as a plain number"),
                );
            }
            if let Some(turn) = turn(cx, value, &at) {
                scenario.turns.insert(number, turn);
            }
        }
    }
    cx.ignored_keys(&mut f, &["steps"], what);
    cx.unknown_keys(&f, what, UnknownKeys::Warn);
    Some(scenario)
}

fn turn(cx: &mut Checker, node: &Node, at: &str) -> Option<MockTurn> {
    if let Value::Str(text) = &node.value {
        return Some(MockTurn {
            content: text.clone(),
            tool_calls: Vec::new(),
        });
    }
    let mut f = cx.map(node, at)?;
    let content = ["content", "text", "response"]
        .into_iter()
        .find_map(|key| {
            f.get(key)
                .and_then(|n| cx.string(n, &format!("{at}.{key}")))
        })
        .unwrap_or_default();
    let mut tool_calls = Vec::new();
    if let Some(calls) = f
        .get("tool_calls")
        .and_then(|n| cx.list(n, &format!("{at}.tool_calls")))
    {
        for (i, call) in calls.iter().enumerate() {
            let what = format!("{at}.tool_calls[{i}]");
            let Some(mut cf) = cx.map(call, &what) else {
                continue;
            };
            let name = match cf.get("name") {
                Some(n) => cx.nonempty_string(n, &format!("{what}.name")),
                None => {
                    cx.error(call.pos, format!("{what}: missing key `name`"));
                    None
                }
            };
            let arguments = cf
                .get("arguments")
                .map_or(Json::Object(Default::default()), |n| {
                    cx.map(n, &format!("{what}.arguments"));
                    n.to_json()
                });
            cx.unknown_keys(&cf, &what, UnknownKeys::Warn);
            if let Some(name) = name {
                tool_calls.push(ScriptedCall { name, arguments });
            }
        }
    }
    f.allow(&["type"]);
    cx.ignored_keys(
        &mut f,
        &[
            "parts",
            "audio_file",
            "audio_sample_rate",
            "audio_mime_type",
        ],
        at,
    );
    cx.unknown_keys(&f, at, UnknownKeys::Warn);
    Some(MockTurn {
        content,
        tool_calls,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn load(text: &str) -> Result<Loaded<MockScript>, Rejected> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("mock.yaml");
        std::fs::write(&path, text).expect("write");
        load_mock(&path)
    }

    const SCRIPT: &str = "defaultResponse: global\nscenarios:\n  support:\n    defaultResponse: scenario default\n    turns:\n      1:\n        content: Let me check.\n        tool_calls:\n          - name: lookup_order\n            arguments: { order_id: A-1002 }\n      2: It is delayed.\n  quiet:\n    turns:\n      1: only one\n";

    #[test]
    fn lookup_order_is_turn_then_scenario_then_global_then_fallback() {
        let mut script = load(SCRIPT).expect("valid").value;
        let (first, rule) = script.respond("support", 1);
        assert_eq!(rule, Rule::ScenarioTurn);
        assert_eq!(
            first.tool_calls,
            [ScriptedCall {
                name: "lookup_order".into(),
                arguments: json!({"order_id": "A-1002"})
            }]
        );
        assert_eq!(script.respond("support", 2).0.content, "It is delayed.");
        // A scripted turn is handed over once; asked again, the defaults answer.
        assert_eq!(script.respond("support", 2).1, Rule::ScenarioDefault);
        assert_eq!(
            script.respond("support", 3),
            (
                MockTurn {
                    content: "scenario default".into(),
                    tool_calls: vec![]
                },
                Rule::ScenarioDefault
            )
        );
        assert_eq!(script.respond("quiet", 2).1, Rule::GlobalDefault);
        assert_eq!(script.respond("unknown", 1).0.content, "global");
        let mut bare = load("scenarios: {}\n").expect("valid").value;
        assert_eq!(
            bare.respond("x", 1),
            (
                MockTurn {
                    content: FALLBACK_TEXT.into(),
                    tool_calls: vec![]
                },
                Rule::Fallback
            )
        );
    }

    #[test]
    fn look_alike_keys_and_quoted_turn_keys_are_warned_about() {
        let mut loaded =
            load("default_response: x\nscenarios:\n  s:\n    turns:\n      \"1\": hi\n")
                .expect("only warnings");
        let messages: Vec<String> = loaded.warnings.iter().map(|d| d.message.clone()).collect();
        assert!(
            messages.iter().any(|m| m.contains("`default_response`")
                && m.contains("did you mean `defaultResponse`?")),
            "{messages:?}"
        );
        assert!(
            messages.iter().any(|m| m.contains("the key is quoted")),
            "{messages:?}"
        );
        assert_eq!(loaded.value.respond("s", 1).0.content, "hi");
    }

    #[test]
    fn bad_turn_keys_are_errors_with_positions() {
        let err = load("scenarios:\n  s:\n    turns:\n      first: hi\n      0: zero\n")
            .expect_err("invalid");
        let lines: Vec<String> = err.0.iter().map(|d| d.to_string()).collect();
        assert!(
            lines[0].ends_with(
                ":4:7: scenarios.s.turns.first: a turn key is the 1-based number of a model call"
            ),
            "{lines:?}"
        );
        assert!(
            lines[1].ends_with(":5:7: scenarios.s.turns.0: turns count from 1"),
            "{lines:?}"
        );
    }
}
