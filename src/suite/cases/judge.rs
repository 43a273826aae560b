//! A case's verdict, decided by pure functions from what the case expects and what
//! the extension did. The status comes first: when it differs nothing else is
//! compared, and when the extension itself failed without the case expecting it the
//! case is an error rather than a failure.

use serde_json::Value as Json;

use crate::hooks::HookDecision;
pub(crate) use crate::report::CaseStatus;

use super::matchers::{
    check_matches, check_matches_result, check_pointer, check_result, first_difference, same,
    show_text,
};
use super::model::{CallStatus, HookExpect, ToolExpect};

/// A case's verdict.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Verdict {
    pub status: CaseStatus,
    /// What differed, one line each, in the order the expectations are written.
    pub problems: Vec<String>,
    /// The result is to be stored as the case's snapshot (`--update-snapshots`).
    pub store_snapshot: bool,
}

impl Verdict {
    fn of(problems: Vec<String>) -> Self {
        let status = if problems.is_empty() {
            CaseStatus::Passed
        } else {
            CaseStatus::Failed
        };
        Self {
            status,
            problems,
            store_snapshot: false,
        }
    }

    /// The wrong status or decision: an error when the extension failed.
    fn wrong_answer(problem: String, extension_failed: bool) -> Self {
        let status = if extension_failed {
            CaseStatus::Error
        } else {
            CaseStatus::Failed
        };
        Self {
            status,
            problems: vec![problem],
            store_snapshot: false,
        }
    }
}

/// What one tool call came to, as a case reads it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ToolSeen<'a> {
    pub status: CallStatus,
    /// The result of an `ok` call.
    pub result: Option<&'a Json>,
    /// What `matches` reads without a result: the error, the pending message, or the
    /// schema violations.
    pub text: &'a str,
}

/// The stored snapshot of a case that asks for one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Stored {
    Missing,
    Unreadable(String),
    Found(Json),
}

/// The snapshot a case compares with, and whether it may be rewritten.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SnapshotCheck<'a> {
    /// The snapshot's path, as messages show it.
    pub shown: &'a str,
    pub stored: &'a Stored,
    pub update: bool,
}

/// A tool case's verdict. `snapshot` is consulted only when the case asks for one.
pub(crate) fn judge_tool(
    expect: &ToolExpect,
    seen: &ToolSeen<'_>,
    snapshot: Option<SnapshotCheck<'_>>,
) -> Verdict {
    if seen.status != expect.status {
        let got = match seen.result {
            Some(result) => format!(": {}", super::matchers::show(result)),
            None if seen.text.is_empty() => String::new(),
            None => format!(": {}", show_text(seen.text)),
        };
        return Verdict::wrong_answer(
            format!(
                "status: expected {}, got {}{got}",
                expect.status, seen.status
            ),
            seen.status.is_extension_failure(),
        );
    }
    let null = Json::Null;
    let result = seen.result.unwrap_or(&null);
    let mut problems = Vec::new();
    if let Some(expected) = &expect.result {
        problems.extend(check_result(expected, result));
    }
    for (pointer, expected) in &expect.pointers {
        problems.extend(check_pointer(pointer, expected, result));
    }
    if let Some(pattern) = &expect.matches {
        problems.extend(match seen.result {
            Some(result) => check_matches_result(pattern, result),
            None => check_matches("matches", pattern, seen.text),
        });
    }
    let mut store_snapshot = false;
    if let (true, Some(check)) = (expect.snapshot, snapshot) {
        match (check.stored, check.update) {
            (Stored::Found(stored), _) if same(stored, result) => {}
            (_, true) => store_snapshot = true,
            (Stored::Missing, false) => problems.push(format!(
                "snapshot: none stored at {}; run with --update-snapshots to create it",
                check.shown
            )),
            (Stored::Unreadable(why), false) => {
                problems.push(format!("snapshot {}: {why}", check.shown));
            }
            (Stored::Found(stored), false) => problems.extend(
                first_difference(stored, result)
                    .map(|d| d.describe(&format!("snapshot {}", check.shown))),
            ),
        }
    }
    Verdict {
        store_snapshot,
        ..Verdict::of(problems)
    }
}

