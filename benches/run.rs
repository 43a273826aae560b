//! What a turn of `run` costs as conversations grow: a scripted mock conversation
//! of 100, 1,000 and 10,000 turns played by the real binary with `--format json`
//! to a file, each size in a process of its own so its peak RSS is its own.
//!
//! Three set-ups, interleaved round by round with every size so machine noise hits
//! them alike:
//! - plain: the scripted model alone;
//! - extensions: the same with a built-in eval on every turn and a session hook
//!   (`session_start` and `session_end`);
//! - plain, flags: as plain, with the messages given as `--message` flags instead of
//!   `--messages-from FILE`, which shows what clap's parsing of them costs.
//!
//! Per size it prints the median wall time per turn (whole run / turns), the
//! marginal time per turn (after taking off a 1-turn run: start-up, loading), the
//! peak RSS of the child and the report's size; then the ratios of 10,000 turns to
//! 100, which the flat-cost goal bounds (time ≤ 1.2×, RSS ≤ 2×, report linear).
//!
//! Run: `cargo bench --bench run`. BENCH_ROUNDS=N (default 3) sets the rounds,
//! RUN_BENCH_TURNS=100,1000 the sizes. Peak RSS comes from `/usr/bin/time -f %M`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const TIME: &str = "/usr/bin/time";

/// A set-up of the conversation: its name, config and pack, and whether its user
/// messages are flags rather than a file.
struct Setup {
    name: &'static str,
    config: PathBuf,
    pack: &'static str,
    flags: bool,
}

/// One measured run.
#[derive(Clone, Copy)]
struct Sample {
    secs: f64,
    rss_kib: u64,
    report_bytes: u64,
}

