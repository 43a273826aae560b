//! One conversation of 200 turns played by the real binary three ways, interleaved
//! round by round so machine noise hits all alike: against the scripted mock (the
//! baseline), against an OpenAI-compatible server on loopback (a small HTTP server in
//! this program that answers every call at once), and replayed from the recording the
//! HTTP run wrote. Every answer is text, so the figures are the cost of a model call
//! itself: building the request from the history, the HTTP exchange and parsing the
//! answer, or finding and checking the recorded call.
//!
//! Prints the median wall time of each, the time per turn, and each as a ratio to
//! the mock.
//!
//! Run: `cargo bench --bench provider`. BENCH_ROUNDS=N (default 3) sets the rounds,
//! PROVIDER_BENCH_TURNS=N (default 200) the conversation's length.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

fn main() {
    let rounds: usize = env_number("BENCH_ROUNDS").unwrap_or(3).max(1);
    let turns: usize = env_number("PROVIDER_BENCH_TURNS").unwrap_or(200).max(1);
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let port = listener.local_addr().expect("its address").port();
    std::thread::spawn(move || serve(listener));
    let dir =
        std::env::temp_dir().join(format!("promptexec-bench-provider-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("bench dir");
    write_files(&dir, port, turns);
    // The recording the replay plays, made once before the rounds.
    play(&dir, &["--provider", "fake", "--record", "session.json"]);
    let ways: [(&str, &[&str]); 3] = [
        ("mock", &[]),
        ("http", &["--provider", "fake"]),
        (
            "replay",
            &["--provider", "fake", "--replay", "session.json"],
        ),
    ];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); ways.len()];
    for _ in 0..rounds {
        for (i, (_, args)) in ways.iter().enumerate() {
            times[i].push(play(&dir, args));
        }
    }
    let medians: Vec<f64> = times.iter().map(|t| median(t)).collect();
    println!("a conversation of {turns} turns, one model call each, {rounds} rounds, median:");
    for ((name, _), secs) in ways.iter().zip(&medians) {
        println!(
            "  {name:<7} {:>8.1} ms   {:>6.3} ms per turn   {:.2}x the mock",
            secs * 1e3,
            secs * 1e3 / turns as f64,
            secs / medians[0]
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Plays the conversation with `args`; its wall time in seconds. It must pass.
fn play(dir: &Path, args: &[&str]) -> f64 {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_promptexec"))
        .args(["-q", "-c", "bench.yaml", "run", "bench.pack.json"])
        .args(["--messages-from", "messages.txt", "--format", "json"])
        .args(["--output", "report.json"])
        .args(args)
        .env("BENCH_KEY", "bench-key")
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("promptexec runs");
    let secs = started.elapsed().as_secs_f64();
    assert!(
        out.status.success(),
        "the bench conversation failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    secs
}

/// Answers every chat-completions request with the same short answer, keeping each
/// connection open for the next request, as an API server does.
fn serve(listener: TcpListener) {
    for stream in listener.incoming().flatten() {
        std::thread::spawn(move || answer_all(stream));
    }
}

fn answer_all(stream: TcpStream) {
    let body = r#"{"id":"b","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Noted."},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":2,"total_tokens":14}}"#;
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    loop {
        let mut length = 0;
        let mut line = String::new();
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let lower = line.to_ascii_lowercase();
            if let Some(value) = lower.strip_prefix("content-length:") {
                length = value.trim().parse().unwrap_or(0);
            }
            if line == "\r\n" {
                break;
            }
        }
        let mut request = vec![0; length];
        if reader.read_exact(&mut request).is_err() {
            return;
        }
        let response = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        if writer.write_all(response.as_bytes()).is_err() {
            return;
        }
    }
}

fn write_files(dir: &Path, port: u16, turns: usize) {
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).expect("bench file");
    write(
        "bench.yaml",
        &format!(
            "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  providers:\n    - id: mock\n      type: mock\n      additional_config:\n        mock_config: mock.yaml\n    - id: fake\n      type: openai\n      model: bench-model\n      base_url: http://127.0.0.1:{port}/v1\n      credential: {{ credential_env: BENCH_KEY }}\n"
        ),
    );
    write("mock.yaml", "defaultResponse: \"Noted.\"\n");
    write(
        "bench.pack.json",
        r#"{"id": "bench", "name": "Bench", "version": "1.0.0",
  "prompts": {"main": {"id": "main", "name": "Main", "version": "1.0.0", "system_template": "Take notes.", "tool_policy": {"max_rounds": 1}}}}"#,
    );
    let messages: String = (0..turns).map(|i| format!("Note {i}, please.\n")).collect();
    write("messages.txt", &messages);
}

fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

fn env_number(name: &str) -> Option<usize> {
    std::env::var(name).ok()?.parse().ok()
}
