//! `--watch`: the suite plays again once per change to a file it reads (an
//! extension's own script included), a broken file is reported and waited past,
//! Ctrl-C ends it with 130 and nothing left running, and a live provider is not
//! played again without `--watch-live`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::util::{binary, copy_dir, fixtures, promptexec};

/// How long a run may take before a test gives up on it.
const PATIENCE: Duration = Duration::from_secs(60);
/// How long the absence of another run is waited for after a change's run.
const SETTLE: Duration = Duration::from_millis(800);

/// `promptexec run … --watch` in a copy of the diff fixture, its stderr read line by
/// line as it comes.
struct Watching {
    child: Child,
    lines: Receiver<String>,
    dir: tempfile::TempDir,
}

impl Watching {
    fn start(scenario: &str, env: &[(&str, &str)]) -> Self {
        Self::command(
            &["run", "diff.pack.json", "--watch", "-j", "1", scenario],
            env,
        )
    }

    fn command(args: &[&str], env: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().expect("a temp dir");
        copy_dir(&fixtures().join("diff"), dir.path());
        let mut child = Command::new(binary())
            .current_dir(dir.path())
            .args(["-c", "runtimeconfig.yaml"])
            .args(args)
            .env_remove("PROMPTEXEC_WATCH_POLL")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("promptexec starts");
        let stderr = child.stderr.take().expect("stderr");
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Self { child, lines, dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The lines up to and including the next `watching …` line.
    fn until_watching(&self) -> Vec<String> {
        let deadline = Instant::now() + PATIENCE;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.starts_with("watching ");
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(_) => panic!("no `watching` line; stderr so far:\n{}", seen.join("\n")),
            }
        }
    }

    /// The lines that come within [`SETTLE`]: none, when nothing runs.
    fn quiet(&self) -> Vec<String> {
        let until = Instant::now() + SETTLE;
        let mut seen = Vec::new();
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => seen.push(line),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return seen,
            }
        }
    }

    /// SIGINT, then the exit code.
    fn interrupt(mut self) -> (i32, tempfile::TempDir) {
        kill(Pid::from_raw(self.child.id() as i32), Signal::SIGINT).expect("SIGINT");
        let status = self.child.wait().expect("promptexec exits");
        (status.code().unwrap_or(-1), self.dir)
    }
}

fn runs(lines: &[String]) -> usize {
    lines.iter().filter(|l| l.starts_with("suite: ")).count()
}

/// Processes whose working folder is inside `dir`: what the suite started there.
fn left_in(dir: &Path) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd.starts_with(dir))
        })
        .collect()
}

/// Rewrites a file the way an editor saves it: a new file renamed over the old.
fn save(path: &Path, text: &str) {
    let fresh = path.with_extension("swp-new");
    std::fs::write(&fresh, text).expect("write");
    std::fs::rename(&fresh, path).expect("rename");
}

fn edit_the_tool_then_interrupt(env: &[(&str, &str)]) -> Vec<String> {
    let watching = Watching::start("scenarios/lookup-order.scenario.yaml", env);
    let first = watching.until_watching();
    assert_eq!(runs(&first), 1, "{first:?}");
    let tool = watching.path("lookup.py");
    let script = std::fs::read_to_string(&tool).expect("the tool");
    save(&tool, &format!("{script}# edited\n"));
    // A write time seconds ahead, as a save a second after the last poll has: polling
    // tells that from a change of mode, which is no change.
    let later = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("a clock")
        .as_secs()
        + 5;
    let touched = Command::new("touch")
        .arg("-d")
        .arg(format!("@{later}"))
        .arg(&tool)
        .status()
        .expect("touch");
    assert!(touched.success());
    let again = watching.until_watching();
    assert_eq!(runs(&again), 1, "one change, one run: {again:?}");
    let after = watching.quiet();
    assert_eq!(runs(&after), 0, "nothing more runs: {after:?}");
    let (code, dir) = watching.interrupt();
    assert_eq!(code, 130);
    assert_eq!(
        left_in(dir.path()),
        Vec::<i32>::new(),
        "nothing left running"
    );
    [first, again].concat()
}

