//! What `promptexec invoke-tool --batch FILE -j 64` costs as the input grows: peak RSS
//! and calls per second at 2,000 and 200,000 lines through a server-mode tool, and at
//! 2,000 and 20,000 lines through a one-shot tool (a process per call).
//!
//! The baseline, measured in the same run and interleaved round by round with the
//! batches, is one call through `invoke-tool --args` to the same server tool: the
//! batch's peak RSS is shown as a ratio to it. With `BENCH_BEFORE=PATH` an older
//! promptexec binary runs the same cases in the same rounds, for a before/after table.
//!
//! Each measured promptexec is started by a fresh copy of this program (`--measure`),
//! which waits for it and reads `getrusage(RUSAGE_CHILDREN)`: the peak RSS of one
//! process tree alone. The tools are this program too (`--as-tool`, `--as-server`).
//!
//! Run: `cargo bench --bench batch`. BENCH_ROUNDS=N (default 3) changes the rounds,
//! BENCH_ONESHOT_LINES=N the larger one-shot batch.

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use nix::sys::resource::{UsageWho, getrusage};

const SMALL: usize = 2_000;
const LARGE: usize = 200_000;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--as-tool") => return answer_once(),
        Some("--as-server") => return serve(),
        Some("--measure") => return measure(&args[1..]),
        _ => {}
    }
    let rounds = env_number("BENCH_ROUNDS", 3);
    let one_shot_large = env_number("BENCH_ONESHOT_LINES", 20_000);
    let dir = tempfile::tempdir().expect("bench dir");
    let config = write_config(dir.path());

    let mut binaries = vec![("after", PathBuf::from(env!("CARGO_BIN_EXE_promptexec")))];
    if let Ok(before) = std::env::var("BENCH_BEFORE") {
        binaries.insert(0, ("before", PathBuf::from(before)));
    }
    let cases = [
        Case::single(),
        Case::batch("server", SMALL, dir.path()),
        Case::batch("server", LARGE, dir.path()),
        Case::batch("oneshot", SMALL, dir.path()),
        Case::batch("oneshot", one_shot_large, dir.path()),
    ];

    // samples[binary][case]: one (peak KiB, seconds) per round.
    let mut samples = vec![vec![Vec::new(); cases.len()]; binaries.len()];
    for round in 1..=rounds {
        eprintln!("round {round}/{rounds}");
        for (c, case) in cases.iter().enumerate() {
            for (b, (_, binary)) in binaries.iter().enumerate() {
                samples[b][c].push(run_measured(binary, &config, case));
            }
        }
    }
    report(&binaries, &cases, &mut samples, rounds);
}

/// One measured command line: a single call, or a batch of `lines` lines.
struct Case {
    tool: &'static str,
    lines: usize,
    args: Vec<String>,
}

impl Case {
    fn single() -> Self {
        let args = ["--args", r#"{"x":0}"#].map(String::from).to_vec();
        Case {
            tool: "server",
            lines: 1,
            args,
        }
    }

    /// A batch file of `lines` calls written to `dir` (shared by the tools).
    fn batch(tool: &'static str, lines: usize, dir: &Path) -> Self {
        let path = dir.join(format!("batch-{lines}.jsonl"));
        if !path.exists() {
            let mut file = std::io::BufWriter::new(std::fs::File::create(&path).expect("batch"));
            for n in 0..lines {
                writeln!(file, r#"{{"x":{n},"note":"a short argument string"}}"#).expect("line");
            }
            file.flush().expect("batch written");
        }
        let path = path.display().to_string();
        Case {
            tool,
            lines,
            args: vec!["--batch".into(), path, "-j".into(), "64".into()],
        }
    }

    fn name(&self) -> String {
        match self.lines {
            1 => format!("{}, one call (baseline)", self.tool),
            n => format!("{} --batch, {} lines", self.tool, thousands(n)),
        }
    }
}

fn write_config(dir: &Path) -> PathBuf {
    let me = std::env::current_exe().expect("own path");
    let config = dir.join("runtimeconfig.yaml");
    let text = format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: RuntimeConfig
spec:
  tools:
    server:
      exec: {{ command: {me}, args: [--as-server], runtime: server, max_in_flight: 64 }}
    oneshot:
      exec: {{ command: {me}, args: [--as-tool] }}
",
        me = me.display()
    );
    std::fs::write(&config, text).expect("bench config");
    config
}

/// Runs one case in a fresh copy of this program and reads back what it measured.
fn run_measured(binary: &Path, config: &Path, case: &Case) -> (u64, f64) {
    let output = Command::new(std::env::current_exe().expect("own path"))
        .arg("--measure")
        .arg(binary)
        .arg("-c")
        .arg(config)
        .args(["invoke-tool", case.tool])
        .args(&case.args)
        .stderr(Stdio::inherit())
        .output()
        .expect("measuring process runs");
    let text = String::from_utf8_lossy(&output.stdout);
    let mut fields = text.split_whitespace();
    let mut next = || fields.next().unwrap_or_default().to_string();
    let (kib, seconds, code) = (next(), next(), next());
    assert_eq!(code, "0", "{} exited with {code}", case.name());
    (
        kib.parse().expect("peak KiB"),
        seconds.parse().expect("seconds"),
    )
}

/// `--measure CMD ARGS…`: runs the command with stdout discarded and prints its peak
/// RSS in KiB, its wall time in seconds and its exit code.
fn measure(command: &[String]) {
    let started = Instant::now();
    let status = Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .expect("promptexec starts");
    let seconds = started.elapsed().as_secs_f64();
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).expect("getrusage");
    let code = status.code().unwrap_or(-1);
    println!("{} {seconds} {code}", usage.max_rss());
}

