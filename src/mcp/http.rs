//! A server reached at a URL over streamable HTTP: the providers' HTTP client (their
//! TLS roots, no redirects, no proxy for this machine), the configured headers, and
//! failures told without the URL's path or any header value, either of which may
//! carry a secret.

use std::collections::HashMap;
use std::error::Error;
use std::sync::Arc;

use indexmap::IndexMap;
use reqwest::header::{HeaderName, HeaderValue};
use reqwest::{Client, StatusCode, Url};
use rmcp::transport::DynamicTransportError;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::common::client_side_sse::NeverRetry;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransportConfig, StreamableHttpError,
};

use crate::config::MCP_TRANSPORT_HEADERS;
use crate::provider::{http_client_builder, is_loopback};

pub(super) type HttpTransport = StreamableHttpClientTransport<Client>;

/// Why a URL cannot be read (`url`'s parse error, which reqwest does not name).
type UrlError = <Url as std::str::FromStr>::Err;

/// Why the transport to a server cannot be set up. Messages name a header, never its
/// value.
#[derive(Debug, thiserror::Error)]
pub(super) enum SetupError {
    #[error("header `{name}` is set by the MCP transport itself and cannot be configured")]
    ReservedHeader { name: String },
    #[error("`{name}` is not a valid HTTP header name")]
    HeaderName { name: String },
    #[error(
        "the value of header `{name}` is not a valid HTTP header value (printable ASCII and tabs only)"
    )]
    HeaderValue { name: String },
    #[error("the URL cannot be read ({0})")]
    Url(#[source] UrlError),
    #[error("cannot set up an HTTP client: {0}")]
    Client(#[source] reqwest::Error),
}

/// How much of a server's unexpected answer a message repeats.
const ANSWER_PREVIEW: usize = 200;

/// The transport to the server at `url`, sending `headers` with every request. The
/// connection is made by the handshake, not here.
pub(super) fn transport(
    url: &str,
    headers: &IndexMap<String, String>,
) -> Result<HttpTransport, SetupError> {
    let headers = header_map(headers)?;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(headers);
    // When an event stream breaks, rmcp tries once to resume it at once; by default it
    // then keeps trying with growing waits, forever, so a call to a server that went
    // away would wait out its whole deadline. One try, then the call fails.
    config.retry_config = Arc::new(NeverRetry::default());
    Ok(StreamableHttpClientTransport::with_client(
        client(url)?,
        config,
    ))
}

/// `url` as it may be shown: a query string or fragment can hold a key, so it is
/// replaced by `…`.
pub fn shown_url(url: &str) -> String {
    match Url::parse(url) {
        Ok(mut parsed) if parsed.query().is_some() || parsed.fragment().is_some() => {
            parsed.set_query(None);
            parsed.set_fragment(None);
            format!("{parsed}?…")
        }
        Ok(parsed) => parsed.to_string(),
        Err(_) => "the configured URL".to_string(),
    }
}

/// `host:port` of `url`, to say which machine did not answer; the path is left out.
pub(super) fn authority(url: &str) -> String {
    Url::parse(url)
        .ok()
        .and_then(|u| {
            let host = u.host_str()?.to_string();
            Some(match u.port_or_known_default() {
                Some(port) => format!("{host}:{port}"),
                None => host,
            })
        })
        .unwrap_or_else(|| "the server".to_string())
}

/// Redirects are not followed: following one could carry the headers elsewhere.
fn client(url: &str) -> Result<Client, SetupError> {
    let parsed = Url::parse(url).map_err(SetupError::Url)?;
    let mut builder = http_client_builder()
        .user_agent(concat!("promptexec/", env!("CARGO_PKG_VERSION")))
        .redirect(reqwest::redirect::Policy::none());
    if is_loopback(&parsed) {
        builder = builder.no_proxy();
    }
    builder.build().map_err(SetupError::Client)
}

/// The configured headers as the transport takes them. Messages name a header, never
/// its value.
fn header_map(
    headers: &IndexMap<String, String>,
) -> Result<HashMap<HeaderName, HeaderValue>, SetupError> {
    let mut map = HashMap::with_capacity(headers.len());
    for (name, value) in headers {
        if MCP_TRANSPORT_HEADERS
            .iter()
            .any(|r| r.eq_ignore_ascii_case(name))
        {
            return Err(SetupError::ReservedHeader { name: name.clone() });
        }
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| SetupError::HeaderName { name: name.clone() })?;
        let mut value = HeaderValue::from_str(value)
            .map_err(|_| SetupError::HeaderValue { name: name.clone() })?;
        // Kept out of any debug output of the request.
        value.set_sensitive(true);
        map.insert(header, value);
    }
    Ok(map)
}

