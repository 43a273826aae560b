//! What a report holds, in the words of a comparison: its kind, and the items it
//! judged (scenarios, one conversation, test cases, check probes), each with its
//! result and its trials.

use serde::Serialize;
use serde_json::Value as Json;

/// Which command wrote a report (with `--format json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ReportKind {
    /// `run` of a suite: a top-level `scenarios` list.
    Suite,
    /// `run --message`: one conversation.
    Conversation,
    /// `test`: case files.
    Test,
    /// `check`: extensions and their probes.
    Check,
}

impl ReportKind {
    /// The kind of report `value` is, when it is one.
    pub(crate) fn of(value: &Json) -> Option<ReportKind> {
        let has = |key: &str| value.get(key).is_some_and(Json::is_array);
        if has("scenarios") {
            Some(ReportKind::Suite)
        } else if has("files") {
            Some(ReportKind::Test)
        } else if has("extensions") && value.get("passed").is_some() {
            Some(ReportKind::Check)
        } else if has("events") && value.get("exit_code").is_some() {
            Some(ReportKind::Conversation)
        } else {
            None
        }
    }

    pub(crate) fn words(self) -> &'static str {
        match self {
            ReportKind::Suite => "suite",
            ReportKind::Conversation => "conversation",
            ReportKind::Test => "test",
            ReportKind::Check => "check",
        }
    }

    /// What one item is called, for counts (`3 scenarios`).
    pub(crate) fn noun(self) -> &'static str {
        match self {
            ReportKind::Suite => "scenario",
            ReportKind::Conversation => "conversation",
            ReportKind::Test => "case",
            ReportKind::Check => "probe",
        }
    }
}

/// One judged item of a report.
#[derive(Debug)]
pub(crate) struct Item<'a> {
    pub id: String,
    /// What the report calls its result (`passed`, `failed`, `partial`, …).
    pub result: String,
    /// Whether it passed: `None` when it was not judged (interrupted, not run,
    /// skipped).
    pub pass: Option<bool>,
    /// The played trials (suites and conversations); empty for cases and probes.
    pub trials: Vec<&'a Json>,
    /// The whole record of the item.
    pub record: &'a Json,
}

impl Item<'_> {
    /// Whether each trial passed, `None` for one not judged.
    pub(crate) fn trial_passes(&self) -> Vec<Option<bool>> {
        self.trials
            .iter()
            .map(|t| pass_of_code(t.get("exit_code").and_then(Json::as_u64)))
            .collect()
    }
}

/// Every item of a report of `kind`, in the report's order.
pub(crate) fn items(kind: ReportKind, report: &Json) -> Vec<Item<'_>> {
    match kind {
        ReportKind::Suite => list(report, "scenarios").iter().map(scenario).collect(),
        ReportKind::Conversation => vec![conversation(report)],
        ReportKind::Test => list(report, "files").iter().flat_map(cases).collect(),
        ReportKind::Check => list(report, "extensions").iter().flat_map(probes).collect(),
    }
}

/// The array under `key`, empty when there is none.
pub(super) fn list<'a>(value: &'a Json, key: &str) -> &'a [Json] {
    value
        .get(key)
        .and_then(Json::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The string under `key`, empty when there is none.
pub(super) fn text<'a>(value: &'a Json, key: &str) -> &'a str {
    value.get(key).and_then(Json::as_str).unwrap_or_default()
}

fn scenario(record: &Json) -> Item<'_> {
    let result = text(record, "result").to_string();
    Item {
        id: text(record, "id").to_string(),
        pass: pass_of_word(&result),
        result,
        trials: list(record, "trials").iter().collect(),
        record,
    }
}

fn conversation(record: &Json) -> Item<'_> {
    let code = record.get("exit_code").and_then(Json::as_u64);
    let id = ["scenario", "prompt"]
        .iter()
        .map(|key| text(record, key))
        .find(|id| !id.is_empty())
        .unwrap_or("conversation");
    Item {
        id: id.to_string(),
        result: word_of_code(code).to_string(),
        pass: pass_of_code(code),
        trials: vec![record],
        record,
    }
}

