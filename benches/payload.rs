//! What a server-mode call costs promptexec, against the floor of `cat` moving the
//! same bytes through a pipe.
//!
//! - Large replies: parent CPU (user + system, `getrusage(RUSAGE_SELF)`) per call
//!   for a 1 MiB reply through `ToolServer`, as a records payload and as one
//!   string, against writing the same reply line to `cat` and reading it back.
//! - Small calls: calls per second through `ToolServer` with 1 and 64 calls in
//!   flight, against a minimal blocking client (write a line, read a line) of the
//!   same server, and against `cat`'s pipelining ceiling (request lines written to
//!   `cat`, one write each, while they are read back).
//!
//! Every figure is a median over rounds that interleave the contenders, so machine
//! noise hits them alike. Run: `cargo bench --bench payload` (BENCH_SCALE=N
//! multiplies the number of calls, BENCH_ROUNDS=N the rounds; defaults 1 and 3;
//! BENCH_PART=large or small runs one half).
//! The servers are this very program, started with `--as-server`.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::resource::{UsageWho, getrusage};
use promptexec::config::{ExecSpec, RuntimeMode};
use promptexec::tools::{ToolServer, ToolStatus};

/// Bytes of payload in a large reply.
const BIG: usize = 1024 * 1024;
/// Calls in flight for the pipelined figures.
const IN_FLIGHT: usize = 64;
/// A request line as promptexec writes it for `{"x":1}`, for the `cat` floors.
const REQUEST_LINE: &[u8] =
    br#"{"jsonrpc":"2.0","id":1,"method":"execute","params":{"args":{"x":1}}}"#;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--as-server") {
        serve(args.get(at + 1).map_or("small", String::as_str));
        return;
    }
    let scale = env_number("BENCH_SCALE", 1);
    let rounds = env_number("BENCH_ROUNDS", 3).max(1);
    let me = std::env::current_exe().expect("own path");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let part = std::env::var("BENCH_PART").unwrap_or_default();
    if part != "small" {
        large_replies(&runtime, &me, rounds, 50 * scale);
    }
    if part != "large" {
        small_calls(&runtime, &me, rounds, 20_000 * scale);
    }
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn server_spec(me: &Path, kind: &str) -> ExecSpec {
    ExecSpec {
        command: me.to_path_buf(),
        args: vec!["--as-server".into(), kind.into()],
        env: Vec::new(),
        timeout: Some(Duration::from_secs(60)),
        working_dir: std::env::temp_dir(),
        max_output_bytes: Some(4 * BIG as u64),
        runtime: RuntimeMode::Server,
        max_in_flight: Some(IN_FLIGHT as u64),
        command_pos: Default::default(),
        arg_positions: Vec::new(),
        env_mode: Default::default(),
    }
}

/// Parent CPU per 1 MiB reply: `cat`, a records payload, one string.
fn large_replies(runtime: &tokio::runtime::Runtime, me: &Path, rounds: usize, calls: usize) {
    let args = serde_json::json!({"x": 1});
    let servers: Vec<(&str, ToolServer)> = ["records", "string"]
        .into_iter()
        .map(|kind| (kind, ToolServer::new("big", &server_spec(me, kind))))
        .collect();
    for (_, server) in &servers {
        runtime.block_on(async {
            let first = server.call(&args, None).await;
            assert_eq!(first.status, ToolStatus::Ok, "{:?}", first.error);
        });
    }
    let line = reply_line(7, &payload("records"));
    let mut cat = Cat::start();
    let mut samples = vec![Vec::new(); 3];
    for _ in 0..rounds {
        samples[0].push(cpu_per_call(calls, || cat.round_trip(&line, 1)));
        for (i, (_, server)) in servers.iter().enumerate() {
            samples[i + 1].push(cpu_per_call(calls, || {
                runtime.block_on(async {
                    let report = server.call(&args, None).await;
                    assert_eq!(report.status, ToolStatus::Ok, "{:?}", report.error);
                });
            }));
        }
    }
    for (_, server) in &servers {
        runtime.block_on(server.shutdown());
    }
    let floor = median(&mut samples[0]);
    println!("parent CPU per 1 MiB reply, {calls} calls x {rounds} rounds, medians:");
    println!("  {:<40} {:>10}  {:>6}", "", "CPU/call", "ratio");
    let names = [
        "cat: write + read 1 MiB (floor)",
        "server mode, records payload",
        "server mode, one string",
    ];
    for (name, samples) in names.iter().zip(&mut samples) {
        let m = median(samples);
        println!(
            "  {name:<40} {:>8.3}ms  {:>5.2}x",
            ms(m),
            m.as_secs_f64() / floor.as_secs_f64()
        );
    }
}

