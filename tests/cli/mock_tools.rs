//! Tools that run without a process: `mode: mock` (`mock_result`, `mock_template`)
//! played by `run` and `invoke-tool` (tests/fixtures/mock_tools), and `mode: live`
//! tools against an HTTP server on loopback started here.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;

use serde_json::{Value as Json, json};

use crate::util::{fixtures, promptexec};

fn dir() -> PathBuf {
    fixtures().join("mock_tools")
}

/// The `content` of every tool message of a `--format json` run report, parsed.
fn tool_results(report: &Json) -> Vec<Json> {
    report["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            let text = m["content"].as_str().expect("text content");
            serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"))
        })
        .collect()
}

#[test]
fn run_answers_mock_template_and_mock_result_tools() {
    let out = promptexec()
        .in_dir(dir())
        .args([
            "-c",
            "tools.yaml",
            "run",
            "shop.pack.json",
            "--mock",
            "shop.mock.yaml",
        ])
        .args(["--prompt", "orders", "--message", "Where is ORD-2024-9999?"])
        .args(["--format", "json"])
        .run();
    out.expect_code(0);
    let report = out.json_report();
    assert_eq!(
        tool_results(&report),
        [
            json!({"items": 2, "order_id": "ORD-2024-9999", "status": "shipped"}),
            json!({"days": 30, "note": "Refunds go back to the card."}),
        ],
        "{}",
        out.report()
    );
    // Both tools are bound: no warning that calls to them cannot run.
    out.stderr_lacks("cannot run");
}

#[test]
fn invoke_tool_renders_a_template_against_the_arguments() {
    let out = promptexec()
        .in_dir(dir())
        .args(["-c", "tools.yaml", "invoke-tool", "lookup_order"])
        .args(["--args", r#"{"order_id": "X-1"}"#])
        .run();
    out.expect_code(0);
    assert_eq!(
        out.json(),
        json!({"error": "not_found", "message": "No order X-1 (3 characters)"})
    );
}

#[test]
fn invoke_tool_shows_a_mock_result_as_a_mock_call() {
    let out = promptexec()
        .in_dir(dir())
        .args([
            "-c",
            "tools.yaml",
            "invoke-tool",
            "refund_policy",
            "--format",
            "json",
        ])
        .run();
    out.expect_code(0);
    let envelope = out.json();
    assert_eq!(envelope["mode"], "mock");
    assert_eq!(envelope["status"], "ok");
    assert_eq!(
        envelope["result"],
        json!({"days": 30, "note": "Refunds go back to the card."})
    );
}

#[test]
fn a_template_failing_on_the_arguments_is_a_tool_error_placed_in_the_template() {
    // A JSON number is a float64 to Go: comparing it with a string fails there too.
    let out = promptexec()
        .in_dir(dir())
        .args(["-c", "tools.yaml", "invoke-tool", "lookup_order"])
        .args(["--args", r#"{"order_id": 5}"#, "--format", "json"])
        .run();
    out.expect_code(1);
    let envelope = out.json();
    assert_eq!(envelope["status"], "error");
    assert_eq!(
        envelope["error"],
        "mock_template: 1:8: error calling eq: incompatible types for comparison"
    );
}

#[test]
fn a_template_syntax_error_is_reported_at_its_place_in_the_file() {
    let out = promptexec()
        .in_dir(dir())
        .args(["-c", "bad_template.yaml", "validate"])
        .run();
    out.expect_code(2).stderr_has(
        "bad_template.yaml:11:19: spec.tools.lookup_order.mock_template: template: function \"toJson\" not defined",
    );
}

/// One request as the server read it.
struct Request {
    line: String,
    headers: Vec<(String, String)>,
}

/// An HTTP/1.1 server on loopback, one thread per connection: `/weather` echoes
/// what it was sent beside a secret, `/missing` is a 404, `/moved` a redirect,
/// and `/slow` never answers.
fn serve() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let port = listener.local_addr().expect("address").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer(stream));
        }
    });
    port
}

fn read_request(stream: &TcpStream) -> Request {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).expect("request line");
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).expect("header");
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .map_or(0, |(_, v)| v.parse().expect("length"));
    let mut body = vec![0; length];
    reader.read_exact(&mut body).expect("body");
    Request {
        line: line.trim_end().to_string(),
        headers,
    }
}

fn answer(mut stream: TcpStream) {
    let request = read_request(&stream);
    let header = |name: &str| {
        request
            .headers
            .iter()
            .find(|(n, _)| n == name)
            .map_or(String::new(), |(_, v)| v.clone())
    };
    let target = request.line.split(' ').nth(1).unwrap_or("").to_string();
    let (status, body) = match target.split('?').next().unwrap_or("") {
        "/weather" => (
            "200 OK",
            json!({
                "request": request.line,
                "x_token": header("x-token"),
                "x_static": header("x-static"),
                "secret": "server-side",
                "current": {"temp": 21.5, "sky": "clear"},
            })
            .to_string(),
        ),
        "/missing" => ("404 Not Found", "no such city".to_string()),
        "/moved" => ("302 Found", String::new()),
        _ => {
            // Holds the connection open without a word until the process ends.
            std::thread::park();
            return;
        }
    };
    let reply = format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nLocation: /weather\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(reply.as_bytes());
}