/// What one hook call came to, as a case reads it: the words `hook test` prints.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HookSeen<'a> {
    pub decision: HookDecision,
    /// A JSON-RPC hook's action (`approved`, `denied`), else the decision again.
    pub action: &'a str,
    pub reason: Option<&'a str>,
}

/// A hook case's verdict. The expected decision matches either word `hook test`
/// prints, so `deny` covers a JSON-RPC hook's `deny_tool` too; without one, any
/// answer but a failure will do.
pub(crate) fn judge_hook(expect: &HookExpect, seen: &HookSeen<'_>) -> Verdict {
    let failed = seen.decision == HookDecision::Failed;
    let answered = match &expect.decision {
        Some(word) => word.value == seen.action || word.value == seen.decision.as_str(),
        None => !failed,
    };
    if !answered {
        let expected = expect
            .decision
            .as_ref()
            .map_or("an answer", |word| word.value.as_str());
        let why = seen
            .reason
            .map(|reason| format!(": {}", show_text(reason)))
            .unwrap_or_default();
        return Verdict::wrong_answer(
            format!("decision: expected {expected}, got {}{why}", seen.action),
            failed,
        );
    }
    let mut problems = Vec::new();
    if let Some(pattern) = &expect.reason {
        match seen.reason {
            Some(reason) => problems.extend(check_matches("reason", pattern, reason)),
            None => problems.push(format!(
                "reason: expected one matching /{}/, the hook gave none",
                pattern.as_str()
            )),
        }
    }
    Verdict::of(problems)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::cases::model::Located;
    use regex::Regex;
    use serde_json::json;

    fn expect(status: CallStatus) -> ToolExpect {
        ToolExpect {
            status,
            result: None,
            pointers: Vec::new(),
            matches: None,
            snapshot: false,
        }
    }

    fn ok(result: &Json) -> ToolSeen<'_> {
        ToolSeen {
            status: CallStatus::Ok,
            result: Some(result),
            text: "",
        }
    }

    fn seen(status: CallStatus, text: &str) -> ToolSeen<'_> {
        ToolSeen {
            status,
            result: None,
            text,
        }
    }

    #[test]
    fn a_crash_where_a_result_was_expected_is_an_error() {
        let verdict = judge_tool(
            &expect(CallStatus::Ok),
            &seen(CallStatus::Failed, "exit 1"),
            None,
        );
        assert_eq!(verdict.status, CaseStatus::Error);
        assert_eq!(
            verdict.problems,
            [r#"status: expected ok, got failed: "exit 1""#]
        );
        let late = judge_tool(
            &expect(CallStatus::Error),
            &seen(CallStatus::Timeout, ""),
            None,
        );
        assert_eq!(late.status, CaseStatus::Error);
    }

    #[test]
    fn an_expected_failure_passes_and_a_wrong_answer_fails() {
        let crash = seen(CallStatus::Failed, "exit 1");
        assert_eq!(
            judge_tool(&expect(CallStatus::Failed), &crash, None).status,
            CaseStatus::Passed
        );
        let result = json!({"a": 1});
        let verdict = judge_tool(&expect(CallStatus::Error), &ok(&result), None);
        assert_eq!(verdict.status, CaseStatus::Failed);
        assert_eq!(
            verdict.problems,
            [r#"status: expected error, got ok: {"a":1}"#]
        );
    }

    #[test]
    fn every_expectation_is_checked_and_reported() {
        let mut wanted = expect(CallStatus::Ok);
        wanted.result = Some(json!({"status": "delayed"}));
        wanted.pointers = vec![("/status".into(), json!("delayed"))];
        wanted.matches = Some(Regex::new("delayed").expect("regex"));
        let result = json!({"status": "shipped"});
        let verdict = judge_tool(&wanted, &ok(&result), None);
        assert_eq!(verdict.status, CaseStatus::Failed);
        assert_eq!(verdict.problems.len(), 3, "{:?}", verdict.problems);
        let good = json!({"status": "delayed"});
        assert_eq!(
            judge_tool(&wanted, &ok(&good), None).status,
            CaseStatus::Passed
        );
    }

    #[test]
    fn matches_reads_the_error_text_of_an_error() {
        let mut wanted = expect(CallStatus::Error);
        wanted.matches = Some(Regex::new("no order A-\\d+").expect("regex"));
        let answer = seen(CallStatus::Error, "no order A-0404");
        assert_eq!(
            judge_tool(&wanted, &answer, None).status,
            CaseStatus::Passed
        );
    }

    fn check(stored: &Stored, update: bool) -> SnapshotCheck<'_> {
        SnapshotCheck {
            shown: "__snapshots__/x/y.json",
            stored,
            update,
        }
    }

    #[test]
    fn snapshots_compare_and_update_only_with_the_right_status() {
        let mut wanted = expect(CallStatus::Ok);
        wanted.snapshot = true;
        let result = json!({"n": 2});
        let missing = judge_tool(&wanted, &ok(&result), Some(check(&Stored::Missing, false)));
        assert_eq!(
            missing.problems,
            [
                "snapshot: none stored at __snapshots__/x/y.json; run with --update-snapshots to create it"
            ]
        );
        let created = judge_tool(&wanted, &ok(&result), Some(check(&Stored::Missing, true)));
        assert_eq!(
            (created.status, created.store_snapshot),
            (CaseStatus::Passed, true)
        );
        let stored = Stored::Found(json!({"n": 1}));
        let changed = judge_tool(&wanted, &ok(&result), Some(check(&stored, false)));
        assert_eq!(
            changed.problems,
            ["snapshot __snapshots__/x/y.json at /n: expected 1, got 2"]
        );
        let same_again = Stored::Found(json!({"n": 2.0}));
        let kept = judge_tool(&wanted, &ok(&result), Some(check(&same_again, true)));
        assert_eq!(
            (kept.status, kept.store_snapshot),
            (CaseStatus::Passed, false)
        );
        let crash = seen(CallStatus::Failed, "boom");
        let not_stored = judge_tool(&wanted, &crash, Some(check(&Stored::Missing, true)));
        assert_eq!(
            (not_stored.status, not_stored.store_snapshot),
            (CaseStatus::Error, false)
        );
    }

    fn hook_expect(decision: Option<&str>, reason: Option<&str>) -> HookExpect {
        HookExpect {
            decision: decision.map(|word| Located {
                value: word.to_string(),
                pos: Default::default(),
            }),
            reason: reason.map(|r| Regex::new(r).expect("regex")),
        }
    }

    #[test]
    fn a_decision_matches_either_word_hook_test_prints() {
        let denied = HookSeen {
            decision: HookDecision::Deny,
            action: "deny_tool",
            reason: Some("dangerous shell command refused: rm -rf /"),
        };
        for word in ["deny", "deny_tool"] {
            let verdict = judge_hook(&hook_expect(Some(word), Some("dangerous")), &denied);
            assert_eq!(verdict.status, CaseStatus::Passed, "{word}");
        }
        let wrong = judge_hook(&hook_expect(Some("continue"), None), &denied);
        assert_eq!(wrong.status, CaseStatus::Failed);
        assert_eq!(
            wrong.problems,
            [
                r#"decision: expected continue, got deny_tool: "dangerous shell command refused: rm -rf /""#
            ]
        );
    }

    #[test]
    fn a_failed_hook_is_an_error_unless_expected() {
        let failed = HookSeen {
            decision: HookDecision::Failed,
            action: "failed",
            reason: Some("hook `g` failed: exit 3"),
        };
        assert_eq!(
            judge_hook(&hook_expect(None, None), &failed).status,
            CaseStatus::Error
        );
        assert_eq!(
            judge_hook(&hook_expect(Some("allow"), None), &failed).status,
            CaseStatus::Error
        );
        assert_eq!(
            judge_hook(&hook_expect(Some("failed"), Some("exit 3")), &failed).status,
            CaseStatus::Passed
        );
    }

    #[test]
    fn a_reason_is_required_when_one_is_expected() {
        let allowed = HookSeen {
            decision: HookDecision::Allow,
            action: "allow",
            reason: None,
        };
        let verdict = judge_hook(&hook_expect(Some("allow"), Some("card")), &allowed);
        assert_eq!(
            verdict.problems,
            ["reason: expected one matching /card/, the hook gave none"]
        );
    }
}