/// Calls per second: `cat`'s ceiling, a minimal blocking client, `ToolServer` with
/// 1 and with 64 in flight.
fn small_calls(runtime: &tokio::runtime::Runtime, me: &Path, rounds: usize, calls: usize) {
    let args = serde_json::json!({"x": 1});
    let server = ToolServer::new("small", &server_spec(me, "small"));
    runtime.block_on(async {
        assert_eq!(server.call(&args, None).await.status, ToolStatus::Ok);
    });
    let mut cat = Cat::start();
    let mut blocking = BlockingClient::start(me);
    let serial_calls = calls / 4;
    let per_worker = calls / IN_FLIGHT;
    let mut rates = vec![Vec::new(); 4];
    for _ in 0..rounds {
        rates[0].push(rate(calls, || cat.round_trip(REQUEST_LINE, calls)));
        rates[1].push(rate(serial_calls, || {
            for _ in 0..serial_calls {
                blocking.call();
            }
        }));
        rates[2].push(rate(serial_calls, || {
            runtime.block_on(async {
                for _ in 0..serial_calls {
                    assert_eq!(server.call(&args, None).await.status, ToolStatus::Ok);
                }
            });
        }));
        rates[3].push(rate(per_worker * IN_FLIGHT, || {
            runtime.block_on(async {
                let worker = || async {
                    for _ in 0..per_worker {
                        assert_eq!(server.call(&args, None).await.status, ToolStatus::Ok);
                    }
                };
                futures::future::join_all((0..IN_FLIGHT).map(|_| worker())).await;
            });
        }));
    }
    runtime.block_on(server.shutdown());
    let medians: Vec<f64> = rates.iter_mut().map(|r| median_f64(r)).collect();
    let [ceiling, minimal, serial, pipelined] = medians[..] else {
        unreachable!("four contenders")
    };
    println!();
    println!("small server calls per second, {calls} calls x {rounds} rounds, medians:");
    println!(
        "  {:<40} {:>10}  {:>9}  {:>10}",
        "", "calls/s", "vs cat", "vs minimal"
    );
    for (name, value) in [
        ("cat pipelining ceiling", ceiling),
        ("minimal blocking client, 1 in flight", minimal),
        ("ToolServer, 1 in flight", serial),
        ("ToolServer, 64 in flight", pipelined),
    ] {
        println!(
            "  {name:<40} {value:>10.0}  {:>8.1}%  {:>9.2}x",
            100.0 * value / ceiling,
            value / minimal
        );
    }
    println!("  64 in flight vs 1 in flight: {:.2}x", pipelined / serial);
}

/// `cat` as a pipe that gives back what it is given.
struct Cat {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    line: Vec<u8>,
}

impl Cat {
    fn start() -> Self {
        let mut child = Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn cat");
        let stdin = child.stdin.take();
        let stdout = BufReader::with_capacity(64 * 1024, child.stdout.take().expect("stdout"));
        Self {
            child,
            stdin,
            stdout,
            line: Vec::new(),
        }
    }

    /// Writes `line` `times` times, one write each as a client sends its requests
    /// (from a thread, as a pipe holds less than that), while reading every line
    /// back.
    fn round_trip(&mut self, line: &[u8], times: usize) {
        let mut stdin = self.stdin.take().expect("stdin");
        let mut with_newline = line.to_vec();
        with_newline.push(b'\n');
        let writer = std::thread::scope(|scope| {
            let writer = scope.spawn(move || {
                for _ in 0..times {
                    stdin.write_all(&with_newline).expect("write");
                }
                stdin
            });
            for _ in 0..times {
                self.line.clear();
                self.stdout
                    .read_until(b'\n', &mut self.line)
                    .expect("read back");
                assert_eq!(self.line.len(), line.len() + 1);
            }
            writer.join().expect("writer")
        });
        stdin = writer;
        self.stdin = Some(stdin);
    }
}