/// What went wrong on the way to the server. reqwest's own messages repeat the whole
/// URL, so they are told here from their kind and their innermost cause.
pub(super) fn describe_transport(err: &DynamicTransportError) -> String {
    describe(err).unwrap_or_else(|| err.to_string())
}

/// The description of the first error in `err`'s chain that the HTTP transport
/// raised, if any did.
fn describe(err: &(dyn Error + 'static)) -> Option<String> {
    let mut current = Some(err);
    while let Some(e) = current {
        if let Some(http) = e.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
            return Some(describe_http(http));
        }
        if let Some(request) = e.downcast_ref::<reqwest::Error>() {
            return Some(describe_request(request));
        }
        current = e.source();
    }
    None
}

fn describe_http(err: &StreamableHttpError<reqwest::Error>) -> String {
    match err {
        StreamableHttpError::Client(request) => describe_request(request),
        StreamableHttpError::AuthRequired(_) => {
            "HTTP 401 Unauthorized: the server wants credentials (check the server's `headers`)"
                .to_string()
        }
        StreamableHttpError::InsufficientScope(_) => {
            "HTTP 403 Forbidden: the credentials lack a scope the server requires".to_string()
        }
        StreamableHttpError::HttpStatus(status) => status_line(status.status),
        StreamableHttpError::UnexpectedServerResponse(text) => {
            let told = preview(text);
            let told = told.trim_end_matches(':');
            if told.starts_with("HTTP 3") {
                format!("{told} (redirects are not followed)")
            } else {
                told.to_string()
            }
        }
        StreamableHttpError::UnexpectedContentType(kind) => format!(
            "the server answered with {}, neither JSON nor an event stream",
            kind.as_deref()
                .map_or("no content type".to_string(), |k| format!(
                    "content type `{k}`"
                ))
        ),
        StreamableHttpError::SessionExpired => {
            "the server no longer knows the session (HTTP 404)".to_string()
        }
        StreamableHttpError::Sse(inner) => {
            describe(inner).unwrap_or_else(|| format!("the event stream broke: {inner}"))
        }
        other => other.to_string(),
    }
}

fn describe_request(err: &reqwest::Error) -> String {
    let cause = innermost_cause(err);
    if err.is_connect() {
        format!("could not connect ({cause})")
    } else if err.is_timeout() {
        "the request timed out".to_string()
    } else if let Some(status) = err.status() {
        status_line(status.as_u16())
    } else if err.is_body() || err.is_decode() {
        format!("could not read the answer ({cause})")
    } else {
        format!("the request failed ({cause})")
    }
}

/// The deepest source of `err`: the part of the message without the URL.
fn innermost_cause(err: &reqwest::Error) -> String {
    let mut cause: Option<&dyn Error> = err.source();
    while let Some(deeper) = cause.and_then(Error::source) {
        cause = Some(deeper);
    }
    cause.map_or_else(|| "no further detail".to_string(), ToString::to_string)
}

fn status_line(code: u16) -> String {
    match StatusCode::from_u16(code)
        .ok()
        .and_then(|s| s.canonical_reason())
    {
        Some(reason) => format!("HTTP {code} {reason}"),
        None => format!("HTTP {code}"),
    }
}

