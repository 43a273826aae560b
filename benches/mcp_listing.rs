//! What listing an MCP server's tools costs as the server lists more of them: 25,000,
//! 50,000 and 100,000 tools (100,000 is the most promptexec takes), each from spawning
//! the server to the listing in hand, measured three ways in the same run:
//! - rmcp: rmcp's own client (`list_all_tools`), the baseline;
//! - ours: promptexec's client (`McpClient::tools`): the listing limits, the tool-set
//!   names, the filter, and each tool's name and input schema checked;
//! - binary: `promptexec tools --format json` end to end (config, listing, output),
//!   in a process of its own, with its peak RSS.
//!
//! Per size it prints the median wall time, the time per tool, ours/rmcp, and the
//! linearity figure: the time per tool at that size over the time per tool at the
//! smallest size (1.00x = linear). Rounds interleave the clients and sizes so machine
//! noise hits them alike.
//!
//! Run: `cargo bench --bench mcp_listing`. BENCH_ROUNDS=N (default 3) sets the rounds,
//! LISTING_BENCH_TOOLS=25000,50000 the sizes. Peak RSS comes from `/usr/bin/time -f %M`.
//! The server is this very program, started with `--as-server N`: a JSON-RPC loop
//! over stdio that lists N tools in pages of [`PAGE`] (100,000 tools are 1,000 pages,
//! the page limit).

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use indexmap::IndexMap;
use promptexec::config::{ExecSpec, McpEndpoint, McpServer, RuntimeMode};
use promptexec::mcp::McpClient;
use rmcp::ServiceExt;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value as Json, json};
use tokio::runtime::Runtime;

