//! Calls against a small HTTP/1.1 server on 127.0.0.1, written here: retries, a
//! stalled stream, a streamed answer, and the key going where it should and nowhere
//! else. The server is listening before the client starts, so nothing waits for it.

use std::time::Duration;

use serde_json::{Value as Json, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use super::HttpProvider;
use crate::config::{Credential, Pricing, Provider as ProviderConfig};
use crate::conversation::{History, ToolChoice, message};
use crate::provider::{ModelCall, ModelError, Provider};

/// What the server does with one request.
enum Reply {
    /// A whole response: status line, extra header lines, and a body sent with its length.
    Whole {
        status: &'static str,
        headers: &'static [&'static str],
        body: String,
    },
    /// An event stream that sends `body`, then nothing more, holding the connection open.
    Stalls { body: String },
}

/// One request as the server read it: the head (request line and headers) and body.
struct Seen {
    head: String,
    body: String,
}

/// Starts a server answering one request per connection with `replies` in turn, and
/// gives its API root and the requests it reads.
async fn serve(replies: Vec<Reply>) -> (String, UnboundedReceiver<Seen>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let root = format!("http://{}/v1", listener.local_addr().expect("address"));
    let (seen, requests) = unbounded_channel();
    tokio::spawn(async move {
        for reply in replies {
            let (socket, _) = listener.accept().await.expect("accept");
            answer(socket, reply, &seen).await;
        }
    });
    (root, requests)
}

async fn answer(mut socket: TcpStream, reply: Reply, seen: &UnboundedSender<Seen>) {
    let request = read_request(&mut socket).await;
    seen.send(request).expect("the test is listening");
    match reply {
        Reply::Whole {
            status,
            headers,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for line in headers {
                head.push_str(line);
                head.push_str("\r\n");
            }
            let response = format!("{head}\r\n{body}");
            socket.write_all(response.as_bytes()).await.expect("write");
            socket.shutdown().await.expect("shutdown");
        }
        Reply::Stalls { body } => {
            let head =
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
            socket
                .write_all(format!("{head}{body}").as_bytes())
                .await
                .expect("write");
            socket.flush().await.expect("flush");
            // Silence, with the connection still open, until the test ends.
            std::future::pending::<()>().await;
        }
    }
}

async fn read_request(socket: &mut TcpStream) -> Seen {
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 4096];
    let head_end = loop {
        let n = socket.read(&mut buffer).await.expect("read");
        assert!(n > 0, "the client closed before sending a request");
        bytes.extend_from_slice(&buffer[..n]);
        if let Some(at) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).to_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |n| n.trim().parse().expect("a length"));
    while bytes.len() < head_end + length {
        let n = socket.read(&mut buffer).await.expect("read");
        assert!(n > 0, "the client closed mid-body");
        bytes.extend_from_slice(&buffer[..n]);
    }
    Seen {
        head,
        body: String::from_utf8_lossy(&bytes[head_end..]).into_owned(),
    }
}

fn config(kind: &str, id: &str, root: &str) -> ProviderConfig {
    ProviderConfig {
        id: Some(id.into()),
        kind: kind.into(),
        model: Some("m-1".into()),
        base_url: Some(root.into()),
        credential: Some(Credential::Key("sk-inline-0000".into())),
        ..ProviderConfig::default()
    }
}

fn drain(requests: &mut UnboundedReceiver<Seen>) -> Vec<Seen> {
    std::iter::from_fn(|| requests.try_recv().ok()).collect()
}

const OPENAI_ANSWER: &str = r#"{"choices":[{"message":{"role":"assistant","content":"Hello."},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}"#;

async fn ask(
    provider: &mut HttpProvider,
    stream: bool,
) -> Result<crate::provider::Completion, ModelError> {
    let history = hi();
    provider.complete(call(&history, stream)).await
}

fn hi() -> History {
    let mut history = History::default();
    history.push(message("user", "Hi"));
    history
}