impl Drop for Cat {
    fn drop(&mut self) {
        self.stdin.take();
        let _ = self.child.wait();
    }
}

/// The smallest client of the same server: write a line, read a line.
struct BlockingClient {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    line: String,
    id: u64,
}

impl BlockingClient {
    fn start(me: &Path) -> Self {
        let mut child = Command::new(me)
            .args(["--as-server", "small"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn server");
        Self {
            stdin: child.stdin.take(),
            stdout: BufReader::new(child.stdout.take().expect("stdout")),
            child,
            line: String::new(),
            id: 0,
        }
    }

    fn call(&mut self) {
        self.id += 1;
        let request = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"execute\",\"params\":{{\"args\":{{\"x\":1}}}}}}\n",
            self.id
        );
        // One write per request, as the server reads it.
        let stdin = self.stdin.as_mut().expect("stdin");
        stdin.write_all(request.as_bytes()).expect("write request");
        self.line.clear();
        self.stdout.read_line(&mut self.line).expect("read reply");
        assert!(self.line.contains("\"ok\""), "{}", self.line);
    }
}

impl Drop for BlockingClient {
    fn drop(&mut self) {
        self.stdin.take();
        let _ = self.child.wait();
    }
}

/// The tool answer a server of `kind` gives, as JSON text.
fn payload(kind: &str) -> String {
    match kind {
        "records" => {
            let mut records = Vec::new();
            let mut size = 0;
            let mut i = 0u64;
            while size < BIG {
                let record = serde_json::json!({
                    "id": i,
                    "name": format!("record number {i}"),
                    "score": i as f64 / 7.0,
                    "tags": ["alpha", "beta", "gamma"],
                    "active": i.is_multiple_of(2),
                    "note": "a few words of text in every record, é and \"quotes\"",
                });
                size += record.to_string().len() + 1;
                records.push(record);
                i += 1;
            }
            serde_json::json!({ "result": records }).to_string()
        }
        "string" => serde_json::json!({ "result": "x".repeat(BIG) }).to_string(),
        _ => r#"{"result":{"ok":true}}"#.to_string(),
    }
}

fn reply_line(id: u64, answer: &str) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{answer}}}"#).into_bytes()
}

/// A JSON-RPC server that answers every request with the same answer: it reads the
/// id without parsing the rest, and flushes only when no more input is waiting, as
/// a server built for pipelining does.
fn serve(kind: &str) {
    let answer = payload(kind);
    let mut input = BufReader::with_capacity(64 * 1024, std::io::stdin().lock());
    let mut out = BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let Some(id) = request_id(&line) else {
            continue;
        };
        let written = out
            .write_all(&reply_line(id, &answer))
            .and_then(|()| out.write_all(b"\n"));
        if written.is_err() {
            return;
        }
        if input.buffer().is_empty() && out.flush().is_err() {
            return;
        }
    }
}

/// The numeric id of a request line, found without parsing it.
fn request_id(line: &[u8]) -> Option<u64> {
    let key = b"\"id\":";
    let at = line.windows(key.len()).position(|w| w == key)? + key.len();
    let digits: Vec<u8> = line[at..]
        .iter()
        .skip_while(|b| **b == b' ')
        .take_while(|b| b.is_ascii_digit())
        .copied()
        .collect();
    std::str::from_utf8(&digits).ok()?.parse().ok()
}

/// Parent CPU (user + system) per call of `f`, over `calls` calls.
fn cpu_per_call(calls: usize, mut f: impl FnMut()) -> Duration {
    let before = cpu_used();
    for _ in 0..calls {
        f();
    }
    (cpu_used() - before) / calls as u32
}

fn cpu_used() -> Duration {
    let usage = getrusage(UsageWho::RUSAGE_SELF).expect("getrusage");
    let micros = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(t.tv_sec() as u64) + Duration::from_micros(t.tv_usec() as u64)
    };
    micros(usage.user_time()) + micros(usage.system_time())
}

fn rate(calls: usize, f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    calls as f64 / start.elapsed().as_secs_f64()
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn median_f64(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