/// Tools per page.
const PAGE: usize = 100;
const TIME: &str = "/usr/bin/time";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--as-server") {
        let count = args
            .get(at + 1)
            .and_then(|n| n.parse().ok())
            .expect("--as-server N");
        serve(count);
        return;
    }
    if !Path::new(TIME).exists() {
        eprintln!("{TIME} is needed to read the peak RSS of each run");
        std::process::exit(2);
    }
    let rounds = env_number("BENCH_ROUNDS").unwrap_or(3).max(1);
    let mut sizes: Vec<usize> = std::env::var("LISTING_BENCH_TOOLS")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![25_000, 50_000, 100_000]);
    sizes.retain(|&n| n > 0);
    sizes.sort_unstable();
    assert!(!sizes.is_empty(), "at least one size");
    let me = std::env::current_exe().expect("own path");
    let dir = std::env::temp_dir().join(format!("promptexec-bench-listing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("bench dir");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");

    // Per size: rmcp, ours, binary.
    let mut samples = vec![[const { Vec::new() }; 3]; sizes.len()];
    let mut rss = vec![Vec::new(); sizes.len()];
    // A first small listing by each, not counted, warms the caches.
    rmcp_list(&runtime, &me, PAGE);
    ours_list(&runtime, &me, PAGE);
    for _ in 0..rounds {
        for (i, &count) in sizes.iter().enumerate() {
            samples[i][0].push(rmcp_list(&runtime, &me, count));
            samples[i][1].push(ours_list(&runtime, &me, count));
            let (took, kib) = binary_list(&dir, &me, count);
            samples[i][2].push(took);
            rss[i].push(kib);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);

    println!(
        "MCP tools/list, spawn to listing in hand, {rounds} round(s), medians; pages of {PAGE}"
    );
    println!(
        "  {:>8}  {:>9} {:>9} {:>9}  {:>8} {:>8} {:>8}  {:>7}  {:>9}",
        "tools",
        "rmcp ms",
        "ours ms",
        "binary ms",
        "rmcp/t",
        "ours/t",
        "bin/t",
        "ours/rmcp",
        "peak MiB"
    );
    let medians: Vec<[Duration; 3]> = samples
        .iter_mut()
        .map(|s| [median(&mut s[0]), median(&mut s[1]), median(&mut s[2])])
        .collect();
    let per_tool = |i: usize, which: usize| medians[i][which].as_secs_f64() / sizes[i] as f64;
    for (i, &count) in sizes.iter().enumerate() {
        rss[i].sort_unstable();
        println!(
            "  {count:>8}  {:>9.1} {:>9.1} {:>9.1}  {:>6.2}us {:>6.2}us {:>6.2}us  {:>8.2}x  {:>9.1}",
            ms(medians[i][0]),
            ms(medians[i][1]),
            ms(medians[i][2]),
            per_tool(i, 0) * 1e6,
            per_tool(i, 1) * 1e6,
            per_tool(i, 2) * 1e6,
            medians[i][1].as_secs_f64() / medians[i][0].as_secs_f64(),
            rss[i][rss[i].len() / 2] as f64 / 1024.0,
        );
    }
    println!("time per tool against {} tools (1.00x = linear):", sizes[0]);
    for (i, &count) in sizes.iter().enumerate().skip(1) {
        println!(
            "  {count:>8}  rmcp {:>5.2}x  ours {:>5.2}x  binary {:>5.2}x  peak RSS per tool {:>5.2}x",
            per_tool(i, 0) / per_tool(0, 0),
            per_tool(i, 1) / per_tool(0, 1),
            per_tool(i, 2) / per_tool(0, 2),
            (rss[i][rss[i].len() / 2] as f64 / count as f64)
                / (rss[0][rss[0].len() / 2] as f64 / sizes[0] as f64),
        );
    }
}

fn env_number(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort_unstable();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// rmcp's client: spawn, handshake, every page.
fn rmcp_list(runtime: &Runtime, me: &Path, count: usize) -> Duration {
    runtime.block_on(async {
        let began = Instant::now();
        let command = tokio::process::Command::new(me).configure(|c| {
            c.arg("--as-server").arg(count.to_string());
        });
        let client =
            ().serve(TokioChildProcess::new(command).expect("spawn server"))
                .await
                .expect("handshake");
        let tools = client.list_all_tools().await.expect("listing");
        let took = began.elapsed();
        assert_eq!(tools.len(), count);
        client.cancel().await.expect("close");
        took
    })
}

/// promptexec's client: spawn, handshake, every page, the tools sorted and checked.
fn ours_list(runtime: &Runtime, me: &Path, count: usize) -> Duration {
    runtime.block_on(async {
        let began = Instant::now();
        let client = McpClient::new(&server_spec(me, count));
        let listing = client.tools().await.expect("listing");
        let took = began.elapsed();
        assert_eq!(listing.tools.len(), count, "{:?}", listing.rejected.first());
        client.shutdown().await;
        took
    })
}

/// `promptexec tools --format json` under `/usr/bin/time`: wall time and peak RSS.
fn binary_list(dir: &Path, me: &Path, count: usize) -> (Duration, u64) {
    let config = dir.join(format!("listing-{count}.yaml"));
    std::fs::write(
        &config,
        format!(
            "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  mcp_servers:\n    - name: bench\n      command: {}\n      args: [--as-server, \"{count}\"]\n      timeout_ms: 600000\n",
            json!(me.display().to_string())
        ),
    )
    .expect("bench config");
    let rss_file = dir.join("rss");
    let listing = dir.join("listing.json");
    let began = Instant::now();
    let out = Command::new(TIME)
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&rss_file)
        .arg(promptexec_binary())
        .arg("-c")
        .arg(&config)
        .args(["tools", "--format", "json"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&listing).expect("listing file"))
        .stderr(Stdio::piped())
        .output()
        .expect("promptexec runs");
    let took = began.elapsed();
    assert!(
        out.status.success(),
        "{count} tools: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: Json =
        serde_json::from_slice(&std::fs::read(&listing).expect("listing")).expect("JSON");
    assert_eq!(listed["tools"].as_array().map(Vec::len), Some(count));
    let kib = std::fs::read_to_string(&rss_file)
        .expect("time wrote the peak RSS")
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .next_back()
        .expect("a number of KiB");
    (took, kib)
}

fn promptexec_binary() -> PathBuf {
    std::env::var_os("BENCH_PROMPTEXEC")
        .map_or_else(|| env!("CARGO_BIN_EXE_promptexec").into(), PathBuf::from)
}

fn server_spec(me: &Path, count: usize) -> McpServer {
    let exec = ExecSpec {
        args: vec!["--as-server".into(), count.to_string()],
        timeout: Some(Duration::from_secs(600)),
        runtime: RuntimeMode::Server,
        ..ExecSpec::plain(me, std::env::temp_dir())
    };
    McpServer {
        name: "bench".into(),
        endpoint: McpEndpoint::Stdio {
            exec,
            env: IndexMap::new(),
        },
        timeout: Some(Duration::from_secs(600)),
        tool_filter: Default::default(),
        pos: Default::default(),
    }
}

/// The server: answers `initialize`, lists `count` tools page by page, and answers
/// anything else with an empty result, until its input closes.
fn serve(count: usize) {
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    for line in stdin.lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<Json>(&line) else {
            continue;
        };
        let Some(id) = message.get("id") else {
            continue;
        };
        let result = match message["method"].as_str() {
            Some("initialize") => json!({
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "listing-bench", "version": "1"},
            }),
            Some("tools/list") => {
                let start: usize = message["params"]["cursor"]
                    .as_str()
                    .and_then(|c| c.parse().ok())
                    .unwrap_or(0);
                let end = (start + PAGE).min(count);
                let tools: Vec<Json> = (start..end).map(tool).collect();
                let mut page = json!({ "tools": tools });
                if end < count {
                    page["nextCursor"] = json!(end.to_string());
                }
                page
            }
            _ => json!({}),
        };
        let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
        serde_json::to_writer(&mut stdout, &reply).expect("write");
        stdout.write_all(b"\n").expect("write");
        stdout.flush().expect("flush");
    }
}

/// Tool number `i`: a name, a description and a small input schema.
fn tool(i: usize) -> Json {
    json!({
        "name": format!("tool_{i}"),
        "description": format!("Tool number {i}"),
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"]
        }
    })
}
