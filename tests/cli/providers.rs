//! Real model APIs: conversations against a model server on loopback that speaks
//! OpenAI's chat completions and Anthropic's Messages API, retries, stalls, malformed
//! answers, keys that never reach an output, and providers that cannot be used.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value as Json, json};

use crate::fake_llm::FakeLlm;
use crate::providers_replay::scenarios;
use crate::util::{Invocation, fixtures, promptexec};

const KEY: &str = "sk-test-5ecret-key-42";

/// A config in `dir` whose provider `fake` (`api`: openai or claude) is the server at
/// `url`, beside the mock, with the suite fixtures' tools and their delete-denying hook.
pub(crate) fn config(dir: &Path, api: &str, url: &str, extra: &str) -> PathBuf {
    let suite = fixtures().join("suite");
    let echo = fixtures().join("run/echo_tool.py");
    let text = format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: RuntimeConfig
spec:
  providers:
    - id: mock
      type: mock
      additional_config:
        mock_config: {mock}
    - id: fake
      type: {api}
      model: fake-model
      base_url: {url}
      credential: {{ credential_env: FAKE_LLM_KEY }}
      stream_idle_timeout: 400ms
      request_timeout: 20s
      pricing: {{ input_cost_per_1k: 0.5, output_cost_per_1k: 1.5 }}
{extra}  tools:
    echo:
      exec: {{ command: {echo}, timeout_ms: 5000 }}
    counter:
      exec: {{ command: {counter}, runtime: server, timeout_ms: 5000 }}
    refund:
      exec: {{ command: {refund}, timeout_ms: 5000 }}
  hooks:
    deny_delete:
      command: {deny}
      hook: tool
      phases: [before_execution]
      mode: filter
",
        mock = suite.join("suite.mock.yaml").display(),
        echo = echo.display(),
        counter = suite.join("counter.py").display(),
        refund = suite.join("refund.py").display(),
        deny = suite.join("deny_delete.sh").display(),
    );
    let path = dir.join("providers.yaml");
    std::fs::write(&path, text).expect("config written");
    path
}

/// `run` of the suite fixtures' pack with the config in `dir`, from `dir`, with the key
/// in the environment.
pub(crate) fn run_in(dir: &Path) -> Invocation {
    promptexec().in_dir(dir).env("FAKE_LLM_KEY", KEY).args([
        "-c".into(),
        dir.join("providers.yaml").into_os_string(),
        "run".into(),
        fixtures().join("suite/suite.pack.json").into_os_string(),
    ])
}

/// One conversation with `fake`, the JSON report on stdout.
pub(crate) fn conversation(dir: &Path, messages: &[&str], more: &[&str]) -> Invocation {
    let mut run = run_in(dir).args(["--prompt", "main", "--provider", "fake", "--format", "json"]);
    for message in messages {
        run = run.args(["--message", message]);
    }
    run.args(more)
}

/// A model answer that calls `echo` with `text`.
pub(crate) fn calls_echo(text: &str) -> Json {
    json!({"reply": {"tool_calls": [{"name": "echo", "arguments": {"text": text}}], "usage": {"input": 20, "output": 5}}})
}

pub(crate) fn says(text: &str) -> Json {
    json!({"reply": {"content": text, "usage": {"input": 30, "output": 4}}})
}

/// Two turns: a call the delete-denying hook blocks and the model's apology, then an
/// echo and its answer.
pub(crate) fn delete_then_hi() -> Json {
    json!([
        calls_echo("delete everything"),
        says("I may not delete."),
        calls_echo("hi"),
        says("Echoed hi.")
    ])
}

/// What the second request told the model the tool answered, in either API's shape.
pub(crate) fn tool_result_sent(request: &Json) -> String {
    let messages = request["body"]["messages"].as_array().expect("messages");
    let found = messages.iter().find_map(|m| {
        if m["role"] == "tool" {
            return m["content"].as_str().map(str::to_string);
        }
        m["content"].as_array()?.iter().find_map(|block| {
            (block["type"] == "tool_result").then(|| block["content"].to_string())
        })
    });
    found.unwrap_or_else(|| panic!("no tool result in {request}"))
}

