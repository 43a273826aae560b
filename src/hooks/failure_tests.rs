//! Every hook failure the dispatcher meets is recorded with the hook's name, phase and
//! stderr, for the run to report. Fixtures: `tests/fixtures/hooks/flow`.

use std::path::{Path, PathBuf};

use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::config::{self, HookPhase};
use crate::conversation::{ProviderRequest, ProviderResponse, SessionInfo, message};
use crate::hooks::{Gate, HookDispatcher, HookFailure};
use crate::test_support::{fixtures, load_hooks};

fn flow_dir() -> PathBuf {
    fixtures().join("hooks/flow")
}

/// Hooks from a config written into `dir`; `FLOW` stands for the flow fixtures.
fn hooks_in(dir: &Path, hooks_yaml: &str) -> Vec<config::Hook> {
    load_hooks(
        dir,
        &hooks_yaml.replace("FLOW", &flow_dir().display().to_string()),
    )
}

#[tokio::test]
async fn every_hook_failure_is_recorded_with_its_name_phase_and_stderr() {
    let dir = tempfile::tempdir().expect("temp dir");
    let failing = |name: &str, kind: &str, phases: &str| {
        format!(
            "    {name}:\n      command: sh\n      args: [-c, 'cat > /dev/null; echo {name} broke >&2; exit 2']\n      hook: {kind}\n      phases: [{phases}]\n"
        )
    };
    let yaml = [
        failing("filter", "provider", "before_call"),
        failing("watcher", "session", "session_start"),
        "    garbler:\n      command: FLOW/protocol_hook.py\n      args: [--garble]\n      runtime: server\n      intercept: [after_llm]\n".to_string(),
    ]
    .concat();
    let mut dispatcher = HookDispatcher::new(hooks_in(dir.path(), &yaml), CancellationToken::new());
    let request = ProviderRequest {
        provider_id: "mock".into(),
        model: "mock-model".into(),
        messages: vec![message("user", "hello")].into(),
        system_prompt: "Be kind.".into(),
        round: 1,
    };
    let phase = dispatcher.before_call(request.clone(), Vec::new()).await;
    assert!(
        matches!(phase.gate, Gate::AbortTurn { .. }),
        "a failed filter denies"
    );
    let mut answer = message("assistant", "Let me check.");
    answer["tool_calls"] = json!([{"id": "c1", "name": "probe", "args": {"topic": "x"}}]);
    let response = ProviderResponse {
        provider_id: "mock".into(),
        model: "mock-model".into(),
        message: answer.clone(),
        latency_ms: 1,
    };
    let phase = dispatcher.after_call(&request, response).await;
    let Gate::Proceed(kept) = phase.gate else {
        panic!("skipped by its failure policy")
    };
    assert_eq!(kept.message, answer, "an unreadable modify changes nothing");
    let session = SessionInfo {
        session_id: "sess_1".into(),
        conversation_id: "conv_1".into(),
        messages: Default::default(),
        turn_index: 0,
    };
    dispatcher.session(HookPhase::SessionStart, &session).await;
    let mut failures = dispatcher.take_failures();
    let filter = failures
        .iter()
        .find(|f| f.hook == "filter")
        .expect("filter failure");
    assert_eq!(
        (
            filter.phase.as_str(),
            filter.reason.as_str(),
            filter.stderr_tail.as_str()
        ),
        ("before_call", "exited with status 2", "filter broke")
    );
    let garbler = failures
        .iter()
        .find(|f| f.hook == "garbler")
        .expect("garbler failure");
    assert_eq!(garbler.phase.as_str(), "after_llm");
    assert!(
        garbler.reason.contains("its `modify` could not be read"),
        "{garbler:?}"
    );
    dispatcher.finish().await;
    failures.extend(dispatcher.take_failures());
    let watcher: Vec<&HookFailure> = failures.iter().filter(|f| f.hook == "watcher").collect();
    assert_eq!(
        watcher,
        [&HookFailure {
            hook: "watcher".into(),
            phase: HookPhase::SessionStart.into(),
            reason: "exited with status 2".into(),
            stderr_tail: "watcher broke".into(),
            turn: Some(0),
        }],
        "the observer's failure is recorded once its call ends"
    );
    assert_eq!(failures.len(), 3, "{failures:?}");
    assert!(
        dispatcher.take_failures().is_empty(),
        "each failure is taken once"
    );
}
