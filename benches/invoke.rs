//! What a one-shot call through promptexec costs, against the floor of spawning the
//! same trivial compiled tool directly with the same stdin.
//!
//! Three ways to make the same call, interleaved round by round so machine noise
//! hits them alike:
//! - direct: `std::process::Command`, write the request, read the answer, wait;
//! - engine: promptexec's exec engine in-process (`exec::run` + `classify`);
//! - invoke-tool: the whole CLI, `promptexec -c CFG invoke-tool trivial --args …`.
//!
//! Then server mode against one-shot calls of an equivalent tool: calls per second
//! through one long-running JSON-RPC process with 1 call in flight and with 64.
//!
//! Run: `cargo bench --bench invoke` (BENCH_ROUNDS=N to change the round count).
//! The trivial tool is this very program, started with `--as-tool` or `--as-server`.

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use promptexec::config::{ExecSpec, RuntimeMode};
use promptexec::exec::{self, Call, CallKind, Outcome};
use promptexec::tools::{ToolServer, ToolStatus};
use tokio_util::sync::CancellationToken;

const REQUEST: &[u8] = br#"{"args":{"x":1}}"#;

fn main() {
    if std::env::args().any(|a| a == "--as-tool") {
        trivial_tool();
        return;
    }
    if std::env::args().any(|a| a == "--as-server") {
        trivial_server();
        return;
    }
    let rounds: usize = std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let tool = std::env::current_exe().expect("own path");
    let dir = std::env::temp_dir().join(format!("promptexec-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("bench dir");
    let config = dir.join("runtimeconfig.yaml");
    std::fs::write(
        &config,
        format!(
            "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  tools:\n    trivial:\n      exec:\n        command: {}\n        args: [--as-tool]\n",
            tool.display()
        ),
    )
    .expect("bench config");
    let promptexec = PathBuf::from(env!("CARGO_BIN_EXE_promptexec"));
    let spec = ExecSpec {
        command: tool.clone(),
        args: vec!["--as-tool".into()],
        env: Vec::new(),
        timeout: Some(Duration::from_secs(10)),
        working_dir: dir.clone(),
        max_output_bytes: None,
        runtime: RuntimeMode::Exec,
        max_in_flight: None,
        command_pos: Default::default(),
        arg_positions: Vec::new(),
        env_mode: Default::default(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let cancel = CancellationToken::new();

    let mut direct = Vec::with_capacity(rounds);
    let mut engine = Vec::with_capacity(rounds);
    let mut cli = Vec::with_capacity(rounds);
    for round in 0..rounds + 10 {
        let d = time(|| call_directly(&tool));
        let e = time(|| {
            let call = Call::new("trivial", CallKind::Tool, &spec, REQUEST.to_vec());
            let finished = runtime.block_on(exec::run(&call, &cancel));
            assert!(matches!(exec::classify(&finished), Outcome::Answered(_)));
        });
        let c = time(|| call_cli(&promptexec, &config));
        // The first rounds warm caches and are not counted.
        if round >= 10 {
            direct.push(d);
            engine.push(e);
            cli.push(c);
        }
    }

    let floor = median(&mut direct);
    println!("one-shot call to a trivial compiled tool, {rounds} rounds, medians:");
    println!("  {:<28} {:>9}  {:>9}  {:>6}", "", "median", "p90", "ratio");
    for (name, samples) in [
        ("direct spawn (floor)", &mut direct),
        ("exec engine, in-process", &mut engine),
        ("promptexec invoke-tool", &mut cli),
    ] {
        let m = median(samples);
        let p90 = percentile(samples, 0.9);
        println!(
            "  {name:<28} {:>7.3}ms  {:>7.3}ms  {:>5.2}x",
            ms(m),
            ms(p90),
            m.as_secs_f64() / floor.as_secs_f64()
        );
    }

    server_mode(&runtime, &spec, &cancel, rounds * 10);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Calls per second: one-shot, server with 1 in flight, server with 64 in flight.
fn server_mode(
    runtime: &tokio::runtime::Runtime,
    one_shot: &ExecSpec,
    cancel: &CancellationToken,
    calls: usize,
) {
    let mut spec = one_shot.clone();
    spec.args = vec!["--as-server".into()];
    spec.runtime = RuntimeMode::Server;
    spec.max_in_flight = Some(64);
    let args = serde_json::json!({"x": 1});
    let per_second = |elapsed: Duration, n: usize| n as f64 / elapsed.as_secs_f64();

    let one_shot_calls = calls / 10;
    let one_shot_rate = per_second(
        time(|| {
            for _ in 0..one_shot_calls {
                let call = Call::new("trivial", CallKind::Tool, one_shot, REQUEST.to_vec());
                runtime.block_on(exec::run(&call, cancel));
            }
        }),
        one_shot_calls,
    );
    let server = ToolServer::new("trivial", &spec);
    runtime.block_on(async {
        // Start the process outside the measurement.
        assert_eq!(server.call(&args, None).await.status, ToolStatus::Ok);
    });
    let serial_rate = per_second(
        time(|| {
            runtime.block_on(async {
                for _ in 0..calls {
                    assert_eq!(server.call(&args, None).await.status, ToolStatus::Ok);
                }
            })
        }),
        calls,
    );
    let pipelined_rate = per_second(
        time(|| {
            runtime.block_on(async {
                let replies =
                    futures::future::join_all((0..calls).map(|_| server.call(&args, None))).await;
                assert!(replies.iter().all(|r| r.status == ToolStatus::Ok));
            })
        }),
        calls,
    );
    runtime.block_on(server.shutdown());

    println!();
    println!("calls per second to an equivalent trivial tool:");
    println!("  {:<36} {:>10}  {:>7}", "", "calls/s", "ratio");
    println!(
        "  {:<36} {:>10.0}  {:>6.1}x",
        "one-shot (a process per call)", one_shot_rate, 1.0
    );
    println!(
        "  {:<36} {:>10.0}  {:>6.1}x",
        "server mode, 1 in flight",
        serial_rate,
        serial_rate / one_shot_rate
    );
    println!(
        "  {:<36} {:>10.0}  {:>6.1}x",
        "server mode, 64 in flight",
        pipelined_rate,
        pipelined_rate / one_shot_rate
    );
    println!(
        "  pipelined vs serial: {:.1}x",
        pipelined_rate / serial_rate
    );
}

fn trivial_server() {
    let stdin = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    for line in stdin.lines() {
        let Ok(line) = line else { break };
        let Ok(request) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        let reply =
            serde_json::json!({"jsonrpc": "2.0", "id": request["id"], "result": {"ok": true}});
        if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
            break;
        }
    }
}

fn trivial_tool() {
    let mut input = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut input);
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(br#"{"result":{"ok":true}}"#);
}

fn call_directly(tool: &Path) {
    let mut child = Command::new(tool)
        .arg("--as-tool")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn tool");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(REQUEST).expect("write request");
    drop(stdin);
    let output = child.wait_with_output().expect("wait");
    assert!(output.status.success() && !output.stdout.is_empty());
}

fn call_cli(promptexec: &Path, config: &Path) {
    let output = Command::new(promptexec)
        .arg("-c")
        .arg(config)
        .args(["invoke-tool", "trivial", "--args", r#"{"x":1}"#])
        .output()
        .expect("run promptexec");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn time(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

fn median(samples: &mut [Duration]) -> Duration {
    percentile(samples, 0.5)
}

fn percentile(samples: &mut [Duration], q: f64) -> Duration {
    samples.sort();
    samples[((samples.len() - 1) as f64 * q).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