/// The start of an unexpected answer, on one line.
fn preview(text: &str) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(ANSWER_PREVIEW) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::transport::streamable_http_client::{AuthRequiredError, HttpStatusError};

    fn headers(pairs: &[(&str, &str)]) -> IndexMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn configured_headers_are_sent_marked_sensitive() {
        let map = header_map(&headers(&[("X-Token", "secret-value"), ("X-Team", "core")]))
            .expect("valid headers");
        let token = &map[&HeaderName::from_static("x-token")];
        assert_eq!(token, "secret-value");
        assert!(token.is_sensitive());
        assert_eq!(map.len(), 2);
    }

    #[test]
    fn headers_the_transport_sets_are_refused_by_name() {
        for name in [
            "accept",
            "Mcp-Session-Id",
            "LAST-EVENT-ID",
            "mcp-protocol-version",
        ] {
            let err = header_map(&headers(&[(name, "secret-value")]))
                .expect_err(name)
                .to_string();
            assert_eq!(
                err,
                format!(
                    "header `{name}` is set by the MCP transport itself and cannot be configured"
                )
            );
        }
    }

    #[test]
    fn a_bad_header_names_the_header_and_never_its_value() {
        let err = header_map(&headers(&[("X-Token", "secret\u{1}value")]))
            .expect_err("control")
            .to_string();
        assert_eq!(
            err,
            "the value of header `X-Token` is not a valid HTTP header value (printable ASCII and tabs only)"
        );
        let err = header_map(&headers(&[("X Token", "secret-value")]))
            .expect_err("space")
            .to_string();
        assert_eq!(err, "`X Token` is not a valid HTTP header name");
    }

    #[test]
    fn authority_leaves_the_path_out() {
        assert_eq!(
            authority("https://mcp.example.com/k3y/mcp?t=1"),
            "mcp.example.com:443"
        );
        assert_eq!(authority("http://127.0.0.1:8931/mcp"), "127.0.0.1:8931");
        assert_eq!(authority("not a url"), "the server");
    }

    #[test]
    fn http_failures_are_told_by_their_kind() {
        let auth = StreamableHttpError::<reqwest::Error>::AuthRequired(AuthRequiredError::new(
            "Bearer".into(),
        ));
        assert_eq!(
            describe_http(&auth),
            "HTTP 401 Unauthorized: the server wants credentials (check the server's `headers`)"
        );
        let busy =
            StreamableHttpError::<reqwest::Error>::HttpStatus(HttpStatusError::new(503, None));
        assert_eq!(describe_http(&busy), "HTTP 503 Service Unavailable");
        let moved = StreamableHttpError::<reqwest::Error>::UnexpectedServerResponse(
            "HTTP 307 Temporary Redirect: ".into(),
        );
        assert_eq!(
            describe_http(&moved),
            "HTTP 307 Temporary Redirect (redirects are not followed)"
        );
        let odd = StreamableHttpError::<reqwest::Error>::UnexpectedServerResponse(
            format!("HTTP 502 Bad Gateway:\n{}", "x".repeat(300)).into(),
        );
        let told = describe_http(&odd);
        assert!(told.starts_with("HTTP 502 Bad Gateway: xxx"), "{told}");
        assert!(told.ends_with('…') && told.chars().count() == ANSWER_PREVIEW + 1);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_redirect_is_not_followed() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let url = format!("http://{}/mcp", listener.local_addr().expect("its address"));
        let answer = tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.expect("one request");
            let mut request = [0u8; 1024];
            let _ = stream.read(&mut request).await;
            let reply = "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:1/elsewhere\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
            stream.write_all(reply.as_bytes()).await.expect("the reply");
        });
        let response = client(&url)
            .expect("a client")
            .post(&url)
            .send()
            .await
            .expect("the redirect itself is the answer");
        assert_eq!(response.status(), StatusCode::TEMPORARY_REDIRECT);
        answer.await.expect("the server task");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_refused_connection_is_told_without_the_url() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        let url = format!(
            "http://{}/secret-path/mcp",
            listener.local_addr().expect("its address")
        );
        drop(listener);
        let err = client(&url)
            .expect("a client")
            .get(&url)
            .send()
            .await
            .expect_err("nothing listens");
        let told = describe_http(&StreamableHttpError::Client(err));
        assert!(told.starts_with("could not connect ("), "{told}");
        assert!(told.contains("refused"), "{told}");
        assert!(!told.contains("secret-path"), "{told}");
    }
}
