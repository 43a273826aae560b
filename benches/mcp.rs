//! What an MCP tool call costs through promptexec's client (`promptexec::mcp::McpClient`),
//! against the same call through rmcp's own client (`TokioChildProcess` + `serve`) on
//! the same server.
//!
//! - Calls per second, one call in flight (each awaited before the next) and 64 in
//!   flight (64 workers on one shared client, each calling in turn), with the client
//!   process's CPU (user + system) per call beside it.
//! - Start-up: from spawning the server to the answer of its first call (promptexec
//!   shakes hands on first use, so the first call is part of both figures), and the
//!   orderly close after it.
//!
//! Both clients run on a current-thread tokio runtime, as promptexec does. Every figure
//! is a median over rounds that interleave the two clients, so machine noise hits them
//! alike, and is shown as the ratio promptexec/rmcp. Run: `cargo bench --bench mcp`
//! (BENCH_SCALE=N multiplies the number of calls and starts, BENCH_ROUNDS=N the rounds;
//! defaults 1 and 5). The server is this very program, started with `--as-server`: one
//! tool, `echo {text}`, which answers with its text, served by rmcp's server side over
//! stdio.

use std::path::Path;
use std::time::{Duration, Instant};

use indexmap::IndexMap;
use nix::sys::resource::{UsageWho, getrusage};
use promptexec::config::{ExecSpec, McpEndpoint, McpServer, RuntimeMode};
use promptexec::mcp::McpClient;
use promptexec::tools::ToolStatus;
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolRequestParams, ServerCapabilities, ServerConfig};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde_json::{Value as Json, json};
use tokio::runtime::Runtime;

/// Calls in flight for the concurrent figures.
const IN_FLIGHT: usize = 64;
/// What every call sends, and gets back.
const TEXT: &str = "hello";