/// One test per API, the answer whole and streamed.
mod a_tool_call_round_trip_works_for_each_api_whole_and_streamed {
    #[test]
    fn openai_whole() {
        super::a_round_trip("openai", false);
    }

    #[test]
    fn openai_streamed() {
        super::a_round_trip("openai", true);
    }

    #[test]
    fn claude_whole() {
        super::a_round_trip("claude", false);
    }

    #[test]
    fn claude_streamed() {
        super::a_round_trip("claude", true);
    }
}

/// A tool call and its result through `api`, streamed or not: the report, the totals
/// and what the model was sent.
fn a_round_trip(api: &str, stream: bool) {
    let dir = tempfile::tempdir().expect("temp dir");
    let llm = FakeLlm::start(&json!([calls_echo("hi"), says("Echoed hi.")]));
    config(dir.path(), api, &llm.base_url(), "");
    let flags: &[&str] = if stream { &["--stream"] } else { &[] };
    let out = conversation(dir.path(), &["Say hi"], flags).run();
    out.expect_code(0);
    let report = out.json_report();
    let case = format!("{api}, stream {stream}");
    let call = &report["tool_calls"][0];
    assert_eq!(
        (call["name"].as_str(), call["status"].as_str()),
        (Some("echo"), Some("ok")),
        "{case}: {call}"
    );
    assert_eq!(call["args"], json!({"text": "hi"}), "{case}");
    let last = report["messages"].as_array().and_then(|m| m.last());
    assert_eq!(
        last.map(|m| m["content"].clone()),
        Some(json!("Echoed hi.")),
        "{case}"
    );
    let model = &report["totals"]["model"];
    assert_eq!(
        (
            &model["calls"],
            &model["input_tokens"],
            &model["output_tokens"]
        ),
        (&json!(2), &json!(50), &json!(9)),
        "{case}: {model}"
    );
    assert!(
        (model["cost_usd"].as_f64().expect("priced") - 0.0385).abs() < 1e-9,
        "{case}: {model}"
    );
    let requests = llm.requests();
    assert_eq!(requests.len(), 2, "{case}");
    assert_eq!(
        requests[0]["body"]["stream"].as_bool().unwrap_or(false),
        stream
    );
    assert!(
        tool_result_sent(&requests[1]).contains("echoed"),
        "{case}: the tool's result goes back to the model"
    );
    let headers = &requests[0]["headers"];
    match api {
        "openai" => assert_eq!(headers["authorization"], format!("Bearer {KEY}")),
        _ => assert_eq!(headers["x-api-key"], KEY),
    }
}

#[test]
fn a_model_server_on_loopback_needs_no_ca_certificates_on_the_machine() {
    let dir = tempfile::tempdir().expect("temp dir");
    let no_certs = dir.path().join("no-certs");
    std::fs::create_dir(&no_certs).expect("an empty certificate directory");
    let llm = FakeLlm::start(&json!([says("Here I am.")]));
    config(dir.path(), "openai", &llm.base_url(), "");
    let out = conversation(dir.path(), &["Hello?"], &[])
        .env("SSL_CERT_FILE", no_certs.join("ca-bundle.crt"))
        .env("SSL_CERT_DIR", &no_certs)
        .run();
    out.expect_code(0);
    assert_eq!(out.json_report()["messages"][1]["content"], "Here I am.");
}

/// One test per failure that is retried.
mod a_429_and_a_500_are_retried_and_the_run_passes {
    use serde_json::json;

    #[test]
    fn a_429_with_retry_after() {
        super::retried_and_passes(
            json!({"status": 429, "headers": {"Retry-After": "0"}, "body": {"error": {"message": "slow down"}}}),
        );
    }

    #[test]
    fn a_500() {
        super::retried_and_passes(
            json!({"status": 500, "body": {"error": {"message": "try again"}}}),
        );
    }
}