/// A call of `history` whose `model` is empty, so that the configured one is asked for.
fn call(history: &History, stream: bool) -> ModelCall<'_> {
    ModelCall {
        turn: 1,
        round: 1,
        system_prompt: "",
        model: "",
        tool_choice: ToolChoice::Auto,
        messages: history,
        tools: &[],
        stream,
    }
}

fn json_reply(status: &'static str, headers: &'static [&'static str], body: &str) -> Reply {
    Reply::Whole {
        status,
        headers,
        body: body.into(),
    }
}

/// A `text/event-stream` response of Claude events, each `data` as given.
fn claude_events(events: &[&str]) -> Reply {
    Reply::Whole {
        status: "200 OK",
        headers: &["Content-Type: text/event-stream"],
        body: events
            .iter()
            .map(|e| format!("event: x\ndata: {e}\n\n"))
            .collect(),
    }
}

#[tokio::test]
async fn a_429_with_retry_after_is_tried_again() {
    let (root, mut requests) = serve(vec![
        Reply::Whole {
            status: "429 Too Many Requests",
            headers: &["Retry-After: 0", "Content-Type: application/json"],
            body: r#"{"error":{"message":"slow down"}}"#.into(),
        },
        Reply::Whole {
            status: "200 OK",
            headers: &["Content-Type: application/json"],
            body: OPENAI_ANSWER.into(),
        },
    ])
    .await;
    let mut provider = HttpProvider::new(&config("openai", "gpt", &root)).expect("valid config");
    let completion = ask(&mut provider, false).await.expect("an answer");
    assert_eq!(completion.message.content, "Hello.");
    assert_eq!(completion.answered_by, "openai `m-1`");
    let exchange = completion.exchange.expect("an exchange");
    assert_eq!(exchange.attempts, 2);
    assert_eq!(
        exchange.response,
        serde_json::from_str::<Json>(OPENAI_ANSWER).expect("json")
    );
    let seen = drain(&mut requests);
    assert_eq!(seen.len(), 2);
    assert!(
        seen[0]
            .head
            .starts_with("post /v1/chat/completions http/1.1"),
        "{}",
        seen[0].head
    );
    let sent: Json = serde_json::from_str(&seen[1].body).expect("a JSON body");
    assert_eq!(sent, exchange.request);
    assert_eq!(
        sent,
        json!({"model": "m-1", "messages": [{"role": "user", "content": "Hi"}]})
    );
}

#[tokio::test]
async fn retries_end_after_four_attempts_with_the_last_cause() {
    let busy = || Reply::Whole {
        status: "503 Service Unavailable",
        headers: &["Retry-After: 0"],
        body: r#"{"type":"error","error":{"type":"overloaded_error","message":"busy"}}"#.into(),
    };
    let (root, mut requests) = serve(vec![busy(), busy(), busy(), busy()]).await;
    let mut provider =
        HttpProvider::new(&config("claude", "anthropic", &root)).expect("valid config");
    let err = ask(&mut provider, false).await.expect_err("no answer");
    assert_eq!(
        err,
        ModelError::Provider {
            provider: "anthropic".into(),
            detail: "gave up after 4 attempts; the last: HTTP 503 Service Unavailable: busy".into(),
        }
    );
    assert_eq!(drain(&mut requests).len(), 4);
}

#[tokio::test]
async fn a_refused_connection_is_retried_within_the_request_timeout() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let root = format!("http://{}/v1", listener.local_addr().expect("address"));
    drop(listener);
    let mut config = config("vllm", "local", &root);
    // Waits between attempts are cut to this too, so the test is quick.
    config.request_timeout = Some(Duration::from_millis(50));
    let mut provider = HttpProvider::new(&config).expect("valid config");
    let Err(ModelError::Provider { provider, detail }) = ask(&mut provider, false).await else {
        panic!("a refused connection gave an answer");
    };
    assert_eq!(provider, "local");
    assert!(
        detail.starts_with("gave up after 4 attempts; the last: error sending request"),
        "{detail}"
    );
}

