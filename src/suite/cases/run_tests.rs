//! The case-file engine run on a plan built in code: real tool processes, no command
//! line and no console.

use std::path::{Path, PathBuf};

use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::config::ExecSpec;
use crate::report::{CaseStatus, Exit};

use super::model::{CallStatus, ToolExpect};
use super::plan::{CasesPlan, PlannedCall, PlannedCase, PlannedFile, ToolCall, ToolTarget};
use super::run::{CaseEvent, CasesError, run};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/check")
        .join(name)
}

/// A case calling one of the `check` fixtures' one-shot tools with `args`.
fn tool_case(name: &str, script: &str, args: serde_json::Value, expect: ToolExpect) -> PlannedCase {
    let mut spec = ExecSpec::plain("python3", env!("CARGO_MANIFEST_DIR"));
    spec.args = vec![fixture(script).display().to_string()];
    PlannedCase {
        name: name.into(),
        call: PlannedCall::Tool(ToolCall {
            tool: script.trim_end_matches(".py").into(),
            target: ToolTarget::Exec(spec),
            args,
            timeout: None,
            violations: Vec::new(),
            expect,
            snapshot: None,
        }),
    }
}

fn at(pointer: &str, value: serde_json::Value) -> ToolExpect {
    ToolExpect {
        pointers: vec![(pointer.into(), value)],
        ..ToolExpect::default()
    }
}

fn plan(cases: Vec<PlannedCase>) -> CasesPlan {
    CasesPlan {
        files: vec![PlannedFile {
            path: "tools.cases.yaml".into(),
            cases,
        }],
        jobs: 2,
        fail_fast: false,
        update_snapshots: false,
        stop: CancellationToken::new(),
    }
}

#[test]
fn each_case_is_judged_and_shown_as_it_finishes() {
    let plan = plan(vec![
        tool_case(
            "counts",
            "good_tool.py",
            json!({"text": "hi"}),
            at("/characters", json!(2)),
        ),
        tool_case(
            "miscounts",
            "good_tool.py",
            json!({"text": "hi"}),
            at("/characters", json!(3)),
        ),
        tool_case(
            "crashes as expected",
            "always_crash.py",
            json!({}),
            ToolExpect {
                status: CallStatus::Failed,
                ..ToolExpect::default()
            },
        ),
    ]);
    let mut seen = Vec::new();
    let record = run(&plan, |event| match event {
        CaseEvent::Finished { file, case } => seen.push((file.to_path_buf(), case.name.clone())),
    })
    .expect("the run ends");
    assert_eq!(
        seen.iter()
            .map(|(_, name)| name.as_str())
            .collect::<Vec<_>>(),
        ["counts", "miscounts", "crashes as expected"]
    );
    assert!(
        seen.iter()
            .all(|(file, _)| file == Path::new("tools.cases.yaml"))
    );
    let cases = &record.files[0].cases;
    let statuses: Vec<CaseStatus> = cases.iter().map(|c| c.status).collect();
    assert_eq!(
        statuses,
        [CaseStatus::Passed, CaseStatus::Failed, CaseStatus::Passed]
    );
    assert_eq!(
        cases[1].problems,
        ["pointer /characters: expected 3, got 2"]
    );
    assert_eq!(cases[0].actual["result"]["characters"], 2);
    assert_eq!((record.summary.passed, record.summary.failed), (2, 1));
    assert_eq!(record.exit(), Exit::No);
}

#[test]
fn fail_fast_leaves_the_rest_not_run() {
    let mut plan = plan(vec![
        tool_case(
            "miscounts",
            "good_tool.py",
            json!({"text": "hi"}),
            at("/characters", json!(3)),
        ),
        tool_case(
            "counts",
            "good_tool.py",
            json!({"text": "hi"}),
            at("/characters", json!(2)),
        ),
    ]);
    plan.fail_fast = true;
    let record = run(&plan, |_| {}).expect("the run ends");
    assert_eq!(record.files[0].cases.len(), 1);
    assert_eq!(record.files[0].not_run, ["counts"]);
    assert_eq!(record.summary.not_run, 1);
}

#[test]
fn a_stopped_plan_runs_nothing() {
    let plan = plan(vec![tool_case(
        "counts",
        "good_tool.py",
        json!({"text": "hi"}),
        ToolExpect::default(),
    )]);
    plan.stop.cancel();
    let mut shown = 0;
    let outcome = run(&plan, |_| shown += 1);
    assert!(
        matches!(outcome, Err(CasesError::Interrupted)),
        "{outcome:?}"
    );
    assert_eq!(shown, 0);
}
