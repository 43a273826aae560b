//! What it costs to start promptexec, against the smallest programs that do the same
//! job, all measured in the same run:
//! - `promptexec --version` against `/bin/true`;
//! - `promptexec invoke-tool` with a trivial compiled tool against running that tool
//!   directly with the same stdin;
//! - minor page faults of each (getrusage of the waited children; for invoke-tool they
//!   include the tool's own) and the size of the binary;
//! - promptexec's resident memory while a call is in flight: the tool holds the call
//!   open until this program releases it through a FIFO, and its own resident memory
//!   is the baseline.
//!
//! Rounds are interleaved so machine noise hits every side alike; the first ones warm
//! the caches and are not counted.
//!
//! Run: `cargo bench --bench startup` (BENCH_ROUNDS=N to change the round count;
//! BENCH_PROMPTEXEC=PATH to measure another build of promptexec, say an older one).
//! The trivial tool is this very program, started with `--as-tool` or `--hold`.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::resource::{UsageWho, getrusage};

/// What promptexec writes to an exec tool for `--args '{"x":1}'`.
const REQUEST: &[u8] = br#"{"args":{"x":1}}"#;
const ANSWER: &[u8] = br#"{"result":{"ok":true}}"#;
const WARM_UP: usize = 10;
/// How many held calls the resident-memory figure is the median of.
const HELD_CALLS: usize = 7;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("--as-tool") => return trivial_tool(),
        Some("--hold") => return held_tool(Path::new(&args[2]), Path::new(&args[3])),
        _ => {}
    }
    let rounds: usize = std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let bench = Bench::new();

    let mut version = Pair::new("/bin/true (floor)", "promptexec --version");
    let mut invoke = Pair::new("tool run directly (floor)", "promptexec invoke-tool");
    for round in 0..rounds + WARM_UP {
        let counted = round >= WARM_UP;
        version
            .floor
            .add(counted, run(Command::new("/bin/true"), None));
        version
            .measured
            .add(counted, run(bench.promptexec(&["--version"]), None));
        invoke.floor.add(counted, run(bench.tool(), Some(REQUEST)));
        invoke.measured.add(
            counted,
            run(
                bench.promptexec(&["invoke-tool", "trivial", "--args", r#"{"x":1}"#]),
                None,
            ),
        );
    }

    println!("start-up, {rounds} rounds, medians:");
    println!(
        "  {:<28} {:>9}  {:>9}  {:>6}  {:>11}",
        "", "median", "p90", "ratio", "page faults"
    );
    let version_ratio = version.print();
    let invoke_ratio = invoke.print();

    let held = bench.held_rss();
    let size = std::fs::metadata(&bench.binary).map_or(0, |m| m.len());
    println!();
    println!("resident memory while one call is in flight, median of {HELD_CALLS}:");
    println!(
        "  the tool itself (floor)      {:>7.2} MiB",
        mib(held.tool.total)
    );
    println!(
        "  promptexec invoke-tool       {:>7.2} MiB  ({:.2} MiB file-backed, {:.2} MiB anonymous)  {:.2}x",
        mib(held.promptexec.total),
        mib(held.promptexec.file),
        mib(held.promptexec.anon),
        held.promptexec.total as f64 / held.tool.total as f64
    );
    println!();
    println!(
        "binary: {:.1} MB ({})",
        size as f64 / 1e6,
        bench.binary.display()
    );
    println!();
    println!("acceptance:");
    verdict("--version vs /bin/true", version_ratio, "x", 2.0);
    verdict(
        "invoke-tool vs the tool run directly",
        invoke_ratio,
        "x",
        3.0,
    );
    verdict(
        "idle RSS during a call",
        mib(held.promptexec.total),
        " MiB",
        5.0,
    );
}

fn verdict(what: &str, value: f64, unit: &str, limit: f64) {
    let mark = if value <= limit { "ok" } else { "OVER" };
    println!("  {what:<38} {value:>6.2}{unit} (limit {limit}{unit}) {mark}");
}

/// Where the bench's files are, and the commands it runs.
struct Bench {
    dir: PathBuf,
    config: PathBuf,
    binary: PathBuf,
    tool: PathBuf,
}

impl Bench {
    fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("promptexec-startup-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("bench dir");
        let tool = std::env::current_exe().expect("own path");
        let release = dir.join("release.fifo");
        nix::unistd::mkfifo(&release, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
        let config = dir.join("runtimeconfig.yaml");
        let exec = |args: &str| {
            format!(
                "      exec:\n        command: {}\n        args: [{args}]\n",
                tool.display()
            )
        };
        let text = format!(
            "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  tools:\n    trivial:\n{}    held:\n{}",
            exec("--as-tool"),
            exec(&format!(
                "--hold, {}, {}",
                release.display(),
                dir.join("ready").display()
            )),
        );
        std::fs::write(&config, text).expect("bench config");
        Bench {
            dir,
            config,
            binary: std::env::var_os("BENCH_PROMPTEXEC")
                .map_or_else(|| env!("CARGO_BIN_EXE_promptexec").into(), PathBuf::from),
            tool,
        }
    }

    fn promptexec(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.binary);
        command.arg("-c").arg(&self.config).args(args);
        command
    }

    fn tool(&self) -> Command {
        let mut command = Command::new(&self.tool);
        command.arg("--as-tool");
        command
    }

    /// Resident memory of promptexec and of the tool while the tool holds the call.
    fn held_rss(&self) -> Held {
        let ready = self.dir.join("ready");
        let mut promptexec = Vec::new();
        let mut tool = Vec::new();
        for _ in 0..HELD_CALLS {
            let _ = std::fs::remove_file(&ready);
            let child = self
                .promptexec(&["invoke-tool", "held", "--args", r#"{"x":1}"#])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("run promptexec");
            let tool_pid = await_ready(&ready);
            promptexec.push(Rss::of(child.id()));
            tool.push(Rss::of(tool_pid));
            // Opening the FIFO and closing it again lets the tool answer.
            drop(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(self.dir.join("release.fifo"))
                    .expect("open the release FIFO"),
            );
            finish(child);
        }
        Held {
            promptexec: Rss::median(promptexec),
            tool: Rss::median(tool),
        }
    }
}

impl Drop for Bench {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The tool's pid, once it has written it: it is then holding its call.
fn await_ready(ready: &Path) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(pid) = std::fs::read_to_string(ready)
            .ok()
            .and_then(|text| text.parse().ok())
        {
            return pid;
        }
        assert!(Instant::now() < deadline, "the held tool never started");
        std::thread::sleep(Duration::from_millis(1));
    }
}

struct Held {
    promptexec: Rss,
    tool: Rss,
}

/// Resident memory from /proc/PID/status, in bytes.
#[derive(Clone, Copy)]
struct Rss {
    total: u64,
    file: u64,
    anon: u64,
}

impl Rss {
    fn of(pid: u32) -> Self {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
        let field = |name: &str| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| {
                    rest.trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<u64>()
                        .ok()
                })
                .map_or(0, |kib| kib * 1024)
        };
        Rss {
            total: field("VmRSS:"),
            file: field("RssFile:"),
            anon: field("RssAnon:"),
        }
    }

    fn median(mut all: Vec<Rss>) -> Rss {
        all.sort_by_key(|rss| rss.total);
        all[all.len() / 2]
    }
}

