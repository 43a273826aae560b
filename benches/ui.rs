//! What one request to `promptexec ui` costs, against the cheapest request the same
//! server answers (an unknown path: the access checks and a small JSON error),
//! measured in the same run:
//! - a keystroke in the editor: `POST /api/preview` of a dotprompt prompt with a
//!   library partial (read, checked, rendered and linted), in a library of the 4
//!   example prompts and in one of 10,000 more, where the preview must cost the same;
//! - the library's search and its listing sorted by rank, at 10,000 prompts;
//! - the page itself.
//!
//! Each request is a new connection, as a browser's first request is. Run: `cargo
//! bench --bench ui` (BENCH_ROUNDS=N, BENCH_PROMPTS=N).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use promptexec::library::Library;
use serde_json::{Value as Json, json};

struct Server {
    child: Child,
    authority: String,
    token: String,
}

impl Server {
    fn start(library: &Path) -> Server {
        let mut child = Command::new(binary())
            .args(["ui", "--library"])
            .arg(library)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("promptexec ui starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the address");
        let rest = line.trim().strip_prefix("http://").expect("an address");
        let (authority, token) = rest.split_once("/?token=").expect("a token");
        Server {
            authority: authority.into(),
            token: token.into(),
            child,
        }
    }

    /// One request; its status.
    fn send(&self, method: &str, path: &str, body: Option<&str>) -> u16 {
        let body = body.unwrap_or_default();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nX-Promptexec-Token: {}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.authority,
            self.token,
            body.len()
        );
        let mut stream = TcpStream::connect(&self.authority).expect("connect");
        stream.write_all(request.as_bytes()).expect("send");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).expect("read");
        answer
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("a status")
    }

    /// The median time of `rounds` requests, each checked for `status`.
    fn time(
        &self,
        rounds: usize,
        status: u16,
        method: &str,
        path: &str,
        body: Option<&str>,
    ) -> Duration {
        let mut samples: Vec<Duration> = (0..rounds)
            .map(|_| {
                let started = Instant::now();
                assert_eq!(self.send(method, path, body), status, "{method} {path}");
                started.elapsed()
            })
            .collect();
        samples.sort();
        samples[samples.len() / 2]
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn binary() -> PathBuf {
    std::env::var_os("BENCH_PROMPTEXEC")
        .map_or_else(|| env!("CARGO_BIN_EXE_promptexec").into(), PathBuf::from)
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A library of the example prompts and `extra` more.
fn library(dir: &Path, extra: usize) -> PathBuf {
    let path = dir.join(format!("lib-{extra}.db"));
    let added = Command::new(binary())
        .args(["prompt", "add", "docs/examples/library", "--library"])
        .arg(&path)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::null())
        .status()
        .expect("prompt add");
    assert!(added.success());
    let filler: Vec<Json> = (0..extra)
        .map(|i| {
            json!({
                "id": format!("filler-{i}"),
                "title": format!("Filler prompt {i}"),
                "description": "A prompt that fills the library",
                "template": "Please help {{name}} with billing question {{topic}}.",
                "slots": ["name", "topic"],
                "tags": ["bench"],
            })
        })
        .collect();
    Library::open(&path)
        .expect("library")
        .add_all(&filler, "bench")
        .expect("fill the library");
    path
}

fn main() {
    let rounds = env_number("BENCH_ROUNDS", 200);
    let prompts = env_number("BENCH_PROMPTS", 10_000);
    let dir = tempfile::tempdir().expect("bench dir");
    let small = Server::start(&library(dir.path(), 0));
    let large = Server::start(&library(dir.path(), prompts));
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/examples/library/billing-reply.prompt"),
    )
    .expect("the example prompt");
    let preview =
        json!({"id": "billing-reply", "text": text, "inputs": {"ticket": "charged twice"}})
            .to_string();

    let baseline = small.time(rounds, 404, "GET", "/nothing", None);
    let rows = [
        (
            "a preview (4 prompts)",
            small.time(rounds, 200, "POST", "/api/preview", Some(&preview)),
        ),
        (
            &*format!("a preview ({prompts} prompts)"),
            large.time(rounds, 200, "POST", "/api/preview", Some(&preview)),
        ),
        (
            &*format!("search `billing` ({prompts} prompts)"),
            large.time(rounds.min(50), 200, "GET", "/api/prompts?q=billing", None),
        ),
        (
            &*format!("list by rank ({prompts} prompts)"),
            large.time(rounds.min(20), 200, "GET", "/api/prompts?sort=rank", None),
        ),
        ("the page", small.time(rounds, 200, "GET", "/", None)),
    ];
    println!("ui: medians of up to {rounds} requests, each on a new connection");
    println!("{:<34} {:>10}  {:>8}", "request", "median", "x base");
    println!(
        "{:<34} {:>10.3?}  {:>8}",
        "baseline: an unknown path (404)", baseline, "1.0x"
    );
    for (name, took) in rows.iter() {
        let ratio = took.as_secs_f64() / baseline.as_secs_f64();
        println!("{name:<34} {took:>10.3?}  {ratio:>7.1}x");
    }
}
