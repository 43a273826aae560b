//! The one way tests start promptexec: a builder for the invocation, an [`Outcome`]
//! with expectations on what it printed, and a few process probes.
//!
//! ```ignore
//! promptexec()
//!     .in_dir(&dir)
//!     .args(["invoke-tool", "lookup_order", "--args", "{}"])
//!     .env("PIDFILE", &pidfile)
//!     .run()
//!     .expect_code(0)
//!     .stdout_has("A-1002");
//! ```

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::Value as Json;

/// The fixtures directory; tests run inside it so paths in messages stay short.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The contents of a run report's messages with `role`, in order.
pub fn contents_of(report: &Json, role: &str) -> Vec<String> {
    report["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == role)
        .map(|m| m["content"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The path of the binary under test.
pub fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_promptexec"))
}

/// Variables of the caller's environment that would change what promptexec does.
const SCRUBBED: &[&str] = &["PROMPTEXEC_CONFIG", "PROMPTEXEC_LIBRARY", "RUST_LOG"];

/// A promptexec invocation in the fixtures directory, isolated from the caller's
/// environment and without colour.
pub fn promptexec() -> Invocation {
    Invocation {
        dir: fixtures(),
        args: Vec::new(),
        env: Vec::new(),
        stdin: None,
        files: Vec::new(),
        shell_setup: None,
        timeout: None,
        keep_output: true,
    }
}

/// How to start promptexec once; [`Invocation::run`] starts it and waits.
#[must_use = "an invocation does nothing until it is run"]
pub struct Invocation {
    dir: PathBuf,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    stdin: Option<Vec<u8>>,
    files: Vec<(PathBuf, String)>,
    shell_setup: Option<String>,
    timeout: Option<Duration>,
    keep_output: bool,
}

impl Invocation {
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    pub fn args<I>(mut self, args: I) -> Self
    where
        I: IntoIterator,
        I::Item: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    pub fn env(mut self, name: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.env
            .push((name.as_ref().to_owned(), value.as_ref().to_owned()));
        self
    }

    /// Takes back a variable given with [`Invocation::env`].
    pub fn env_remove(mut self, name: &str) -> Self {
        self.env.retain(|(given, _)| given != name);
        self
    }

    /// Several variables at once, as `(name, value)` pairs.
    pub fn envs(mut self, pairs: &[(&str, &str)]) -> Self {
        for (name, value) in pairs {
            self = self.env(name, value);
        }
        self
    }

    /// The working directory (the fixtures directory unless given).
    pub fn in_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.dir = dir.as_ref().to_path_buf();
        self
    }

    /// Text piped to promptexec's stdin (otherwise stdin is empty).
    pub fn stdin(mut self, text: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(text.into());
        self
    }

    /// A file written into the working directory just before the run.
    pub fn file(mut self, name: impl AsRef<Path>, text: impl Into<String>) -> Self {
        self.files.push((name.as_ref().to_path_buf(), text.into()));
        self
    }

    /// A shell command run first in the same process (`umask 000`, `ulimit -n 256`),
    /// which then becomes promptexec.
    pub fn after_shell(mut self, setup: &str) -> Self {
        self.shell_setup = Some(setup.to_string());
        self
    }

    /// Kill promptexec if it has not finished by then: a guard against a hang.
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// Send stdout and stderr nowhere (for a process that is spawned and signalled).
    pub fn discard_output(mut self) -> Self {
        self.keep_output = false;
        self
    }

    /// The prepared command, with the files written.
    fn command(&self) -> std::process::Command {
        for (name, text) in &self.files {
            let path = self.dir.join(name);
            std::fs::write(&path, text)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        }
        let mut command = match &self.shell_setup {
            None => std::process::Command::new(binary()),
            Some(setup) => {
                let mut sh = std::process::Command::new("sh");
                sh.arg("-c")
                    .arg(format!("{setup} && exec \"$0\" \"$@\""))
                    .arg(binary());
                sh
            }
        };
        command.current_dir(&self.dir);
        for name in SCRUBBED {
            command.env_remove(name);
        }
        command.env("NO_COLOR", "1");
        command.env("PATH", path_with_interpreter());
        command.args(&self.args);
        for (name, value) in &self.env {
            command.env(name, value);
        }
        command
    }

    /// Starts promptexec, waits for it, and checks it did not panic.
    #[track_caller]
    pub fn run(self) -> Outcome {
        let mut command = assert_cmd::Command::from_std(self.command());
        if let Some(limit) = self.timeout {
            command.timeout(limit);
        }
        command.write_stdin(self.stdin.clone().unwrap_or_default());
        let started = Instant::now();
        let output = command.output().expect("promptexec runs");
        Outcome::of(output, started.elapsed(), self.shown())
    }

    /// The command line as a failure message shows it.
    fn shown(&self) -> String {
        let args: Vec<_> = self.args.iter().map(|a| a.to_string_lossy()).collect();
        format!("promptexec {}", args.join(" "))
    }

    /// Starts promptexec without waiting (stdin empty, stdout and stderr piped unless
    /// discarded); [`finish`] waits for it.
    pub fn spawn(self) -> Child {
        self.start(Stdio::null())
    }

    /// Starts promptexec with a pipe to its stdin, for a test that writes to it while
    /// promptexec runs; [`finish`] waits for it.
    pub fn spawn_fed(self) -> Child {
        self.start(Stdio::piped())
    }

    fn start(self, stdin: Stdio) -> Child {
        assert!(
            self.stdin.is_none(),
            "stdin text is for run(); a spawned promptexec gets a pipe or nothing"
        );
        let streams = || {
            if self.keep_output {
                Stdio::piped()
            } else {
                Stdio::null()
            }
        };
        self.command()
            .stdin(stdin)
            .stdout(streams())
            .stderr(streams())
            .spawn()
            .expect("promptexec starts")
    }
}

/// Waits for a spawned promptexec and reads what it printed.
#[track_caller]
pub fn finish(child: Child) -> Outcome {
    let started = Instant::now();
    let output = child.wait_with_output().expect("promptexec is waited for");
    Outcome::of(output, started.elapsed(), "a spawned promptexec".into())
}

/// What one run printed and how it ended.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    /// The command line, for failure messages.
    pub command: String,
}

impl Outcome {
    /// What a finished promptexec printed, checked for a panic.
    #[track_caller]
    fn of(output: std::process::Output, elapsed: Duration, command: String) -> Self {
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(
            !stderr.contains("panicked"),
            "promptexec panicked:\n{stderr}"
        );
        Outcome {
            code: output.status.code().expect("exited, not killed"),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr,
            elapsed,
            command,
        }
    }

    /// Exit code and stderr together, the way a snapshot should show them.
    pub fn report(&self) -> String {
        format!("exit: {}\n--- stderr\n{}", self.code, self.stderr)
    }

    #[track_caller]
    pub fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code, code,
            "exit code of `{}`\n--- stdout\n{}\n--- stderr\n{}",
            self.command, self.stdout, self.stderr
        );
        self
    }

    #[track_caller]
    pub fn stdout_has(&self, text: &str) -> &Self {
        self.holds("stdout", &self.stdout, text, true)
    }

    #[track_caller]
    pub fn stderr_has(&self, text: &str) -> &Self {
        self.holds("stderr", &self.stderr, text, true)
    }

    #[track_caller]
    pub fn stderr_lacks(&self, text: &str) -> &Self {
        self.holds("stderr", &self.stderr, text, false)
    }

    #[track_caller]
    pub fn stdout_lacks(&self, text: &str) -> &Self {
        self.holds("stdout", &self.stdout, text, false)
    }

    /// Any exit code but `code` (for a failure whose exact code is not the point).
    #[track_caller]
    pub fn expect_code_not(&self, code: i32) -> &Self {
        assert_ne!(
            self.code, code,
            "exit code of `{}`\n--- stdout\n{}\n--- stderr\n{}",
            self.command, self.stdout, self.stderr
        );
        self
    }

    /// Stdout is exactly `text`.
    #[track_caller]
    pub fn stdout_is(&self, text: &str) -> &Self {
        assert_eq!(self.stdout, text, "stdout\n--- stderr\n{}", self.stderr);
        self
    }

    /// Nothing on stdout.
    #[track_caller]
    pub fn stdout_empty(&self) -> &Self {
        self.stdout_is("")
    }

    /// Stdout as JSON lines, one document a line.
    #[track_caller]
    pub fn json_lines(&self) -> Vec<Json> {
        self.stdout
            .lines()
            .map(|line| {
                serde_json::from_str(line).unwrap_or_else(|e| {
                    panic!("a JSON document a line ({e}): {line}\n{}", self.report())
                })
            })
            .collect()
    }

    /// Checks that `stream` (called `name`) holds `text`, or does not when `wanted` is
    /// false.
    #[track_caller]
    fn holds(&self, name: &str, stream: &str, text: &str, wanted: bool) -> &Self {
        let verb = if wanted { "lacks" } else { "has" };
        assert!(
            stream.contains(text) == wanted,
            "{name} of `{}` {verb} {text:?}:\n{stream}",
            self.command
        );
        self
    }

    /// Stdout as one JSON report document, shown with the exit code on failure.
    #[track_caller]
    pub fn json_report(&self) -> Json {
        serde_json::from_str(&self.stdout).unwrap_or_else(|err| {
            panic!(
                "one JSON document on stdout ({err}):\n{}\n{}",
                self.stdout,
                self.report()
            )
        })
    }

    /// Stdout as one JSON document.
    #[track_caller]
    pub fn json(&self) -> Json {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\n--- stderr\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

/// The one set of snapshot filters: what varies between runs (the checkout's path,
/// temporary folders, times, durations, pids, keys, table padding) becomes a
/// placeholder. The specific filters come first, so `(12 ms)` reads `([ms])`.
pub fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(true);
    let root = regex::escape(&repo_root().display().to_string());
    let filters = [
        (root.as_str(), "[repo]"),
        (r"/tmp/\.tmp\w+", "[tmp]"),
        (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", "[time]"),
        (r#""duration_ms": ?\d+"#, r#""duration_ms": [ms]"#),
        (
            r"&quot;duration_ms&quot;: \d+",
            "&quot;duration_ms&quot;: [ms]",
        ),
        (r#""pid": ?\d+"#, r#""pid": [pid]"#),
        (r#""server_pid": ?\d+"#, r#""server_pid": [pid]"#),
        (r#"time="[\d.]+""#, r#"time="[s]""#),
        (r"\(\d+ ms\)", "([ms])"),
        (r"after \d+ ms", "after [ms]"),
        (r"\b\d+(\.\d+)? ?(ms|s|µs)\b", "[duration]"),
        (r"did:key:z\w+", "[did]"),
        // Column widths follow the values: keep cells, drop padding and rule length.
        (r" +([│┆])", " $1"),
        ("─{2,}([┬┴┼┐┘┤])", "─$1"),
        ("═{2,}([╪╡])", "═$1"),
    ];
    for (pattern, replacement) in filters {
        settings.add_filter(pattern, replacement);
    }
    settings
}

/// Runs `check`, an `insta` assertion, with [`snapshot_settings`] in force:
/// `filtered(|| insta::assert_snapshot!(out.stderr, @"…"))`.
pub fn filtered<R>(check: impl FnOnce() -> R) -> R {
    snapshot_settings().bind(check)
}

/// The run the README shows: the bundled example pack with its config, one message.
pub const README_RUN: [&str; 8] = [
    "-c",
    "runtimeconfig.example.yaml",
    "run",
    "examples/assistant.pack.json",
    "--var",
    "customer_name=Dana",
    "--message",
    "Hi, where is my order A-1002?",
];

/// The start of a config whose one provider is the mock playing `mock_file`; the rest of
/// `spec` follows, indented by two spaces.
pub fn mock_config_head(mock_file: impl std::fmt::Display) -> String {
    format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: RuntimeConfig
spec:
  providers:
    - id: mock
      type: mock
      additional_config:
        mock_config: {mock_file}
"
    )
}

/// A command with the bundled example config, from the repository root.
pub fn example_config() -> Invocation {
    promptexec()
        .in_dir(repo_root())
        .args(["-c", "runtimeconfig.example.yaml"])
}

/// `validate FLAGS -c runtimeconfig.example.yaml --pack examples/assistant.pack.json`
/// from the repository root: the bundled example checked.
pub fn validate_example(flags: &[&str]) -> Outcome {
    promptexec()
        .in_dir(repo_root())
        .arg("validate")
        .args(flags)
        .args([
            "-c",
            "runtimeconfig.example.yaml",
            "--pack",
            "examples/assistant.pack.json",
        ])
        .run()
}

/// `hook test HOOK --phase PHASE --event EVENT`: one hook's answer to one event.
pub fn hook_event<'a>(hook: &'a str, phase: &'a str, event: &'a str) -> [&'a str; 7] {
    ["hook", "test", hook, "--phase", phase, "--event", event]
}

/// The bundled example pack with its config, from the repository root, for the tests
/// that vary the rest of [`README_RUN`].
pub fn run_example() -> Invocation {
    example_config().args(["run", "examples/assistant.pack.json"])
}

/// [`run_example`] for Dana, who sends `message`; more arguments may follow.
pub fn dana_asks(message: &str) -> Invocation {
    run_example().args(["--var", "customer_name=Dana", "--message", message])
}

/// The host's `PATH` with the directory of the interpreter `python3` stands for in
/// front. A version manager's shim (pyenv's is a shell script that runs pyenv, which
/// then starts Python) costs each of the suite's thousands of extension starts a shell
/// and two more execs; the extensions run on the very same interpreter either way.
fn path_with_interpreter() -> &'static str {
    static PATH: OnceLock<String> = OnceLock::new();
    PATH.get_or_init(|| {
        let host = std::env::var("PATH").unwrap_or_default();
        let real = std::process::Command::new("python3")
            .args([
                "-c",
                "import os, sys; print(os.path.dirname(sys.executable))",
            ])
            .output();
        match real {
            Ok(out) if out.status.success() => {
                let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
                format!("{dir}:{host}")
            }
            _ => host,
        }
    })
}

/// [`README_RUN`] from the repository root, started once per test binary: the tests
/// that only read what that run printed share it instead of each playing the whole
/// example again.
pub fn readme_run() -> &'static Outcome {
    static RUN: OnceLock<Outcome> = OnceLock::new();
    RUN.get_or_init(|| promptexec().in_dir(repo_root()).args(README_RUN).run())
}

/// How many invocations of one test [`run_all`] runs at a time: enough to overlap the
/// waiting, few enough that the extensions they start (Python, mostly) still start
/// well within their deadlines on a 2-core machine running other tests too.
const AT_ONCE: usize = 3;

/// Runs the invocations a few at a time and returns the outcomes in order: the runs
/// of one test that do not depend on each other overlap instead of queueing.
pub fn run_all(invocations: Vec<Invocation>) -> Vec<Outcome> {
    let count = invocations.len();
    let queue = Mutex::new(invocations.into_iter().enumerate());
    let done = Mutex::new(Vec::with_capacity(count));
    std::thread::scope(|scope| {
        for _ in 0..AT_ONCE.min(count) {
            scope.spawn(|| {
                loop {
                    let next = queue.lock().expect("the queue is whole").next();
                    let Some((index, invocation)) = next else {
                        break;
                    };
                    let outcome = invocation.run();
                    done.lock().expect("no run panicked").push((index, outcome));
                }
            });
        }
    });
    let mut done = done.into_inner().expect("no run panicked");
    done.sort_by_key(|(index, _)| *index);
    done.into_iter().map(|(_, outcome)| outcome).collect()
}

/// Whether process `pid` still runs (a zombie waiting to be reaped does not count).
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X')),
        Err(_) => false,
    }
}

/// Whether process `pid` is gone, or goes within a few seconds: a signal that
/// promptexec sent to a process that is not its child is delivered asynchronously,
/// and nothing lets a test wait on a process that is not its own child. A process
/// that promptexec leaked outlives the wait and fails the test.
pub fn gone(pid: i32) -> bool {
    gone_within(pid, Duration::from_secs(5))
}

/// As [`gone`], waiting at most `limit`.
pub fn gone_within(pid: i32, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while alive(pid) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// The pid a fixture wrote to `path`.
#[track_caller]
pub fn pid_in(path: &Path) -> i32 {
    let text = std::fs::read_to_string(path).expect("the fixture wrote its pid");
    text.trim().parse().expect("a pid")
}

/// Waits, boundedly, until `ready` holds.
pub fn wait_for(what: &str, ready: impl Fn() -> bool) {
    let started = Instant::now();
    while !ready() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{what} never happened"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