/// A measured command and the floor it is compared with.
struct Pair {
    floor: Samples,
    measured: Samples,
}

impl Pair {
    fn new(floor: &'static str, measured: &'static str) -> Self {
        Pair {
            floor: Samples::new(floor),
            measured: Samples::new(measured),
        }
    }

    /// Prints both rows; returns the ratio of the medians.
    fn print(&mut self) -> f64 {
        let floor = self.floor.row(None);
        self.measured.row(Some(floor)).as_secs_f64() / floor.as_secs_f64()
    }
}

#[derive(Clone, Copy)]
struct Sample {
    wall: Duration,
    faults: i64,
}

struct Samples {
    name: &'static str,
    all: Vec<Sample>,
}

impl Samples {
    fn new(name: &'static str) -> Self {
        Samples {
            name,
            all: Vec::new(),
        }
    }

    fn add(&mut self, counted: bool, sample: Sample) {
        if counted {
            self.all.push(sample);
        }
    }

    /// Prints one row against `floor` (its own median when `None`); returns the median.
    fn row(&mut self, floor: Option<Duration>) -> Duration {
        let mut walls: Vec<Duration> = self.all.iter().map(|s| s.wall).collect();
        let mut faults: Vec<i64> = self.all.iter().map(|s| s.faults).collect();
        walls.sort();
        faults.sort();
        let median = walls[walls.len() / 2];
        let p90 = walls[(walls.len() - 1) * 9 / 10];
        let ratio = median.as_secs_f64() / floor.unwrap_or(median).as_secs_f64();
        println!(
            "  {:<28} {:>7.3}ms  {:>7.3}ms  {:>5.2}x  {:>11}",
            self.name,
            ms(median),
            ms(p90),
            ratio,
            faults[faults.len() / 2]
        );
        median
    }
}

/// Runs `command` to the end with `stdin` (or none), its output read and dropped.
fn run(mut command: Command, stdin: Option<&[u8]>) -> Sample {
    let before = child_faults();
    let start = Instant::now();
    let mut child = command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(bytes).expect("write stdin");
    }
    finish(child);
    Sample {
        wall: start.elapsed(),
        faults: child_faults() - before,
    }
}

/// Waits for `child`, which must succeed.
fn finish(child: Child) {
    let output = child.wait_with_output().expect("wait");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Minor page faults of every child waited for so far.
fn child_faults() -> i64 {
    getrusage(UsageWho::RUSAGE_CHILDREN).map_or(0, |usage| usage.minor_page_faults())
}

fn trivial_tool() {
    let mut input = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut input);
    let _ = std::io::stdout().write_all(ANSWER);
}

/// Like the trivial tool, but says it is running (its pid in `ready`) and answers
/// only once the `release` FIFO has been opened and closed.
fn held_tool(release: &Path, ready: &Path) {
    let mut input = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut input);
    let partial = ready.with_extension("partial");
    std::fs::write(&partial, std::process::id().to_string()).expect("write pid");
    std::fs::rename(&partial, ready).expect("publish pid");
    let mut held = std::fs::File::open(release).expect("open the release FIFO");
    let _ = held.read_to_end(&mut input);
    let _ = std::io::stdout().write_all(ANSWER);
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}