fn cases(file: &Json) -> Vec<Item<'_>> {
    let name = text(file, "file");
    let mut found: Vec<Item<'_>> = list(file, "cases")
        .iter()
        .map(|case| {
            let result = text(case, "status").to_string();
            Item {
                id: format!("{name}#{}", text(case, "name")),
                pass: pass_of_word(&result),
                result,
                trials: Vec::new(),
                record: case,
            }
        })
        .collect();
    found.extend(list(file, "not_run").iter().map(|case| Item {
        id: format!("{name}#{}", case.as_str().unwrap_or_default()),
        result: "not_run".into(),
        pass: None,
        trials: Vec::new(),
        record: case,
    }));
    found
}

fn probes(extension: &Json) -> Vec<Item<'_>> {
    let owner = format!("{}.{}", text(extension, "kind"), text(extension, "name"));
    list(extension, "probes")
        .iter()
        .map(|probe| {
            let flag = |key: &str| probe.get(key).and_then(Json::as_bool).unwrap_or(false);
            let (result, pass) = match (flag("passed"), flag("skipped"), flag("warning")) {
                (false, ..) => ("failed", Some(false)),
                (true, true, _) => ("skipped", None),
                (true, false, true) => ("warning", Some(true)),
                (true, false, false) => ("passed", Some(true)),
            };
            Item {
                id: format!("{owner}#{}", text(probe, "probe")),
                result: result.into(),
                pass,
                trials: Vec::new(),
                record: probe,
            }
        })
        .collect()
}

/// A result word as passing or not: `partial` passed what was judged.
fn pass_of_word(word: &str) -> Option<bool> {
    match word {
        "passed" | "partial" | "warning" => Some(true),
        "failed" | "error" | "pending" => Some(false),
        _ => None,
    }
}

fn pass_of_code(code: Option<u64>) -> Option<bool> {
    match code? {
        0 => Some(true),
        130 => None,
        _ => Some(false),
    }
}

fn word_of_code(code: Option<u64>) -> &'static str {
    match code {
        Some(0) => "passed",
        Some(1) => "failed",
        Some(4) => "pending",
        Some(130) => "interrupted",
        _ => "error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_kind_is_told_by_its_shape() {
        assert_eq!(
            ReportKind::of(&json!({"scenarios": [], "summary": {}})),
            Some(ReportKind::Suite)
        );
        assert_eq!(
            ReportKind::of(&json!({"summary": {}, "files": []})),
            Some(ReportKind::Test)
        );
        assert_eq!(
            ReportKind::of(&json!({"passed": true, "extensions": []})),
            Some(ReportKind::Check)
        );
        assert_eq!(
            ReportKind::of(&json!({"events": [], "exit_code": 0})),
            Some(ReportKind::Conversation)
        );
        assert_eq!(ReportKind::of(&json!({"version": 1})), None);
        assert_eq!(ReportKind::of(&json!([1])), None);
    }

    #[test]
    fn cases_and_probes_are_named_by_their_file_or_extension() {
        let test = json!({"files": [{"file": "a.cases.yaml", "cases": [
            {"name": "x", "status": "failed"}], "not_run": ["y"]}]});
        let found = items(ReportKind::Test, &test);
        let ids: Vec<(&str, &str, Option<bool>)> = found
            .iter()
            .map(|i| (i.id.as_str(), i.result.as_str(), i.pass))
            .collect();
        assert_eq!(
            ids,
            [
                ("a.cases.yaml#x", "failed", Some(false)),
                ("a.cases.yaml#y", "not_run", None)
            ]
        );
        let check = json!({"passed": false, "extensions": [{"name": "t", "kind": "tool", "probes": [
            {"probe": "fuzz", "passed": true, "skipped": true},
            {"probe": "closed_stdin", "passed": false}]}]});
        let found = items(ReportKind::Check, &check);
        assert_eq!(found[0].id, "tool.t#fuzz");
        assert_eq!((found[0].result.as_str(), found[0].pass), ("skipped", None));
        assert_eq!(found[1].pass, Some(false));
    }
}