#[tokio::test]
async fn a_stalled_stream_is_an_error_naming_the_provider() {
    let body = concat!(
        "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\n\n",
    );
    let (root, mut requests) = serve(vec![Reply::Stalls { body: body.into() }]).await;
    let mut config = config("ollama", "slow", &root);
    config.stream_idle_timeout = Some(Duration::from_millis(200));
    let mut provider = HttpProvider::new(&config).expect("valid config");
    let err = ask(&mut provider, true).await.expect_err("a stall");
    assert_eq!(
        err,
        ModelError::Provider {
            provider: "slow".into(),
            detail: "the stream stalled: no data for 200ms (after 2 events)".into(),
        }
    );
    // A stall is not retried.
    assert_eq!(drain(&mut requests).len(), 1);
}

#[tokio::test]
async fn a_streamed_claude_answer_with_its_headers_and_cost() {
    let events = [
        r#"{"type":"message_start","message":{"usage":{"input_tokens":1000,"output_tokens":1}}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"","name":"lookup","input":{}}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"q\":"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"1}"}}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":500}}"#,
        r#"{"type":"message_stop"}"#,
    ];
    let body: String = events
        .iter()
        .map(|e| format!("event: x\r\ndata: {e}\r\n\r\n"))
        .collect();
    let (root, mut requests) = serve(vec![Reply::Whole {
        status: "200 OK",
        headers: &["Content-Type: text/event-stream"],
        body,
    }])
    .await;
    let mut config = config("claude", "c", &root);
    config.pricing = Some(Pricing {
        input_per_1k: 0.003,
        output_per_1k: 0.015,
    });
    let mut provider = HttpProvider::new(&config).expect("valid config");
    let completion = ask(&mut provider, true).await.expect("an answer");
    assert_eq!(completion.answered_by, "claude `m-1` (stream)");
    let call = &completion.message.tool_calls[0];
    assert_eq!(
        (call.id.as_str(), call.name.as_str(), &call.args),
        ("call_1", "lookup", &json!({"q": 1}))
    );
    let usage = completion.usage.expect("usage");
    assert_eq!((usage.input_tokens, usage.output_tokens), (1000, 500));
    assert!((usage.cost_usd.expect("priced") - 0.0105).abs() < 1e-12);
    let exchange = completion.exchange.expect("an exchange");
    let recorded: Vec<Json> = events
        .iter()
        .map(|e| serde_json::from_str(e).expect("json"))
        .collect();
    assert_eq!(exchange.response, Json::Array(recorded));
    assert_eq!(exchange.request["stream"], json!(true));
    let seen = drain(&mut requests);
    assert!(
        seen[0].head.starts_with("post /v1/messages http/1.1"),
        "{}",
        seen[0].head
    );
    assert!(
        seen[0].head.contains("\r\nx-api-key: sk-inline-0000\r\n"),
        "{}",
        seen[0].head
    );
    assert!(
        seen[0]
            .head
            .contains("\r\nanthropic-version: 2023-06-01\r\n")
    );
}

