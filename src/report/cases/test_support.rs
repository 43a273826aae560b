//! A record built in code for the renderers' tests: a file with a pass and a
//! failure, and a file whose hook failed.

use serde_json::json;

use super::record::{CaseKind, CaseRecord, CaseStatus, FileRecord, TestRecord};

fn case(name: &str, kind: CaseKind, target: &str, status: CaseStatus) -> CaseRecord {
    CaseRecord {
        name: name.into(),
        kind,
        target: target.into(),
        status,
        duration_ms: 7,
        message: None,
        actual: json!({"status": "ok", "result": {"order_id": "A-1002"}}),
        problems: Vec::new(),
        stderr_tail: String::new(),
    }
}

pub(super) fn record() -> TestRecord {
    let passed = case(
        "finds an order",
        CaseKind::Tool,
        "lookup",
        CaseStatus::Passed,
    );
    let mut failed = case("says delayed", CaseKind::Tool, "lookup", CaseStatus::Failed);
    failed.problems = vec![
        "pointer /status: expected \"delayed\", got nothing there".into(),
        "matches: /ships/ not found in the result as compact JSON: {\"order_id\":\"A-1002\"}"
            .into(),
    ];
    failed.set_message(None);
    let mut errored = case("guard denies", CaseKind::Hook, "guard", CaseStatus::Error);
    errored.actual = json!({"hook": "guard", "decision": "failed", "reason": "exited 2"});
    errored.problems = vec!["decision: expected deny, got failed: \"exited 2\"".into()];
    errored.stderr_tail = "Traceback (most recent call last):\nKeyError: 'phase'\n".into();
    errored.set_message(None);
    let files = vec![
        FileRecord {
            file: "a.cases.yaml".into(),
            cases: vec![passed, failed],
            not_run: Vec::new(),
            duration_ms: 20,
        },
        FileRecord {
            file: "b.cases.yaml".into(),
            cases: vec![errored],
            not_run: Vec::new(),
            duration_ms: 20,
        },
    ];
    TestRecord::new(files, 40)
}
