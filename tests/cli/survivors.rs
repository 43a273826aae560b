//! No survivor, ever: a detached chain of any depth is gone when its call ends and
//! when promptexec exits; a promptexec killed with SIGKILL takes its server tools
//! and MCP servers with it; an interrupted suite starts nothing after the signal.

use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::util::{alive, fixtures, gone_within, pid_in, promptexec, wait_for};

fn survivors_dir() -> PathBuf {
    fixtures().join("survivors")
}

/// A mark no other test uses, for the processes of this one.
fn unique_mark(what: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("{what}-{}-{nanos}", std::process::id())
}

/// The live processes whose environment holds `SURVIVOR_MARK=mark`.
fn marked(mark: &str) -> Vec<i32> {
    let entry = format!("SURVIVOR_MARK={mark}");
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|e| e == entry.as_bytes()))
        })
        .filter(|pid| alive(*pid))
        .collect()
}

/// Kills what a failing test left, so that it leaks nothing.
struct Cleanup(Vec<i32>);

impl Drop for Cleanup {
    fn drop(&mut self) {
        for pid in &self.0 {
            let _ = kill(Pid::from_raw(*pid), Signal::SIGKILL);
        }
    }
}

#[test]
fn a_fifty_deep_chain_of_setsid_processes_is_gone_when_its_call_ends_and_at_exit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mark = unique_mark("chain");
    let out = promptexec()
        .in_dir(survivors_dir())
        .args(["-c", "survivors.yaml", "run", "survivors.pack.json"])
        .args(["--prompt", "chain", "--message", "go"])
        .env("SURVIVOR_DIR", dir.path())
        .env("SURVIVOR_MARK", &mark)
        .env("PROBE_MARK", &mark)
        .timeout(Duration::from_secs(60))
        .run();
    let left = marked(&mark);
    let _cleanup = Cleanup(left.clone());
    out.expect_code(0).stderr_has("started a chain of 50");
    let pids = std::fs::read_to_string(dir.path().join("chain.pids")).expect("the chain ran");
    assert_eq!(pids.lines().count(), 50, "every level started");
    let probed = std::fs::read_to_string(dir.path().join("probe.out")).expect("the probe ran");
    assert_eq!(probed.trim(), "0", "the next call still saw the chain");
    assert_eq!(left, Vec::<i32>::new(), "processes of the chain survived");
}

/// A config with a server tool and an MCP server on the official `mcp` package,
/// written into `dir`; both write their pids there.
fn held_config(dir: &Path) -> PathBuf {
    let fixtures = survivors_dir();
    let config = format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: RuntimeConfig
spec:
  providers:
    - id: mock
      type: mock
      additional_config:
        mock_config: {mock}
  tools:
    keeper:
      exec: {{ command: {keeper}, runtime: server, env: [SURVIVOR_DIR] }}
  mcp_servers:
    - name: holder
      command: {server}
      env: {{ SURVIVOR_DIR: {dir} }}
      timeout_ms: 60000
",
        mock = fixtures.join("survivors.mock.yaml").display(),
        keeper = fixtures.join("keeper.py").display(),
        server = fixtures.join("mcp_server.py").display(),
        dir = dir.display(),
    );
    let path = dir.join("held.yaml");
    std::fs::write(&path, config).expect("config");
    path
}

#[test]
fn sigkill_of_promptexec_takes_its_server_tool_and_mcp_server_with_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = held_config(dir.path());
    let mut run = promptexec()
        .in_dir(survivors_dir())
        .arg("-c")
        .arg(&config)
        .args([
            "run",
            "survivors.pack.json",
            "--prompt",
            "held",
            "--message",
            "go",
        ])
        .env("SURVIVOR_DIR", dir.path())
        .discard_output()
        .spawn();
    // The MCP tool writes the server's pid once it is called, after the server tool
    // answered: both run now, and promptexec waits on the MCP call.
    let mcp_pid = dir.path().join("mcp.pid");
    wait_for("the MCP tool being called", || mcp_pid.exists());
    let (keeper, server) = (pid_in(&dir.path().join("keeper.pid")), pid_in(&mcp_pid));
    let _cleanup = Cleanup(vec![keeper, server]);
    assert!(alive(keeper) && alive(server), "both run before the kill");
    kill(Pid::from_raw(run.id() as i32), Signal::SIGKILL).expect("send SIGKILL");
    run.wait().expect("promptexec is gone");
    for (what, pid) in [("server tool", keeper), ("MCP server", server)] {
        assert!(
            gone_within(pid, Duration::from_secs(10)),
            "the {what} {pid} outlived promptexec"
        );
    }
}

/// One interrupted suite: `jobs` workers, stopped by `signal` once each of them
/// blocks in its first tool. Returns what the starts file says after the marker the
/// test wrote right before the signal, and promptexec's exit code.
struct Interrupted {
    child: Child,
    dir: tempfile::TempDir,
    jobs: usize,
    signal: Signal,
}

const SCENARIOS: [&str; 4] = ["s1", "s2", "s3", "s4"];
const MARKER: &str = "signal sent";

