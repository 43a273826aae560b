//! A suite of 200 small scenarios played by the real binary one at a time (`-j 1`)
//! and as many at once as there are cores (`-j N`), interleaved round by round so
//! machine noise hits both alike. Each scenario is two user turns, each calling a
//! one-shot shell tool once, with a turn assertion and a conversation assertion:
//! the work is mostly waiting on processes, which is what playing scenarios at
//! once overlaps.
//!
//! Prints the median wall time of each, the time per scenario, and the ratio of
//! `-j 1` to `-j N` (the speed-up).
//!
//! Run: `cargo bench --bench suite`. BENCH_ROUNDS=N (default 3) sets the rounds,
//! SUITE_BENCH_SCENARIOS=N (default 200) the suite's size.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

fn main() {
    let rounds: usize = env_number("BENCH_ROUNDS").unwrap_or(3).max(1);
    let size: usize = env_number("SUITE_BENCH_SCENARIOS").unwrap_or(200).max(1);
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let dir = std::env::temp_dir().join(format!("promptexec-bench-suite-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("scenarios")).expect("bench dir");
    write_suite(&dir, size);
    let jobs = [1, cores];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); jobs.len()];
    for _ in 0..rounds {
        for (i, j) in jobs.iter().enumerate() {
            times[i].push(play(&dir, *j, size));
        }
    }
    println!("suite of {size} scenarios (2 turns, 2 tool calls each), {rounds} rounds, median:");
    let medians: Vec<f64> = times.iter().map(|t| median(t)).collect();
    for (j, secs) in jobs.iter().zip(&medians) {
        println!(
            "  -j {j:<3} {:>8.1} ms   {:>6.2} ms per scenario",
            secs * 1e3,
            secs * 1e3 / size as f64
        );
    }
    println!(
        "  -j 1 / -j {cores}: {:.2}x (the speed-up of playing scenarios at once)",
        medians[0] / medians[1]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Plays the suite with `-j jobs`; its wall time in seconds. The suite must pass.
fn play(dir: &Path, jobs: usize, size: usize) -> f64 {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_promptexec"))
        .args([
            "-q",
            "-c",
            "suite.yaml",
            "run",
            "suite.pack.json",
            "--format",
            "json",
        ])
        .args(["--output", "report.json", "-j", &jobs.to_string()])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .output()
        .expect("promptexec runs");
    let secs = started.elapsed().as_secs_f64();
    assert!(
        out.status.success(),
        "the bench suite failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = std::fs::read_to_string(dir.join("report.json")).expect("the report");
    assert!(
        report.contains(&format!("\"passed\": {size}")),
        "every scenario passed"
    );
    secs
}

fn write_suite(dir: &Path, size: usize) {
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).expect("bench file");
    write(
        "tool.sh",
        "#!/bin/sh\ncat >/dev/null\nprintf '{\"result\": {\"status\": \"shipped\"}}'\n",
    );
    let tool = dir.join("tool.sh");
    let mut perms = std::fs::metadata(&tool).expect("tool").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&tool, perms).expect("executable tool");
    write(
        "suite.yaml",
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  providers:\n    - id: mock\n      type: mock\n      additional_config:\n        mock_config: mock.yaml\n  tools:\n    lookup:\n      exec:\n        command: ./tool.sh\n",
    );
    write(
        "suite.pack.json",
        r#"{"id": "bench", "name": "Bench", "version": "1.0.0",
  "prompts": {"main": {"id": "main", "name": "Main", "version": "1.0.0", "system_template": "Help.", "tools": ["lookup"]}},
  "tools": {"lookup": {"name": "lookup", "description": "Looks an order up", "parameters": {"type": "object", "properties": {"id": {"type": "string"}}}}}}"#,
    );
    let mut mock = String::from("scenarios:\n");
    for i in 0..size {
        mock.push_str(&format!(
            "  s{i:04}:\n    turns:\n      1: {{ content: \"Looking.\", tool_calls: [{{ name: lookup, arguments: {{ id: \"A-{i}\" }} }}] }}\n      2: \"It has shipped.\"\n      3: {{ content: \"Again.\", tool_calls: [{{ name: lookup, arguments: {{ id: \"A-{i}\" }} }}] }}\n      4: \"Still shipped.\"\n"
        ));
        let scenario = format!(
            "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nmetadata:\n  name: s{i:04}\nspec:\n  task_type: main\n  description: bench\n  turns:\n    - role: user\n      content: \"Where is A-{i}?\"\n      assertions:\n        - {{ type: tools_called, params: {{ tools: [lookup] }} }}\n    - role: user\n      content: \"And now?\"\n      assertions:\n        - {{ type: content_includes, params: {{ patterns: [shipped] }} }}\n  conversation_assertions:\n    - {{ type: no_tool_errors }}\n"
        );
        std::fs::write(
            dir.join(format!("scenarios/s{i:04}.scenario.yaml")),
            scenario,
        )
        .expect("scenario");
    }
    write("mock.yaml", &mock);
}

fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

fn env_number(name: &str) -> Option<usize> {
    std::env::var(name).ok()?.parse().ok()
}
