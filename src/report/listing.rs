//! What `list` shows: the scenarios a suite would play, the cases of the case files
//! given, and the tools, hooks and evals the config and pack bring, as a record and
//! its renderings (JSON, and one table per kind of thing).

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value as Json;

use super::style::peer;
use super::table;

/// Everything `list` found, in the order it is shown.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Listing {
    pub scenarios: Vec<ListedScenario>,
    pub cases: Vec<ListedCase>,
    pub tools: Vec<ListedTool>,
    pub hooks: Vec<ListedHook>,
    pub evals: Vec<ListedEval>,
}

/// One scenario as `run` would plan it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ListedScenario {
    pub id: String,
    pub file: String,
    pub prompt: String,
    pub description: String,
    pub labels: IndexMap<String, String>,
    pub turns: usize,
    pub unplayed_turns: usize,
    pub assertions: usize,
    /// Assertions that will not be judged.
    pub skipped: usize,
    pub trials: u32,
}

/// One case of a case file.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ListedCase {
    pub file: String,
    pub name: String,
    /// `tool` or `hook`.
    pub kind: &'static str,
    /// The tool or hook it calls.
    pub target: String,
}

/// One tool of the pack and how the config runs it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ListedTool {
    pub name: String,
    /// `exec`, `server` or `unbound`.
    pub mode: &'static str,
    /// The prompts that offer it.
    pub prompts: Vec<String>,
    pub input_schema: Json,
}

/// One hook of the config.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ListedHook {
    pub name: String,
    pub kind: &'static str,
    /// The phases or intercepted methods it answers at.
    pub at: Vec<String>,
    pub mode: String,
    pub priority: i64,
}

/// One eval of one prompt.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ListedEval {
    pub prompt: String,
    pub id: String,
    #[serde(rename = "type")]
    pub eval_type: String,
    pub trigger: &'static str,
    /// `built-in`, `exec`, `server` or `unbound`.
    pub runs: &'static str,
    /// Whether it can fail a run.
    pub gate: bool,
}

impl Listing {
    /// The listing as pretty JSON, ending in a newline.
    pub(crate) fn json(&self) -> String {
        format!(
            "{}\n",
            serde_json::to_string_pretty(self).unwrap_or_default()
        )
    }

    /// The listing as tables, one per kind of thing; a kind with nothing says `none`.
    pub(crate) fn human(&self) -> String {
        let list = |items: &[String]| items.join(", ");
        [
            section(
                "scenarios",
                &[
                    "id",
                    "prompt",
                    "turns",
                    "assertions",
                    "skipped",
                    "trials",
                    "labels",
                    "file",
                ],
                self.scenarios.iter().map(|s| {
                    let labels: Vec<String> =
                        s.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    vec![
                        s.id.clone(),
                        s.prompt.clone(),
                        s.turns.to_string(),
                        s.assertions.to_string(),
                        s.skipped.to_string(),
                        s.trials.to_string(),
                        list(&labels),
                        s.file.clone(),
                    ]
                }),
            ),
            section(
                "cases",
                &["file", "case", "kind", "calls"],
                self.cases.iter().map(|c| {
                    vec![
                        c.file.clone(),
                        c.name.clone(),
                        c.kind.to_string(),
                        c.target.clone(),
                    ]
                }),
            ),
            section(
                "tools",
                &["tool", "mode", "prompts"],
                self.tools
                    .iter()
                    .map(|t| vec![t.name.clone(), t.mode.to_string(), list(&t.prompts)]),
            ),
            section(
                "hooks",
                &["hook", "kind", "at", "mode"],
                self.hooks.iter().map(|h| {
                    vec![
                        h.name.clone(),
                        h.kind.to_string(),
                        list(&h.at),
                        h.mode.clone(),
                    ]
                }),
            ),
            section(
                "evals",
                &["prompt", "eval", "type", "trigger", "runs", "gate"],
                self.evals.iter().map(|e| {
                    vec![
                        e.prompt.clone(),
                        e.id.clone(),
                        e.eval_type.clone(),
                        e.trigger.to_string(),
                        e.runs.to_string(),
                        e.gate.to_string(),
                    ]
                }),
            ),
        ]
        .join("")
    }
}

/// `title (n):` and a table of the rows, or `title: none`. Names and labels come
/// from shared files: every cell is made safe for the terminal.
fn section(title: &str, header: &[&str], rows: impl Iterator<Item = Vec<String>>) -> String {
    let mut grid = table(header);
    let mut count = 0;
    for row in rows {
        grid.add_row(
            row.iter()
                .map(|cell| peer(cell, false).into_owned())
                .collect::<Vec<_>>(),
        );
        count += 1;
    }
    if count == 0 {
        return format!("{title}: none\n");
    }
    format!("{title} ({count}):\n{grid}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn listing() -> Listing {
        Listing {
            scenarios: vec![ListedScenario {
                id: "late-order".into(),
                file: "scenarios/late.yaml".into(),
                prompt: "support".into(),
                description: "a delayed order".into(),
                labels: IndexMap::from([("area".into(), "orders".into())]),
                turns: 2,
                unplayed_turns: 0,
                assertions: 3,
                skipped: 1,
                trials: 1,
            }],
            cases: vec![ListedCase {
                file: "cases/orders.cases.yaml".into(),
                name: "finds A-1002".into(),
                kind: "tool",
                target: "lookup_order".into(),
            }],
            tools: vec![ListedTool {
                name: "lookup_order".into(),
                mode: "exec",
                prompts: vec!["support".into(), "triage".into()],
                input_schema: json!({"type": "object"}),
            }],
            hooks: Vec::new(),
            evals: vec![ListedEval {
                prompt: "support".into(),
                id: "polite".into(),
                eval_type: "contains".into(),
                trigger: "every_turn",
                runs: "built-in",
                gate: true,
            }],
        }
    }

    #[test]
    fn the_human_listing_has_a_table_per_kind() {
        insta::assert_snapshot!(listing().human());
    }

    #[test]
    fn the_json_listing_keeps_its_field_order() {
        insta::assert_snapshot!(listing().json());
    }

    #[test]
    fn a_name_from_a_shared_file_cannot_drive_the_terminal() {
        let mut listing = Listing::default();
        listing.cases.push(ListedCase {
            file: "c.yaml".into(),
            name: "bad\u{1b}[2Jname".into(),
            kind: "hook",
            target: "gate".into(),
        });
        let human = listing.human();
        assert!(!human.contains('\u{1b}'), "{human}");
        assert!(
            human.starts_with("scenarios: none\ncases (1):\n"),
            "{human}"
        );
    }
}