/// A config binding live tools at `port`, with the mock provider of the fixtures.
fn live_config(port: u16) -> String {
    let mock = dir().join("shop.mock.yaml");
    let mock = mock.display();
    format!(
        r#"apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: RuntimeConfig
spec:
  providers:
    - id: mock
      type: mock
      additional_config:
        mock_config: {mock}
  tools:
    weather:
      mode: live
      timeout_ms: 5000
      http:
        url: "http://127.0.0.1:{port}/weather"
        method: GET
        timeout_ms: 5000
        redact: [secret]
        headers:
          X-Static: from-headers
        request:
          query_params: [city]
          header_params:
            X-Token: "Bearer {{{{ .token }}}}"
          static_headers:
            X-Static: fixed
          static_query:
            units: metric
    mapped:
      mode: live
      http:
        url: "http://127.0.0.1:{port}/weather"
        method: GET
        timeout_ms: 5000
        response:
          body_mapping: "current.sky"
    missing:
      mode: live
      http: {{ url: "http://127.0.0.1:{port}/missing", method: GET, timeout_ms: 5000 }}
    moved:
      mode: live
      http: {{ url: "http://127.0.0.1:{port}/moved", method: GET, timeout_ms: 5000 }}
    slow:
      mode: live
      http: {{ url: "http://127.0.0.1:{port}/slow", method: POST, timeout_ms: 300 }}
"#
    )
}

/// `invoke-tool NAME --format json ARGS...` against the live config at `port`, in
/// a directory of its own.
fn invoke_live(port: u16, name: &str, args: &[&str]) -> crate::util::Outcome {
    let home = tempfile::tempdir().expect("temp dir");
    promptexec()
        .in_dir(home.path())
        .file("live.yaml", live_config(port))
        .args(["-c", "live.yaml", "invoke-tool", name, "--format", "json"])
        .args(args)
        .run()
}

#[test]
fn live_tools_send_the_request_promptkit_builds_and_redact_the_answer() {
    let port = serve();
    let out = invoke_live(
        port,
        "weather",
        &["--args", r#"{"city": "Paris", "token": "t0k"}"#],
    );
    out.expect_code(0);
    let envelope = out.json();
    assert_eq!(envelope["mode"], "live");
    assert_eq!(
        envelope["result"],
        json!({
            "request": "GET /weather?city=Paris&units=metric HTTP/1.1",
            "x_token": "Bearer t0k",
            "x_static": "from-headers",
            "secret": "[REDACTED]",
            "current": {"temp": 21.5, "sky": "clear"},
        }),
        "the token went into its header, not the query; the query is in key order; \
         `headers` are set last and replace a static header of the same name"
    );
}

#[test]
fn a_response_mapping_picks_from_the_answer() {
    let port = serve();
    let out = invoke_live(port, "mapped", &[]);
    out.expect_code(0);
    assert_eq!(out.json()["result"], "clear");
}

#[test]
fn a_status_outside_2xx_is_a_tool_error_with_the_status() {
    let port = serve();
    for (tool, error) in [
        ("missing", "HTTP request returned status 404: no such city"),
        ("moved", "HTTP request returned status 302: "),
    ] {
        let out = invoke_live(port, tool, &[]);
        out.expect_code(1);
        let envelope = out.json();
        assert_eq!(envelope["status"], "error", "{tool}: {}", out.report());
        assert_eq!(
            envelope["error"], error,
            "{tool}: a redirect is not followed"
        );
    }
}

#[test]
fn a_live_tool_that_does_not_answer_in_time_times_out() {
    let port = serve();
    let out = invoke_live(port, "slow", &["--args", r#"{"q": 1}"#]);
    let envelope = out.json();
    assert_eq!(envelope["status"], "timeout", "{}", out.report());
    assert_eq!(
        envelope["error"],
        format!("POST http://127.0.0.1:{port}/slow: no answer within 300 ms")
    );
    assert!(
        out.elapsed < std::time::Duration::from_secs(4),
        "the tool's 300 ms deadline held: {:?}",
        out.elapsed
    );
    assert_ne!(out.code, 0);
}

#[test]
fn run_gives_the_model_the_live_answer() {
    let port = serve();
    let home = tempfile::tempdir().expect("temp dir");
    let pack = dir().join("shop.pack.json");
    let out = promptexec()
        .in_dir(home.path())
        .file("live.yaml", live_config(port))
        .args(["-c", "live.yaml", "run"])
        .arg(&pack)
        .args([
            "--prompt",
            "weather",
            "--message",
            "Weather in Paris?",
            "--format",
            "json",
        ])
        .run();
    out.expect_code(0);
    let results = tool_results(&out.json_report());
    assert_eq!(results.len(), 1, "{}", out.report());
    assert_eq!(results[0]["secret"], "[REDACTED]");
    assert_eq!(
        results[0]["request"],
        "GET /weather?city=Paris&units=metric HTTP/1.1"
    );
}

#[test]
fn mock_parts_come_back_beside_the_result_with_files_read() {
    let home = tempfile::tempdir().expect("temp dir");
    let out = promptexec()
        .in_dir(home.path())
        .file("chart.png", "foobar")
        .file(
            "parts.yaml",
            r#"apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: RuntimeConfig
spec:
  tools:
    chart:
      mode: mock
      mock_result: { title: Revenue }
      mock_parts:
        - type: text
          text: A revenue chart
        - type: image
          media: { file_path: chart.png, mime_type: image/png, width: 8 }
"#,
        )
        .args([
            "-c",
            "parts.yaml",
            "invoke-tool",
            "chart",
            "--format",
            "json",
        ])
        .run();
    out.expect_code(0);
    out.stderr_lacks("mock_parts");
    let envelope = out.json();
    assert_eq!(envelope["status"], "ok");
    assert_eq!(envelope["result"], json!({"title": "Revenue"}));
    assert_eq!(
        envelope["parts"],
        json!([
            {"type": "text", "text": "A revenue chart"},
            {"type": "image", "media": {"mime_type": "image/png", "width": 8, "data": "Zm9vYmFy"}},
        ])
    );
}
