//! The check engine run on a plan built in code: real extension processes, no
//! command line and no console.

use std::path::{Path, PathBuf};

use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::config::ExecSpec;
use crate::exec::CallKind;
use crate::report::Exit;

use super::run::{CheckError, CheckEvent, CheckPlan, run};
use super::{CheckedKind, OneShot, Options, Probe, ReplyShape, Subject};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/check")
        .join(name)
}

/// One of the `check` fixtures' one-shot tools, called with `{"text": "hi"}`.
fn tool(script: &str) -> Subject {
    let mut spec = ExecSpec::plain("python3", env!("CARGO_MANIFEST_DIR"));
    spec.args = vec![fixture(script).display().to_string()];
    Subject::OneShot(OneShot {
        name: script.trim_end_matches(".py").into(),
        kind: CheckedKind::Tool,
        call_kind: CallKind::Tool,
        spec,
        request: json!({"args": {"text": "hi"}}),
        reply: ReplyShape::Tool,
        phases: Vec::new(),
        tool: None,
    })
}

fn plan(subjects: Vec<Subject>, only: Option<Probe>) -> CheckPlan {
    CheckPlan {
        subjects,
        options: Options {
            seed: 7,
            cases: 5,
            only,
            config_path: "runtimeconfig.yaml".into(),
            allow_writes: false,
            invalid_args: None,
            spec_version: None,
        },
        jobs: 2,
        stop: CancellationToken::new(),
    }
}

#[test]
fn every_extension_is_probed_and_shown_as_it_starts_and_finishes() {
    let plan = plan(
        vec![tool("good_tool.py"), tool("always_crash.py")],
        Some(Probe::OneJsonAnswer),
    );
    let (mut started, mut finished) = (Vec::new(), Vec::new());
    let record = run(&plan, |event| match event {
        CheckEvent::Started(subject) => started.push(subject.name().to_string()),
        CheckEvent::Finished(checked) => finished.push((checked.name.clone(), checked.passed())),
    })
    .expect("the run ends");
    started.sort();
    finished.sort();
    assert_eq!(started, ["always_crash", "good_tool"]);
    assert_eq!(
        finished,
        [
            ("always_crash".to_string(), false),
            ("good_tool".to_string(), true)
        ]
    );
    // The record keeps the plan's order, whatever order the checks ended in.
    let names: Vec<&str> = record.extensions.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["good_tool", "always_crash"]);
    assert!(record.extensions.iter().all(|e| e.probes.len() == 1));
    assert_eq!(record.extensions[0].probes[0].probe, Probe::OneJsonAnswer);
    assert!(!record.extensions[1].probes[0].passed);
    assert_eq!((record.seed, record.cases), (7, 5));
    assert_eq!(record.exit(), Exit::No);
}

#[test]
fn an_extension_no_probe_applies_to_is_left_out() {
    // `hello` is a JSON-RPC hook's probe: a one-shot tool has none.
    let record = run(
        &plan(vec![tool("good_tool.py")], Some(Probe::Hello)),
        |_| {},
    )
    .expect("the run ends");
    assert!(record.extensions.is_empty());
    assert_eq!(record.exit(), Exit::Success);
}

#[test]
fn a_stopped_plan_ends_interrupted() {
    let plan = plan(vec![tool("good_tool.py")], None);
    plan.stop.cancel();
    let outcome = run(&plan, |_| {});
    assert!(
        matches!(outcome, Err(CheckError::Interrupted)),
        "{outcome:?}"
    );
}