/// The model first answers with `failure`, then with the answer: the run passes.
fn retried_and_passes(failure: Json) {
    let dir = tempfile::tempdir().expect("temp dir");
    let llm = FakeLlm::start(&json!([failure, says("Here I am.")]));
    config(dir.path(), "openai", &llm.base_url(), "");
    let out = conversation(dir.path(), &["Hello?"], &[]).run();
    out.expect_code(0);
    assert_eq!(llm.requests().len(), 2, "{failure}");
    let report = out.json_report();
    assert_eq!(report["messages"][1]["content"], "Here I am.");
}

/// One test per API.
mod a_stream_that_stalls_is_exit_3_naming_the_provider {
    #[test]
    fn openai() {
        super::a_stalled_stream("openai");
    }

    #[test]
    fn claude() {
        super::a_stalled_stream("claude");
    }
}

/// A streamed answer from `api` that stops after two events fails the run.
fn a_stalled_stream(api: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let stalls = json!([{"reply": {"content": "This answer never ends"}, "stall_after_events": 2}]);
    let llm = FakeLlm::start(&stalls);
    config(dir.path(), api, &llm.base_url(), "");
    let out = conversation(dir.path(), &["Talk to me"], &["--stream"]).run();
    out.expect_code(3)
        .stderr_has("provider `fake`")
        .stderr_has("the stream stalled");
    assert_eq!(out.json_report()["turns"][0]["outcome"], "failed", "{api}");
}

#[test]
fn malformed_answers_are_findings_the_reports_show() {
    let dir = tempfile::tempdir().expect("temp dir");
    let broken =
        json!({"reply": {"tool_calls": [{"name": "echo", "arguments": "{\"text\": \"hi"}]}});
    let stranger = json!({"reply": {"tool_calls": [{"name": "wipe_disk", "arguments": {}}]}});
    let script =
        json!([broken, says("Sorry."), stranger, says("Never mind."), {"reply": {"content": ""}}]);
    let llm = FakeLlm::start(&script);
    config(dir.path(), "openai", &llm.base_url(), "");
    let out = conversation(dir.path(), &["Echo hi", "Wipe it", "Anything?"], &[]).run();
    out.expect_code(0);
    let report = out.json_report();
    let calls = report["tool_calls"].as_array().expect("tool calls");
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0]["status"], "error");
    assert!(
        calls[0]["content"]
            .as_str()
            .is_some_and(|c| c.contains("the model's arguments are not valid JSON")),
        "{}",
        calls[0]
    );
    assert!(
        tool_result_sent(&llm.requests()[1]).contains("not valid JSON"),
        "the model is told why its call did not run"
    );
    assert_eq!(calls[1]["status"], "error");
    assert!(
        calls[1]["content"]
            .as_str()
            .is_some_and(|c| c.contains("not offered"))
    );
    let findings: Vec<&Json> = report["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["event"] == "model_finding")
        .collect();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["turn"], 3);
    assert_eq!(report["totals"]["model"]["findings"], 1);

    let llm = FakeLlm::start(&json!([{"reply": {"content": ""}}]));
    config(dir.path(), "openai", &llm.base_url(), "");
    run_in(dir.path())
        .args([
            "--prompt",
            "main",
            "--provider",
            "fake",
            "--message",
            "Hello?",
        ])
        .run()
        .expect_code(0)
        .stderr_has("model: the answer is empty")
        .stderr_has("1 malformed answer(s)");
}

/// One test per API, with the header that carries the key.
mod the_key_reaches_the_server_and_no_output_file_or_log {
    use super::KEY;

    #[test]
    fn openai() {
        super::the_key_stays_hidden("openai", "authorization", &format!("Bearer {KEY}"));
    }

    #[test]
    fn claude() {
        super::the_key_stays_hidden("claude", "x-api-key", KEY);
    }
}

