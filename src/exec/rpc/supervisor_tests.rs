//! The supervisor against a small shell server: one start for many callers, start-up
//! time within the caller's deadline, and no lock held while a start waits.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value as Json, json};
use tokio::time::Instant;

use super::{Handshake, Refused, Reply, RestartPolicy, Supervisor};
use crate::config::{self, ExecSpec};
use crate::exec::{CallKind, Outcome};

/// Appends its pid to the file `$1` (relative to its working directory) when it starts; answers `hello` after `$2`
/// seconds and every other method with its pid.
const SERVER: &str = r#"
echo $$ >> "$1"
while IFS= read -r line; do
  id=${line#*\"id\":}; id=${id%%,*}
  case $line in
    *'"method":"hello"'*) sleep "$2"; printf '{"jsonrpc":"2.0","id":%s,"result":{"ok":true}}\n' "$id" ;;
    *) printf '{"jsonrpc":"2.0","id":%s,"result":{"pid":%s}}\n' "$id" $$ ;;
  esac
done
"#;

/// The server as a config declares it, in `dir`, logging its starts to `dir/starts`.
fn spec(dir: &Path, hello_delay: &str) -> ExecSpec {
    let script = dir.join("server.sh");
    std::fs::write(&script, format!("#!/bin/sh\n{SERVER}")).expect("script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let file = dir.join("promptexec.yaml");
    let yaml = format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  tools:\n    probe:\n      exec: {{ command: ./server.sh, args: [starts, \"{hello_delay}\"], runtime: server }}\n"
    );
    std::fs::write(&file, yaml).expect("config");
    let loaded = config::load(&file, true).expect("the config loads");
    loaded.value.tools["probe"]
        .exec()
        .cloned()
        .expect("an exec tool")
}

fn accept(reply: &Reply) -> Result<(), Refused> {
    match reply {
        Reply::Result(result) if result["ok"] == true => Ok(()),
        other => Err(Refused::Unexpected {
            answered: json!(format!("{other:?}")),
            wanted: "\"ok\": true",
        }),
    }
}

fn supervisor(dir: &Path, hello_delay: &str, policy: RestartPolicy) -> Supervisor {
    let handshake = Handshake {
        method: "hello",
        params: Json::Null,
        timeout: Duration::from_secs(10),
        check: accept,
    };
    Supervisor::new(
        "probe",
        CallKind::Tool,
        &spec(dir, hello_delay),
        policy,
        Some(handshake),
    )
}

/// How many processes were started in `dir`.
fn starts(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("starts")).map_or(0, |text| text.lines().count())
}

fn pid(reply: Result<Reply, super::NoReply>) -> i64 {
    match reply {
        Ok(Reply::Result(result)) => result["pid"].as_i64().expect("a pid"),
        other => panic!("an answer, not {other:?}"),
    }
}

const LONG: Duration = Duration::from_secs(10);

#[tokio::test]
async fn concurrent_callers_share_one_start() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let sup = supervisor(dir, "0.3", RestartPolicy::default());
    let calls = (0..8).map(|_| sup.call("execute", json!({}), LONG));
    let pids: Vec<i64> = futures::future::join_all(calls)
        .await
        .into_iter()
        .map(pid)
        .collect();
    assert!(pids.iter().all(|p| *p == pids[0]), "{pids:?}");
    assert_eq!(starts(dir), 1, "one process for all callers");
    sup.shutdown().await;
}

#[tokio::test]
async fn start_up_time_counts_against_the_calls_deadline() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let sup = supervisor(dir, "1", RestartPolicy::default());
    let began = Instant::now();
    let short = Duration::from_millis(200);
    let early = sup.call("execute", json!({}), short).await;
    let Err(no_reply) = early else {
        panic!("the handshake takes longer than the call may wait")
    };
    assert_eq!(
        no_reply.outcome,
        Outcome::TimedOut {
            after: short,
            nothing_read: false
        }
    );
    assert!(
        began.elapsed() < Duration::from_millis(900),
        "{:?}",
        began.elapsed()
    );
    // The start went on without the caller that gave up on it.
    pid(sup.call("execute", json!({}), LONG).await);
    assert_eq!(starts(dir), 1);
    sup.shutdown().await;
}

#[tokio::test]
async fn a_restart_backoff_holds_no_lock_and_no_caller_past_its_deadline() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let policy = RestartPolicy {
        first_backoff: Duration::from_secs(3),
        ..RestartPolicy::default()
    };
    let sup = Arc::new(supervisor(dir, "0", policy));
    let first = pid(sup.call("execute", json!({}), LONG).await);
    // Its stdin closed, the shell leaves: the next call must restart it.
    sup.client()
        .await
        .expect("running")
        .shutdown(Duration::from_secs(5))
        .await;
    let waiting = tokio::spawn({
        let sup = Arc::clone(&sup);
        async move { sup.call("execute", json!({}), LONG).await }
    });
    let began = Instant::now();
    let short = sup
        .call("execute", json!({}), Duration::from_millis(100))
        .await;
    assert!(matches!(
        short,
        Err(super::NoReply {
            outcome: Outcome::TimedOut { .. },
            ..
        })
    ));
    assert!(
        began.elapsed() < Duration::from_millis(2000),
        "{:?}",
        began.elapsed()
    );
    assert!(
        sup.running().is_none(),
        "answers at once during the backoff"
    );
    let second = pid(waiting.await.expect("joined"));
    assert_ne!(first, second);
    assert_eq!(starts(dir), 2, "one restart for both callers");
    sup.shutdown().await;
}

#[tokio::test]
async fn shutdown_calls_off_a_start_under_way() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let sup = supervisor(dir, "30", RestartPolicy::default());
    let _ = sup
        .call("execute", json!({}), Duration::from_millis(50))
        .await;
    let began = Instant::now();
    sup.shutdown().await;
    assert!(
        began.elapsed() < Duration::from_secs(3),
        "{:?}",
        began.elapsed()
    );
    assert!(sup.running().is_none());
}

#[tokio::test]
async fn a_call_times_out_at_its_own_deadline_behind_a_longer_one() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let spec = spec(dir, "30");
    let sup = Supervisor::new(
        "probe",
        CallKind::Tool,
        &spec,
        RestartPolicy::default(),
        None,
    );
    pid(sup.call("execute", json!({}), LONG).await);
    // The server holds `hello` for 30 s; the call after it may wait only 200 ms.
    let slow = sup.call("hello", Json::Null, LONG);
    let short = Duration::from_millis(200);
    let quick = sup.call("execute", json!({}), short);
    tokio::pin!(slow);
    let first = tokio::select! {
        biased;
        _ = &mut slow => panic!("the call held for 30 s ended first"),
        quick = quick => quick,
    };
    let Err(no_reply) = first else {
        panic!("no reply can come while the server sleeps")
    };
    assert_eq!(
        no_reply.outcome,
        Outcome::TimedOut {
            after: short,
            nothing_read: false
        }
    );
    sup.kill();
    assert!(matches!(
        slow.await,
        Err(super::NoReply {
            outcome: Outcome::ServerFailed { .. },
            ..
        })
    ));
    sup.shutdown().await;
}