impl Interrupted {
    fn start(jobs: usize, signal: Signal) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut suite = promptexec()
            .in_dir(survivors_dir())
            .args(["-c", "survivors.yaml", "run", "survivors.pack.json"])
            .args(["-j", &jobs.to_string()])
            .env("SURVIVOR_DIR", dir.path())
            .discard_output();
        for id in SCENARIOS {
            suite = suite.arg(format!("scenarios/{id}.scenario.yaml"));
        }
        Self {
            child: suite.spawn(),
            dir,
            jobs,
            signal,
        }
    }

    fn starts(&self) -> Vec<String> {
        std::fs::read_to_string(self.dir.path().join("starts"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Whether every worker has started its first tool, which blocks.
    fn all_blocked(&self) -> bool {
        self.starts().len() >= self.jobs
    }

    /// Writes the marker into the same append-only file the tools write to, then
    /// sends the signal: a line after the marker is a start after the signal.
    fn interrupt(&mut self) {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(self.dir.path().join("starts"))
            .expect("the starts file");
        writeln!(file, "{MARKER}").expect("the marker");
        drop(file);
        kill(Pid::from_raw(self.child.id() as i32), self.signal).expect("send the signal");
    }

    /// Waits for promptexec; its exit code and the lines after the marker.
    fn finish(mut self) -> (i32, Vec<String>) {
        let status = self.child.wait().expect("promptexec exits");
        let starts = self.starts();
        let after = starts
            .iter()
            .skip_while(|l| *l != MARKER)
            .skip(1)
            .cloned()
            .collect();
        (status.code().unwrap_or(-1), after)
    }
}

#[test]
fn a_hundred_interrupted_suites_start_nothing_after_the_signal() {
    const SUITES: usize = 100;
    const BATCH: usize = 10;
    let signals = [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP];
    let mut failures = Vec::new();
    for batch in 0..SUITES / BATCH {
        let mut suites: Vec<Interrupted> = (0..BATCH)
            .map(|i| {
                let n = batch * BATCH + i;
                Interrupted::start(1 + n % 2, signals[n % signals.len()])
            })
            .collect();
        for suite in &mut suites {
            wait_for("every worker blocking in its first tool", || {
                suite.all_blocked()
            });
            suite.interrupt();
        }
        for suite in suites {
            let (jobs, signal) = (suite.jobs, suite.signal);
            let (code, after) = suite.finish();
            if code != 130 || !after.is_empty() {
                failures.push(format!(
                    "-j {jobs}, {signal}: exit {code}, started after the signal: {after:?}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// One test per way a server tool cannot start.
mod a_server_that_cannot_start_is_named_as_written_not_by_its_tethered_start {
    #[test]
    fn a_command_that_does_not_exist() {
        super::cannot_start("absent", "absent.sh` does not exist");
    }

    #[test]
    fn a_command_that_is_not_executable() {
        super::cannot_start("plain", "plain.sh` is not executable (permission denied)");
    }
}

/// `invoke-tool TOOL` of a server tool that cannot start fails, saying `said` about
/// the command as written and nothing of the tethered start.
fn cannot_start(tool: &str, said: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let plain = dir.path().join("plain.sh");
    std::fs::write(&plain, "#!/bin/sh\n").expect("a file without an execute bit");
    let config = format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: RuntimeConfig
spec:
  tools:
    absent:
      exec: {{ command: {absent}, runtime: server, timeout_ms: 5000 }}
    plain:
      exec: {{ command: {plain}, runtime: server, timeout_ms: 5000 }}
",
        absent = dir.path().join("absent.sh").display(),
        plain = plain.display(),
    );
    std::fs::write(dir.path().join("c.yaml"), config).expect("config");
    let out = promptexec()
        .in_dir(dir.path())
        .args(["-c", "c.yaml", "invoke-tool", tool, "--args", "{}"])
        .timeout(Duration::from_secs(30))
        .run();
    out.expect_code_not(0)
        .stderr_has(said)
        .stderr_lacks("tethered")
        .stderr_lacks("/proc/self/exe");
}

#[test]
fn a_hostile_mcp_server_that_detaches_and_ignores_sigterm_leaves_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mark = unique_mark("hostile");
    let config = format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: RuntimeConfig
spec:
  mcp_servers:
    - name: holder
      command: {server}
      env: {{ SURVIVOR_DIR: {dir}, SURVIVOR_MARK: {mark}, HOSTILE: \"1\" }}
      timeout_ms: 60000
",
        server = survivors_dir().join("mcp_server.py").display(),
        dir = dir.path().display(),
    );
    std::fs::write(dir.path().join("c.yaml"), config).expect("config");
    let out = promptexec()
        .in_dir(dir.path())
        .args([
            "-c",
            "c.yaml",
            "invoke-tool",
            "mcp__holder__ping",
            "--args",
            "{}",
        ])
        .timeout(Duration::from_secs(60))
        .run();
    let left = marked(&mark);
    let _cleanup = Cleanup(left.clone());
    out.expect_code(0).stdout_has("pong");
    let sleeps =
        std::fs::read_to_string(dir.path().join("sleeps")).expect("the server left sleeps");
    assert_eq!(sleeps.lines().count(), 2, "{sleeps}");
    assert_eq!(left, Vec::<i32>::new(), "the server or its sleeps survived");
}
