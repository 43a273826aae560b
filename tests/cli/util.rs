//! The one way tests start promptexec: a builder for the invocation, an [`Outcome`]
//! with expectations on what it printed, one set of snapshot filters, and a few
//! process probes. A test states what it expects through them, not with asserts on
//! the raw streams.
//!
//! ```ignore
//! promptexec()
//!     .in_dir(&dir)
//!     .args(["invoke-tool", "lookup_order", "--args", "{}"])
//!     .env("PIDFILE", &pidfile)
//!     .run()
//!     .expect_code(0)
//!     .stdout_has("A-1002")
//!     .stderr_lacks("warning");
//! ```
//!
//! - [`Invocation`]: `arg`, `args`, `env`, `envs`, `env_remove`, `in_dir`, `stdin`,
//!   `file`, `after_shell`, `timeout`, `discard_output`; then `run` (waits), or
//!   `spawn` / `spawn_fed` and [`finish`].
//! - [`Outcome`]: `expect_code`, `expect_code_not`, `stdout_has`, `stdout_lacks`,
//!   `stdout_is`, `stdout_empty`, `stderr_has`, `stderr_lacks` (each returns the
//!   outcome, so they chain); `json`, `json_report`, `json_lines` parse stdout; a
//!   failure shows the command line, the exit code and both streams.
//! - Snapshots: `filtered(|| insta::assert_snapshot!(out.stderr, @"…"))` applies
//!   the one filter set (paths, times, durations, pids) of `util/snapshot.rs`.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::Value as Json;

mod browser;
mod outcome;
mod process;
mod project;
mod snapshot;

pub use browser::{browser_driver, driver_json};
pub use outcome::Outcome;
pub use process::{alive, gone, gone_within, pid_in, wait_for};
pub use project::{copy_dir, scenario_assertions};
pub use snapshot::filtered;

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

/// A validator of the official SARIF 2.1.0 schema, which `.ci/run` installs.
pub fn sarif_validator() -> jsonschema::Validator {
    let path = repo_root().join("target/sarif-schema/sarif-2.1.0.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| {
        panic!(
            "the SARIF 2.1.0 schema is not at {} ({err}): run `.ci/run`, which installs it",
            path.display()
        )
    });
    // The released schema's pattern for `run.language` has a stray `]`, which SARIF's
    // errata correct to this; the pattern concerns nothing promptexec writes.
    let broken = r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#;
    assert!(
        text.contains(broken),
        "the schema at {} changed",
        path.display()
    );
    let text = text.replace(broken, r#""^[a-zA-Z]{2}(-[a-zA-Z]{2})?$""#);
    let schema: Json = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("a valid schema")
}