#[tokio::test]
async fn the_key_goes_in_its_header_and_nowhere_else() {
    const KEY: &str = "sk-live-secret-42";
    let (root, mut requests) = serve(vec![
        Reply::Whole {
            status: "200 OK",
            headers: &["Content-Type: application/json"],
            body: OPENAI_ANSWER.into(),
        },
        Reply::Whole {
            status: "401 Unauthorized",
            headers: &[],
            body: format!(r#"{{"error":{{"message":"Incorrect API key provided: {KEY}."}}}}"#),
        },
    ])
    .await;
    let mut config = config("openai", "gpt", &root);
    config.credential = Some(Credential::Env("TEST_OPENAI_KEY".into()));
    let env = |name: &str| (name == "TEST_OPENAI_KEY").then(|| KEY.to_string());
    let mut provider = HttpProvider::with_env(&config, &env).expect("valid config");
    assert!(!format!("{provider:?}").contains(KEY));

    let completion = ask(&mut provider, false).await.expect("an answer");
    let seen = drain(&mut requests);
    assert!(
        seen[0].head.contains(&format!(
            "\r\nauthorization: bearer {}\r\n",
            KEY.to_lowercase()
        )),
        "{}",
        seen[0].head
    );
    assert!(!format!("{completion:?}").contains(KEY));
    let exchange = serde_json::to_string(&completion.exchange).expect("serializable");
    assert!(!exchange.contains(KEY));

    let err = ask(&mut provider, false).await.expect_err("refused");
    assert_eq!(
        err,
        ModelError::Provider {
            provider: "gpt".into(),
            detail: "HTTP 401 Unauthorized: Incorrect API key provided: ***.".into(),
        }
    );
}

#[tokio::test]
async fn the_model_a_hook_asked_for_and_a_required_tool_are_sent() {
    let (root, mut requests) = serve(vec![json_reply(
        "200 OK",
        &["Content-Type: application/json"],
        OPENAI_ANSWER,
    )])
    .await;
    let mut provider = HttpProvider::new(&config("openai", "gpt", &root)).expect("valid config");
    let tools = [json!({"type": "function", "function": {"name": "f"}})];
    let history = hi();
    let mut asked = call(&history, false);
    asked.model = "m-2";
    asked.tool_choice = ToolChoice::Required;
    asked.tools = &tools;
    let completion = provider.complete(asked).await.expect("an answer");
    assert_eq!(completion.answered_by, "openai `m-2`");
    let sent: Json = serde_json::from_str(&drain(&mut requests)[0].body).expect("a JSON body");
    assert_eq!(
        (&sent["model"], &sent["tool_choice"]),
        (&json!("m-2"), &json!("required"))
    );
}

#[tokio::test]
async fn an_answer_cut_at_the_token_limit_carries_a_finding() {
    let cut = r#"{"choices":[{"message":{"content":"Once upon a"},"finish_reason":"length"}]}"#;
    let (root, _requests) = serve(vec![
        json_reply("200 OK", &["Content-Type: application/json"], cut),
        json_reply("200 OK", &["Content-Type: application/json"], OPENAI_ANSWER),
    ])
    .await;
    let mut provider = HttpProvider::new(&config("vllm", "local", &root)).expect("valid config");
    let completion = ask(&mut provider, false).await.expect("an answer");
    assert_eq!(completion.message.content, "Once upon a");
    assert_eq!(
        completion.findings,
        ["the answer was cut at the token limit (finish_reason `length`)"]
    );
    let whole = ask(&mut provider, false).await.expect("an answer");
    assert_eq!(whole.findings, Vec::<String>::new());
}

const CLAUDE_START: &str =
    r#"{"type":"message_start","message":{"usage":{"input_tokens":7,"output_tokens":1}}}"#;
const CLAUDE_OVERLOADED: &str =
    r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;

#[tokio::test]
async fn an_overloaded_stream_before_any_content_is_tried_again() {
    let (root, mut requests) = serve(vec![
        claude_events(&[CLAUDE_START, CLAUDE_OVERLOADED]),
        claude_events(&[
            CLAUDE_START,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi."}}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":3}}"#,
            r#"{"type":"message_stop"}"#,
        ]),
    ])
    .await;
    let mut config = config("claude", "c", &root);
    // The wait before the retry is cut to this too, so the test is quick.
    config.request_timeout = Some(Duration::from_millis(300));
    let mut provider = HttpProvider::new(&config).expect("valid config");
    let completion = ask(&mut provider, true).await.expect("an answer");
    assert_eq!(completion.message.content, "Hi.");
    assert_eq!(completion.exchange.expect("an exchange").attempts, 2);
    assert_eq!(
        completion.findings,
        ["the answer was cut at the token limit (stop_reason `max_tokens`)"]
    );
    assert_eq!(drain(&mut requests).len(), 2);
}