/// The key reaches `api`'s server as `header: sent`, and no output file or log line.
fn the_key_stays_hidden(api: &str, header: &str, sent: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let llm = FakeLlm::start(&json!([calls_echo("hi"), says("Done.")]));
    config(dir.path(), api, &llm.base_url(), "");
    let outputs = ["report.json", "transcript.jsonl", "recording.json"];
    let out = conversation(
        dir.path(),
        &["Say hi"],
        &[
            "-o",
            outputs[0],
            "--transcript",
            outputs[1],
            "--record",
            outputs[2],
        ],
    )
    .arg("-vv")
    .run();
    out.expect_code(0);
    // The key is not in the log.
    out.stderr_lacks(KEY);
    for file in outputs {
        let text = std::fs::read_to_string(dir.path().join(file)).expect("written");
        assert!(!text.contains(KEY), "{api}: the key is in {file}");
        assert!(text.contains("echoed"), "{api}: {file} holds the run");
    }
    assert_eq!(llm.requests()[0]["headers"][header], sent, "{api}");

    // An API that echoes the key in its refusal does not get it printed either.
    let refusal = json!([{"status": 401, "body": {"error": {"message": format!("Incorrect API key provided: {KEY}")}}}]);
    let llm = FakeLlm::start(&refusal);
    config(dir.path(), api, &llm.base_url(), "");
    let out = conversation(dir.path(), &["Hi"], &[]).run();
    out.expect_code(3)
        .stderr_has("401")
        .stderr_lacks(KEY)
        .stdout_lacks(KEY);
}

#[test]
fn a_provider_that_cannot_be_used_stops_the_run_before_it_starts() {
    let dir = tempfile::tempdir().expect("temp dir");
    config(dir.path(), "openai", "http://127.0.0.1:9/v1", "");
    conversation(dir.path(), &["Hi"], &[])
        .env_remove("FAKE_LLM_KEY")
        .run()
        .expect_code(2)
        .stderr_has(
            "providers.yaml:9:7: provider `fake`: credential_env `FAKE_LLM_KEY` is not set",
        );
    // In a suite, once however many scenarios the provider plays.
    scenarios(dir.path());
    let suite = run_in(dir.path())
        .env_remove("FAKE_LLM_KEY")
        .args(["scenarios", "--provider", "fake"])
        .run();
    suite.expect_code(2);
    assert_eq!(
        suite
            .stderr
            .matches("credential_env `FAKE_LLM_KEY` is not set")
            .count(),
        1,
        "{}",
        suite.stderr
    );
    run_in(dir.path())
        .args(["--prompt", "main", "--provider", "fakr", "--message", "Hi"])
        .run()
        .expect_code(2)
        .stderr_has("--provider: `fakr` is not a provider of the config")
        .stderr_has("did you mean `fake`?");
    conversation(dir.path(), &["Hi"], &["--replay", "missing.json"])
        .run()
        .expect_code(2)
        .stderr_has("missing.json");
    run_in(dir.path())
        .args([
            "--prompt",
            "main",
            "--provider",
            "fake",
            "--mock",
            "x.yaml",
            "--message",
            "Hi",
        ])
        .run()
        .expect_code(2)
        .stderr_has("--mock applies to the mock provider");
}

#[test]
fn ctrl_c_while_the_model_has_not_answered_exits_130_at_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A whole-answer request the server never answers: only the 20 s request
    // deadline would end it.
    let llm = FakeLlm::start(&json!([{"reply": {"content": "late"}, "stall_after_events": 0}]));
    config(dir.path(), "openai", &llm.base_url(), "");
    let mut run = conversation(dir.path(), &["Hello?"], &[])
        .discard_output()
        .spawn();
    let asked = Instant::now();
    while llm.requests().is_empty() {
        assert!(asked.elapsed() < Duration::from_secs(30), "no request came");
        std::thread::sleep(Duration::from_millis(20));
    }
    kill(Pid::from_raw(run.id() as i32), Signal::SIGINT).expect("send SIGINT");
    let interrupted = Instant::now();
    let status = run.wait().expect("promptexec exits");
    assert_eq!(status.code(), Some(130));
    assert!(
        interrupted.elapsed() < Duration::from_secs(2),
        "took {:?}",
        interrupted.elapsed()
    );
}