#[test]
fn an_edited_extension_script_plays_the_suite_once_more_and_ctrl_c_ends_it() {
    let lines = edit_the_tool_then_interrupt(&[]);
    assert!(
        lines.iter().any(|l| l.contains("Ctrl-C to stop")),
        "{lines:?}"
    );
}

#[test]
fn polling_sees_the_same_change() {
    let lines = edit_the_tool_then_interrupt(&[("PROMPTEXEC_WATCH_POLL", "1")]);
    assert!(lines.iter().any(|l| l.contains("(polling)")), "{lines:?}");
}

#[test]
fn a_broken_scenario_is_reported_and_its_fix_plays() {
    let watching = Watching::start("scenarios/lookup-order.scenario.yaml", &[]);
    watching.until_watching();
    let scenario = watching.path("scenarios/lookup-order.scenario.yaml");
    let good = std::fs::read_to_string(&scenario).expect("the scenario");
    save(&scenario, "spec: [unclosed\n");
    let broken = watching.until_watching();
    assert_eq!(runs(&broken), 0, "{broken:?}");
    assert!(
        broken
            .iter()
            .any(|l| l.contains("lookup-order.scenario.yaml:")),
        "the error is placed: {broken:?}"
    );
    save(&scenario, &good);
    let fixed = watching.until_watching();
    assert_eq!(runs(&fixed), 1, "{fixed:?}");
    let (code, _dir) = watching.interrupt();
    assert_eq!(code, 130);
}

#[test]
fn test_cases_play_again_when_their_file_changes() {
    let watching = Watching::command(&["test", "diff.cases.yaml", "--watch"], &[]);
    let first = watching.until_watching();
    assert!(
        first.iter().any(|l| l.starts_with("summary: ")),
        "{first:?}"
    );
    let cases = watching.path("diff.cases.yaml");
    let text = std::fs::read_to_string(&cases).expect("the cases");
    save(&cases, &format!("{text}\n"));
    let again = watching.until_watching();
    assert_eq!(
        again.iter().filter(|l| l.starts_with("summary: ")).count(),
        1,
        "{again:?}"
    );
    let (code, _dir) = watching.interrupt();
    assert_eq!(code, 130);
}

#[test]
fn a_live_provider_is_not_played_again_without_watch_live() {
    let dir = tempfile::tempdir().expect("a temp dir");
    copy_dir(&fixtures().join("diff"), dir.path());
    let config = "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  providers:\n    - id: paid\n      type: openai\n      model: gpt-4o\n";
    std::fs::write(dir.path().join("live.yaml"), config).expect("a config");
    promptexec()
        .in_dir(dir.path())
        .args(["-c", "live.yaml", "run", "diff.pack.json", "--watch"])
        .run()
        .expect_code(2)
        .stderr_has("live provider `paid`")
        .stderr_has("--watch-live");
}

#[test]
fn a_broken_config_keeps_what_it_named_watched() {
    let watching = Watching::start("scenarios/lookup-order.scenario.yaml", &[]);
    watching.until_watching();
    let config = watching.path("runtimeconfig.yaml");
    let good = std::fs::read_to_string(&config).expect("the config");
    save(&config, "spec: [unclosed\n");
    let broken = watching.until_watching();
    assert_eq!(runs(&broken), 0, "{broken:?}");
    assert!(
        broken.iter().any(|l| l.contains("runtimeconfig.yaml:")),
        "{broken:?}"
    );
    // The tool the config named before is still watched.
    let tool = watching.path("lookup.py");
    let script = std::fs::read_to_string(&tool).expect("the tool");
    save(&tool, &format!("{script}# edited\n"));
    let again = watching.until_watching();
    assert_eq!(runs(&again), 0, "the config is still broken: {again:?}");
    save(&config, &good);
    let fixed = watching.until_watching();
    assert_eq!(runs(&fixed), 1, "{fixed:?}");
    let (code, _dir) = watching.interrupt();
    assert_eq!(code, 130);
}
