//! `Call::watch_leftovers` against small shell tools: what a tool leaves running in
//! its group or detached with its spawn id is listed, what exits within the settle
//! period is not.

use std::path::Path;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::{Call, CallKind, Finished, Leftover, run};
use crate::config::{self, ExecSpec};

/// A one-shot tool running `script` under `sh -c`, as a config in `dir` declares it.
fn tool(dir: &Path, script: &str) -> ExecSpec {
    let file = dir.join("promptexec.yaml");
    let yaml = format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  tools:\n    leaver:\n      exec: {{ command: sh, args: [-c, {}] }}\n",
        serde_json::to_string(script).expect("a string")
    );
    std::fs::write(&file, yaml).expect("config");
    let loaded = config::load(&file, true).expect("the config loads");
    loaded.value.tools["leaver"]
        .exec()
        .cloned()
        .expect("an exec tool")
}

async fn call(script: &str, watch: bool) -> Finished {
    let dir = tempfile::tempdir().expect("temp dir");
    let spec = tool(dir.path(), script);
    let mut call = Call::new("leaver", CallKind::Tool, &spec, &b"{}"[..]);
    call.watch_leftovers = watch;
    run(&call, &CancellationToken::new()).await
}

/// Whether `pid` runs (a zombie does not).
fn running(pid: i32) -> bool {
    super::procfs::stat(pid).is_some_and(|s| !s.is_dead())
}

/// Waits a bounded time for `pid`, which is not our child, to stop running.
async fn stops(pid: i32) -> bool {
    for _ in 0..500 {
        if !running(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

#[tokio::test]
async fn a_process_left_in_the_group_is_listed_then_killed() {
    let done = call("sleep 37 & echo '{\"result\": 1}'", true).await;
    assert_eq!(done.exit_code(), Some(0));
    let [Leftover { pid, command_line }] = done.leftovers.as_slice() else {
        panic!("one leftover: {:?}", done.leftovers);
    };
    assert_eq!(command_line, "sleep 37");
    assert!(stops(*pid).await, "the group was killed after the listing");
}

#[tokio::test]
async fn a_process_that_exits_within_the_settle_period_is_not_a_leftover() {
    let done = call("sleep 0.05 & echo '{\"result\": 1}'", true).await;
    assert_eq!(done.leftovers, []);
}

#[tokio::test]
async fn leftovers_are_looked_for_only_when_asked() {
    let done = call("sleep 38 & echo '{\"result\": 1}'", false).await;
    assert_eq!(done.exit_code(), Some(0));
    assert_eq!(done.leftovers, []);
}

#[tokio::test]
async fn a_detached_process_is_found_by_its_spawn_id() {
    let done = call(
        "setsid sleep 39 < /dev/null > /dev/null 2>&1 & echo '{\"result\": 1}'",
        true,
    )
    .await;
    // Without a subreaper here (tests are not the promptexec binary) nothing kills it
    // on its way out: this test does, before it asserts anything.
    for left in &done.leftovers {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(left.pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let lines: Vec<&str> = done
        .leftovers
        .iter()
        .map(|l| l.command_line.as_str())
        .collect();
    assert_eq!(lines, ["sleep 39"]);
}
