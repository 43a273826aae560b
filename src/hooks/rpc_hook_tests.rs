//! A long-running JSON-RPC hook driven directly: a crash fails the call in flight, and
//! the next call gets a fresh process. Fixture: `tests/fixtures/hooks/rpc.yaml`.

use std::time::Duration;

use serde_json::json;

use crate::config::{self, Intercept};
use crate::exec::rpc::RestartPolicy;
use crate::hooks::{Action, Intercepted, RpcHook};
use crate::test_support::{fixtures, gone};

#[tokio::test]
async fn a_crash_mid_call_fails_that_call_and_the_next_one_gets_a_fresh_process() {
    let loaded = config::load(&fixtures().join("hooks/rpc.yaml"), true).expect("loads");
    let mut hook = loaded.value.hooks.get("gate").expect("gate").clone();
    // The next call starts Python again, which a loaded machine may take longer to
    // do than the fixture's 500 ms deadline; this test is about the restart.
    hook.exec.timeout = Some(Duration::from_secs(10));
    let policy = RestartPolicy {
        first_backoff: Duration::from_millis(10),
        ..RestartPolicy::default()
    };
    let rpc = RpcHook::with_policy(&hook, policy).expect("a server hook");
    let first = rpc.start().await.expect("handshake") as i32;
    let crashed = rpc
        .intercept(Intercept::BeforeTool, json!({"_crash": true}))
        .await;
    let Intercepted::Failed { why, .. } = crashed else {
        panic!("the call fails")
    };
    assert!(why.contains("exited with status 3"), "{why}");
    let next = rpc.intercept(Intercept::BeforeTool, json!({})).await;
    assert_eq!(next, Intercepted::Action(Action::Continue));
    let second = rpc.start().await.expect("running") as i32;
    assert_ne!(first, second, "a restarted process, after a new handshake");
    rpc.shutdown().await;
    assert!(gone(first) && gone(second), "no hook process is left");
}