fn main() {
    if std::env::args().any(|a| a == "--as-server") {
        serve();
        return;
    }
    let scale = env_number("BENCH_SCALE", 1);
    let rounds = env_number("BENCH_ROUNDS", 5).max(1);
    let me = std::env::current_exe().expect("own path");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    calls(&runtime, &me, rounds, 10_000 * scale);
    starts(&runtime, &me, rounds, 4 * scale);
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn server_spec(me: &Path) -> McpServer {
    let exec = ExecSpec {
        args: vec!["--as-server".into()],
        timeout: Some(Duration::from_secs(60)),
        runtime: RuntimeMode::Server,
        max_in_flight: Some(IN_FLIGHT as u64),
        ..ExecSpec::plain(me, std::env::temp_dir())
    };
    McpServer {
        name: "bench".into(),
        endpoint: McpEndpoint::Stdio {
            exec,
            env: IndexMap::new(),
        },
        timeout: Some(Duration::from_secs(60)),
        tool_filter: Default::default(),
        pos: Default::default(),
    }
}

fn echo_args() -> Json {
    json!({ "text": TEXT })
}

async fn promptexec_call(client: &McpClient, args: &Json) {
    let report = client.call("echo", "mcp__bench__echo", args, None).await;
    assert_eq!(report.status, ToolStatus::Ok, "{:?}", report.error);
}

type RmcpClient = RunningService<RoleClient, ()>;

async fn rmcp_start(me: &Path) -> RmcpClient {
    let command = tokio::process::Command::new(me).configure(|c| {
        c.arg("--as-server");
    });
    let transport = TokioChildProcess::new(command).expect("spawn server");
    ().serve(transport).await.expect("handshake")
}

async fn rmcp_call(client: &RmcpClient, args: &Json) {
    let Json::Object(map) = args else {
        unreachable!("arguments are an object")
    };
    let params = CallToolRequestParams::new("echo").with_arguments(map.clone());
    let result = client.call_tool(params).await.expect("call");
    assert_ne!(result.is_error, Some(true), "{result:?}");
}

/// Calls per second and client CPU per call, for both clients, 1 and 64 in flight.
fn calls(runtime: &Runtime, me: &Path, rounds: usize, calls: usize) {
    let args = echo_args();
    let ours = McpClient::new(&server_spec(me));
    let theirs = runtime.block_on(async {
        let first = ours.call("echo", "mcp__bench__echo", &args, None).await;
        assert_eq!(
            first.result.map(|r| r.to_string()),
            Some(json!(TEXT).to_string()),
            "{:?}",
            first.error
        );
        let theirs = rmcp_start(me).await;
        rmcp_call(&theirs, &args).await;
        theirs
    });
    let serial_calls = calls / 4;
    let per_worker = calls / IN_FLIGHT;
    // rmcp 1, promptexec 1, rmcp 64, promptexec 64.
    let mut samples = vec![Vec::new(); 4];
    for _ in 0..rounds {
        samples[0].push(measure(serial_calls, || {
            runtime.block_on(async {
                for _ in 0..serial_calls {
                    rmcp_call(&theirs, &args).await;
                }
            });
        }));
        samples[1].push(measure(serial_calls, || {
            runtime.block_on(async {
                for _ in 0..serial_calls {
                    promptexec_call(&ours, &args).await;
                }
            });
        }));
        samples[2].push(measure(per_worker * IN_FLIGHT, || {
            runtime.block_on(async {
                let worker = || async {
                    for _ in 0..per_worker {
                        rmcp_call(&theirs, &args).await;
                    }
                };
                futures::future::join_all((0..IN_FLIGHT).map(|_| worker())).await;
            });
        }));
        samples[3].push(measure(per_worker * IN_FLIGHT, || {
            runtime.block_on(async {
                let worker = || async {
                    for _ in 0..per_worker {
                        promptexec_call(&ours, &args).await;
                    }
                };
                futures::future::join_all((0..IN_FLIGHT).map(|_| worker())).await;
            });
        }));
    }
    runtime.block_on(async {
        ours.shutdown().await;
        theirs.cancel().await.expect("close");
    });
    let medians: Vec<Sample> = samples.iter_mut().map(|s| median(s)).collect();
    println!("MCP tool calls per second, {calls} calls x {rounds} rounds, medians:");
    println!(
        "  {:<14} {:>12} {:>12} {:>7}   {:>14} {:>14} {:>7}",
        "", "rmcp calls/s", "ours calls/s", "ratio", "rmcp CPU/call", "ours CPU/call", "ratio"
    );
    for (name, theirs, ours) in [
        ("1 in flight", medians[0], medians[1]),
        ("64 in flight", medians[2], medians[3]),
    ] {
        println!(
            "  {name:<14} {:>12.0} {:>12.0} {:>6.2}x   {:>12.1}us {:>12.1}us {:>6.2}x",
            theirs.rate,
            ours.rate,
            ours.rate / theirs.rate,
            us(theirs.cpu),
            us(ours.cpu),
            ours.cpu.as_secs_f64() / theirs.cpu.as_secs_f64()
        );
    }
}

/// Time from spawning the server to its first answer, and the close after it.
fn starts(runtime: &Runtime, me: &Path, rounds: usize, per_round: usize) {
    let args = echo_args();
    let spec = server_spec(me);
    // rmcp start, promptexec start, rmcp close, promptexec close.
    let mut samples = vec![Vec::new(); 4];
    for _ in 0..rounds * per_round {
        runtime.block_on(async {
            let began = Instant::now();
            let theirs = rmcp_start(me).await;
            rmcp_call(&theirs, &args).await;
            samples[0].push(began.elapsed());
            let began = Instant::now();
            theirs.cancel().await.expect("close");
            samples[2].push(began.elapsed());

            let began = Instant::now();
            let ours = McpClient::new(&spec);
            promptexec_call(&ours, &args).await;
            samples[1].push(began.elapsed());
            let began = Instant::now();
            ours.shutdown().await;
            samples[3].push(began.elapsed());
        });
    }
    let medians: Vec<Duration> = samples
        .iter_mut()
        .map(|s| {
            s.sort();
            s[s.len() / 2]
        })
        .collect();
    println!();
    println!(
        "server start to first answer, and close, {} starts, medians:",
        rounds * per_round
    );
    println!("  {:<26} {:>10} {:>10} {:>7}", "", "rmcp", "ours", "ratio");
    for (name, theirs, ours) in [
        ("spawn + handshake + call", medians[0], medians[1]),
        ("close", medians[2], medians[3]),
    ] {
        println!(
            "  {name:<26} {:>8.2}ms {:>8.2}ms {:>6.2}x",
            ms(theirs),
            ms(ours),
            ours.as_secs_f64() / theirs.as_secs_f64()
        );
    }
}

#[derive(Clone, Copy)]
struct Sample {
    rate: f64,
    cpu: Duration,
}

/// Calls per second over `calls` calls made by `f`, and this process's CPU per call.
fn measure(calls: usize, f: impl FnOnce()) -> Sample {
    let cpu_before = cpu_used();
    let start = Instant::now();
    f();
    let elapsed = start.elapsed();
    Sample {
        rate: calls as f64 / elapsed.as_secs_f64(),
        cpu: (cpu_used() - cpu_before) / calls as u32,
    }
}

/// The median of each figure on its own.
fn median(samples: &mut [Sample]) -> Sample {
    samples.sort_by(|a, b| a.rate.total_cmp(&b.rate));
    let rate = samples[samples.len() / 2].rate;
    samples.sort_by_key(|s| s.cpu);
    Sample {
        rate,
        cpu: samples[samples.len() / 2].cpu,
    }
}

fn cpu_used() -> Duration {
    let usage = getrusage(UsageWho::RUSAGE_SELF).expect("getrusage");
    let micros = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(t.tv_sec() as u64) + Duration::from_micros(t.tv_usec() as u64)
    };
    micros(usage.user_time()) + micros(usage.system_time())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// The server: rmcp's server side over stdin and stdout, on a current-thread runtime,
/// until its input closes.
fn serve() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let service = Echo::new()
            .serve(rmcp::transport::stdio())
            .await
            .expect("handshake");
        let _ = service.waiting().await;
    });
}

#[derive(serde::Deserialize, rmcp::schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct EchoArgs {
    /// What to answer with.
    text: String,
}

#[derive(Clone)]
struct Echo {
    tool_router: ToolRouter<Self>,
}

impl Echo {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }
}

#[tool_router]
impl Echo {
    #[tool(description = "Answers with its text")]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}