fn main() {
    if !Path::new(TIME).exists() {
        eprintln!("{TIME} is needed to read the peak RSS of each run");
        std::process::exit(2);
    }
    let rounds: usize = env_number("BENCH_ROUNDS").unwrap_or(3).max(1);
    let mut sizes: Vec<usize> = std::env::var("RUN_BENCH_TURNS")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![100, 1_000, 10_000]);
    sizes.retain(|&n| n > 1);
    sizes.sort_unstable();
    assert!(!sizes.is_empty(), "at least one size above 1");
    let dir = std::env::temp_dir().join(format!("promptexec-bench-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("bench dir");
    write_files(&dir);
    for &turns in [1].iter().chain(&sizes) {
        write_mock(&dir, turns);
    }
    let setups = [
        Setup {
            name: "plain",
            config: dir.join("plain.yaml"),
            pack: "bench.pack.json",
            flags: false,
        },
        Setup {
            name: "extensions",
            config: dir.join("extensions.yaml"),
            pack: "evals.pack.json",
            flags: false,
        },
        Setup {
            name: "plain, flags",
            config: dir.join("plain.yaml"),
            pack: "bench.pack.json",
            flags: true,
        },
    ];
    let mut all_sizes = vec![1];
    all_sizes.extend(&sizes);
    let mut samples: Vec<Vec<Vec<Sample>>> = vec![vec![Vec::new(); all_sizes.len()]; setups.len()];
    for _ in 0..rounds {
        for (s, setup) in setups.iter().enumerate() {
            for (i, &turns) in all_sizes.iter().enumerate() {
                samples[s][i].push(measure(&dir, setup, turns));
            }
        }
    }
    println!("run: {rounds} round(s), medians; each size in its own process");
    for (s, setup) in setups.iter().enumerate() {
        let medians: Vec<Sample> = samples[s].iter().map(|v| median(v)).collect();
        let fixed = medians[0].secs;
        println!(
            "\n{} (1-turn run: {:.1} ms, {:.1} MiB)",
            setup.name,
            fixed * 1e3,
            mib(medians[0].rss_kib)
        );
        println!(
            "{:>8}  {:>10}  {:>12}  {:>14}  {:>10}  {:>12}  {:>10}",
            "turns",
            "total ms",
            "µs per turn",
            "marginal µs",
            "peak MiB",
            "report MB",
            "B per turn"
        );
        let mut rows = Vec::new();
        for (i, &turns) in all_sizes.iter().enumerate().skip(1) {
            let m = medians[i];
            let per_turn = m.secs / turns as f64 * 1e6;
            let marginal = (m.secs - fixed).max(0.0) / (turns - 1) as f64 * 1e6;
            let per_turn_bytes = m.report_bytes as f64 / turns as f64;
            println!(
                "{turns:>8}  {:>10.1}  {per_turn:>12.1}  {marginal:>14.1}  {:>10.1}  {:>12.2}  {per_turn_bytes:>10.0}",
                m.secs * 1e3,
                mib(m.rss_kib),
                m.report_bytes as f64 / 1e6,
            );
            rows.push((turns, per_turn, marginal, m.rss_kib, per_turn_bytes));
        }
        if let (Some(first), Some(last)) = (rows.first(), rows.last())
            && rows.len() > 1
        {
            println!(
                "{} vs {} turns: time per turn {:.2}x (marginal {:.2}x), peak RSS {:.2}x, report bytes per turn {:.2}x",
                last.0,
                first.0,
                last.1 / first.1,
                last.2 / first.2,
                last.3 as f64 / first.3 as f64,
                last.4 / first.4,
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Plays `turns` turns of `setup` under `/usr/bin/time`, the JSON report to a file.
fn measure(dir: &Path, setup: &Setup, turns: usize) -> Sample {
    let report = dir.join(format!("report-{turns}.json"));
    let rss_file = dir.join("rss");
    let mut command = Command::new(TIME);
    command
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&rss_file)
        .arg(env!("CARGO_BIN_EXE_promptexec"))
        .arg("-c")
        .arg(&setup.config)
        .args(["run", setup.pack, "--mock"])
        .arg(format!("mock-{turns}.yaml"))
        .args(["--format", "json", "--output"])
        .arg(&report)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if setup.flags {
        for turn in 1..=turns {
            command.arg("--message").arg(message(turn));
        }
    } else {
        command
            .arg("--messages-from")
            .arg(format!("messages-{turns}.txt"));
    }
    let started = Instant::now();
    let out = command.output().expect("promptexec runs");
    let secs = started.elapsed().as_secs_f64();
    assert!(
        out.status.success(),
        "{} turns of {}: {}\n{}",
        turns,
        setup.name,
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let rss = std::fs::read_to_string(&rss_file).expect("time wrote the peak RSS");
    let rss_kib = rss
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .next_back()
        .expect("a number of KiB");
    let report_bytes = std::fs::metadata(&report).expect("the report").len();
    let _ = std::fs::remove_file(&report);
    Sample {
        secs,
        rss_kib,
        report_bytes,
    }
}

/// The packs and the two configs.
fn write_files(dir: &Path) {
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).expect(name);
    write(
        "bench.pack.json",
        r#"{"id": "bench", "name": "Bench", "version": "1.0.0", "prompts": {
  "chat": {"id": "chat", "name": "Chat", "version": "1.0.0",
           "system_template": "You answer every message briefly."}}}"#,
    );
    write(
        "evals.pack.json",
        r#"{"id": "bench", "name": "Bench", "version": "1.0.0", "prompts": {
  "chat": {"id": "chat", "name": "Chat", "version": "1.0.0",
           "system_template": "You answer every message briefly.",
           "evals": [{"id": "says-answer", "type": "contains", "trigger": "every_turn",
                      "params": {"patterns": ["answer"]}}]}}}"#,
    );
    write("hook.sh", "#!/bin/sh\ncat > /dev/null\n");
    let hook = dir.join("hook.sh");
    let mut perms = std::fs::metadata(&hook).expect("hook").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&hook, perms).expect("hook is executable");
    let head = "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  providers:\n    - id: mock\n      type: mock\n";
    write("plain.yaml", head);
    write(
        "extensions.yaml",
        &format!(
            "{head}  hooks:\n    session_log:\n      command: ./hook.sh\n      hook: session\n      phases: [session_start, session_end]\n      timeout_ms: 5000\n"
        ),
    );
}

fn message(turn: usize) -> String {
    format!("message number {turn}")
}

/// The mock script of a `turns`-turn conversation, each call answered by its number,
/// and its user messages, one a line.
fn write_mock(dir: &Path, turns: usize) {
    let messages: String = (1..=turns).map(|turn| message(turn) + "\n").collect();
    std::fs::write(dir.join(format!("messages-{turns}.txt")), messages).expect("messages");
    let mut mock = String::from("scenarios:\n  chat:\n    turns:\n");
    for turn in 1..=turns {
        mock.push_str(&format!(
            "      {turn}: \"This is the answer to message {turn}.\"\n"
        ));
    }
    std::fs::write(dir.join(format!("mock-{turns}.yaml")), mock).expect("mock script");
}

fn median(samples: &[Sample]) -> Sample {
    let mut sorted = samples.to_vec();
    sorted.sort_by(|a, b| a.secs.total_cmp(&b.secs));
    let mid = sorted[sorted.len() / 2];
    let mut rss: Vec<u64> = samples.iter().map(|s| s.rss_kib).collect();
    rss.sort_unstable();
    Sample {
        rss_kib: rss[rss.len() / 2],
        ..mid
    }
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn env_number(name: &str) -> Option<usize> {
    std::env::var(name).ok()?.parse().ok()
}