#[tokio::test]
async fn an_error_event_after_content_is_final() {
    let (root, mut requests) = serve(vec![claude_events(&[
        CLAUDE_START,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hal"}}"#,
        CLAUDE_OVERLOADED,
    ])])
    .await;
    let mut provider = HttpProvider::new(&config("claude", "c", &root)).expect("valid config");
    let err = ask(&mut provider, true).await.expect_err("no answer");
    assert_eq!(
        err,
        ModelError::Provider {
            provider: "c".into(),
            detail: "Overloaded".into(),
        }
    );
    assert_eq!(drain(&mut requests).len(), 1);
}

#[tokio::test]
async fn a_408_and_a_409_are_tried_again_after_the_milliseconds_asked() {
    let (root, mut requests) = serve(vec![
        json_reply("408 Request Timeout", &["retry-after-ms: 5"], ""),
        json_reply(
            "409 Conflict",
            &["retry-after-ms: 5", "Retry-After: 3600"],
            r#"{"error":{"message":"busy"}}"#,
        ),
        json_reply("200 OK", &["Content-Type: application/json"], OPENAI_ANSWER),
    ])
    .await;
    let mut provider = HttpProvider::new(&config("openai", "gpt", &root)).expect("valid config");
    let started = std::time::Instant::now();
    let completion = ask(&mut provider, false).await.expect("an answer");
    assert_eq!(completion.exchange.expect("an exchange").attempts, 3);
    assert_eq!(drain(&mut requests).len(), 3);
    // An hour's `Retry-After` would have been waited 60 s.
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[tokio::test]
async fn header_secrets_are_hidden_in_errors() {
    const TOKEN: &str = "gw-secret-0042";
    let (root, mut requests) = serve(vec![Reply::Whole {
        status: "403 Forbidden",
        headers: &[],
        body: format!(r#"{{"error":{{"message":"gateway token {TOKEN} is revoked"}}}}"#),
    }])
    .await;
    let mut config = config("openai", "gpt", &root);
    config.credential = None;
    config
        .headers
        .insert("X-Gateway-Token".into(), TOKEN.into());
    let mut provider = HttpProvider::new(&config).expect("valid config");
    let err = ask(&mut provider, false).await.expect_err("refused");
    assert_eq!(
        err,
        ModelError::Provider {
            provider: "gpt".into(),
            detail: "HTTP 403 Forbidden: gateway token *** is revoked".into(),
        }
    );
    let seen = drain(&mut requests);
    assert!(
        seen[0]
            .head
            .contains(&format!("\r\nx-gateway-token: {TOKEN}\r\n"))
    );
}

#[tokio::test]
async fn a_custom_base_url_without_a_credential_gets_no_vendor_key() {
    let vendor_keys = |name: &str| match name {
        "OPENAI_API_KEY" => Some("sk-openai-vendor".to_string()),
        "ANTHROPIC_API_KEY" => Some("sk-ant-vendor".to_string()),
        _ => None,
    };
    let (root, mut requests) = serve(vec![
        json_reply("200 OK", &["Content-Type: application/json"], OPENAI_ANSWER),
        json_reply(
            "200 OK",
            &["Content-Type: application/json"],
            r#"{"content":[{"type":"text","text":"Hi."}],"stop_reason":"end_turn"}"#,
        ),
    ])
    .await;
    for kind in ["openai", "claude"] {
        let mut config = config(kind, kind, &root);
        config.credential = None;
        let mut provider = HttpProvider::with_env(&config, &vendor_keys).expect("valid config");
        ask(&mut provider, false).await.expect("an answer");
    }
    for seen in drain(&mut requests) {
        assert!(!seen.head.contains("authorization"), "{}", seen.head);
        assert!(!seen.head.contains("x-api-key"), "{}", seen.head);
        assert!(!seen.head.contains("vendor"), "{}", seen.head);
    }
}