fn report(
    binaries: &[(&str, PathBuf)],
    cases: &[Case],
    samples: &mut [Vec<Vec<(u64, f64)>>],
    rounds: usize,
) {
    println!(
        "invoke-tool --batch FILE -j 64 to a trivial compiled tool, {rounds} rounds, medians:"
    );
    println!(
        "  {:<8} {:<36} {:>10} {:>12} {:>10} {:>9}",
        "binary", "", "peak RSS", "vs one call", "calls/s", "seconds"
    );
    for (b, (label, _)) in binaries.iter().enumerate() {
        let floor = median_by(&mut samples[b][0], |s| s.0 as f64);
        for (c, case) in cases.iter().enumerate() {
            let kib = median_by(&mut samples[b][c], |s| s.0 as f64);
            let seconds = median_by(&mut samples[b][c], |s| s.1);
            println!(
                "  {label:<8} {:<36} {:>6.1} MiB {:>11.2}x {:>10.0} {:>9.3}",
                case.name(),
                kib / 1024.0,
                kib / floor,
                case.lines as f64 / seconds,
                seconds
            );
        }
    }
    if binaries.len() == 2 {
        println!("\nafter / before, same rounds:");
        for (c, case) in cases.iter().enumerate() {
            let rss =
                |b: usize, s: &mut [Vec<Vec<(u64, f64)>>]| median_by(&mut s[b][c], |x| x.0 as f64);
            let time = |b: usize, s: &mut [Vec<Vec<(u64, f64)>>]| median_by(&mut s[b][c], |x| x.1);
            println!(
                "  {:<36} peak RSS {:>6.2}x   wall time {:>6.2}x",
                case.name(),
                rss(1, samples) / rss(0, samples),
                time(1, samples) / time(0, samples)
            );
        }
    }
}

/// The median of one figure of the samples.
fn median_by(samples: &mut [(u64, f64)], figure: impl Fn(&(u64, f64)) -> f64) -> f64 {
    let mut values: Vec<f64> = samples.iter().map(figure).collect();
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A one-shot tool: reads its request and answers `{"ok": true}`.
fn answer_once() {
    let mut request = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut request);
    let _ = std::io::stdout().write_all(b"{\"ok\":true}\n");
}

/// A JSON-RPC server that answers every request with `{"ok": true}`, flushing when
/// no request is waiting so a burst of requests costs few writes.
fn serve() {
    let mut input = std::io::BufReader::new(std::io::stdin());
    let mut output = std::io::BufWriter::new(std::io::stdout().lock());
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let id = serde_json::from_str::<serde_json::Value>(&line)
            .map(|request| request["id"].clone())
            .unwrap_or_default();
        let reply = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {"ok": true}});
        let written = writeln!(output, "{reply}");
        let idle = input.buffer().is_empty();
        if written.is_err() || (idle && output.flush().is_err()) {
            return;
        }
    }
}
