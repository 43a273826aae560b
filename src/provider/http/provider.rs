//! `HttpProvider`: a model behind an HTTP API, with retries, timeouts and a shared
//! rate limit; what went over the wire is kept for recordings, the key never.

use std::fmt;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use futures::future::LocalBoxFuture;
use reqwest::header::HeaderMap;
use reqwest::{Client, Url};

use super::answer::CallIds;
use super::credential::resolve;
use super::endpoint::{Api, call_url, flavor};
use super::error::{SetupError, SetupProblem};
use super::headers::request_headers;
use super::rate::{Bucket, shared};
use super::redact;
use super::retry::{ATTEMPTS, wait_before};
use super::transport::{Failure, Received, Target, attempt};
use crate::config::{self, ModelDefaults, Pricing};
use crate::provider::{Completion, Exchange, ModelCall, ModelError, Provider};

const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(120);
const DEFAULT_STREAM_IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// A provider of type `openai`, `vllm`, `ollama` or `claude`.
pub struct HttpProvider {
    name: String,
    kind: String,
    model: String,
    api: Api,
    url: String,
    client: Client,
    /// Holds the key: never formatted.
    headers: HeaderMap,
    defaults: ModelDefaults,
    pricing: Option<Pricing>,
    request_timeout: Duration,
    idle_timeout: Duration,
    bucket: Option<Arc<Bucket>>,
    ids: CallIds,
}

impl fmt::Debug for HttpProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpProvider")
            .field("name", &self.name)
            .field("model", &self.model)
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl HttpProvider {
    /// Sets up a provider from its config, reading its key. The error is a problem
    /// with the config or the environment, in words for the user; it never holds a key.
    /// A key is never sent over plain http to a host other than this machine.
    pub fn new(provider: &config::Provider) -> Result<HttpProvider, SetupError> {
        Self::with_env(provider, &|name| std::env::var(name).ok())
    }

    /// As [`HttpProvider::new`], reading variables through `env`.
    pub(super) fn with_env(
        provider: &config::Provider,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<HttpProvider, SetupError> {
        Self::build(provider, env).map_err(|problem| SetupError {
            provider: provider.name().to_string(),
            problem,
        })
    }

    fn build(
        provider: &config::Provider,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<HttpProvider, SetupProblem> {
        let kind = &provider.kind;
        let flavor = flavor(kind).ok_or_else(|| SetupProblem::NotHttp { kind: kind.clone() })?;
        let model = match provider.model.as_deref().map(str::trim) {
            Some(model) if !model.is_empty() => model.to_string(),
            _ => return Err(SetupProblem::NoModel),
        };
        let base = provider.base_url.as_deref().unwrap_or(flavor.default_base);
        let url = call_url(flavor.api, base);
        let parsed = Url::parse(&url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .ok_or_else(|| SetupProblem::BadBaseUrl {
                base: base.to_string(),
            })?;
        let key = resolve(provider, flavor, env)?;
        if key.is_some() && parsed.scheme() == "http" && !is_loopback(&parsed) {
            let host = parsed.host_str().unwrap_or_default();
            return Err(SetupProblem::KeyOverPlainHttp {
                host: host.to_string(),
            });
        }
        let headers = request_headers(flavor.api, key.as_ref(), &provider.headers)?;
        redact::register(key.as_ref(), &provider.headers);
        Ok(HttpProvider {
            name: provider.name().to_string(),
            kind: kind.clone(),
            model,
            api: flavor.api,
            url,
            client: client(&parsed)?,
            headers,
            defaults: provider.defaults,
            pricing: provider.pricing,
            request_timeout: provider.request_timeout.unwrap_or(DEFAULT_REQUEST_TIMEOUT),
            idle_timeout: provider
                .stream_idle_timeout
                .unwrap_or(DEFAULT_STREAM_IDLE_TIMEOUT),
            bucket: provider
                .rate_limit
                .map(|limit| shared(provider.name(), limit)),
            ids: CallIds::default(),
        })
    }

    /// The name errors and reports use: the id, else the type.
    pub fn name(&self) -> &str {
        &self.name
    }

    async fn call(&mut self, call: ModelCall<'_>) -> Result<Completion, ModelError> {
        // A hook may have asked for another model than the configured one.
        let model = match call.model.trim() {
            "" => self.model.as_str(),
            asked => asked,
        };
        let request = self.api.request_body(&call, model, &self.defaults);
        let (received, attempts) = self
            .send(request.to_string().as_bytes(), call.stream)
            .await
            .map_err(|failed| ModelError::Provider {
                provider: self.name.clone(),
                detail: redact::shown(&failed.to_string()),
            })?;
        let Received {
            mut answer,
            response,
        } = received;
        self.ids.assign(&mut answer.calls, call.messages);
        let stream = if call.stream { " (stream)" } else { "" };
        Ok(Completion {
            usage: answer.tokens.map(|t| t.usage(self.pricing)),
            findings: answer.finding.take().into_iter().collect(),
            message: answer.into_message(),
            answered_by: format!("{} `{model}`{stream}", self.kind),
            exchange: Some(Exchange {
                request,
                response,
                attempts,
            }),
        })
    }

    /// Posts `body` until an attempt gives an answer or there is no point in another;
    /// the answer and how many attempts it took.
    async fn send(&self, body: &[u8], stream: bool) -> Result<(Received, u32), SendError> {
        let target = Target {
            client: &self.client,
            url: &self.url,
            headers: &self.headers,
            api: self.api,
            stream,
            idle_timeout: self.idle_timeout,
        };
        let mut number = 1;
        loop {
            if let Some(bucket) = &self.bucket {
                bucket.acquire().await;
            }
            let outcome = tokio::time::timeout(self.request_timeout, attempt(&target, body))
                .await
                .unwrap_or_else(|_| {
                    let limit = humantime::format_duration(self.request_timeout);
                    Err(Failure::Final(format!("no complete answer within {limit}")))
                });
            let (status, cause, retry_after) = match outcome {
                Ok(received) => return Ok((received, number)),
                Err(Failure::Final(detail)) if number == 1 => {
                    return Err(SendError::Failed { detail });
                }
                Err(Failure::Final(detail)) => {
                    return Err(SendError::FailedAfterRetries { detail, number });
                }
                Err(Failure::Transient {
                    status,
                    cause,
                    retry_after,
                }) => (status, cause, retry_after),
            };
            if number == ATTEMPTS {
                return Err(SendError::GaveUp { cause });
            }
            let wait = wait_before(number - 1, retry_after, self.request_timeout);
            let why = match status {
                Some(status) => format!("HTTP {status}"),
                None => redact::shown(&cause),
            };
            tracing::warn!(
                "{}: {why} (attempt {number} of {ATTEMPTS}); retrying in {}",
                self.url,
                humantime::format_duration(wait)
            );
            tokio::time::sleep(wait).await;
            number += 1;
        }
    }
}

/// Why a request got no answer. It may hold what the server said, so it is redacted
/// before it is shown.
#[derive(Debug, thiserror::Error)]
enum SendError {
    /// The first attempt failed for good.
    #[error("{detail}")]
    Failed { detail: String },
    /// Attempt `number` failed for good, after earlier ones failed for a while.
    #[error("{detail} (attempt {number} of {ATTEMPTS})")]
    FailedAfterRetries { detail: String, number: u32 },
    #[error("gave up after {ATTEMPTS} attempts; the last: {cause}")]
    GaveUp { cause: String },
}

/// The HTTP client of one provider. Redirects are not followed: a model API does not
/// send them, and following one could carry the key elsewhere. A server on this
/// machine is reached directly, never through a proxy.
fn client(url: &Url) -> Result<Client, SetupProblem> {
    let mut builder = super::tls::client_builder()
        .user_agent(concat!("promptexec/", env!("CARGO_PKG_VERSION")))
        .redirect(reqwest::redirect::Policy::none());
    if is_loopback(url) {
        builder = builder.no_proxy();
    }
    builder.build().map_err(SetupProblem::Client)
}

/// Whether `url` names this machine: `localhost`, `127.0.0.0/8` or `::1`.
pub fn is_loopback(url: &Url) -> bool {
    let host = url.host_str().unwrap_or_default();
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

impl Provider for HttpProvider {
    fn complete<'a>(
        &'a mut self,
        call: ModelCall<'a>,
    ) -> LocalBoxFuture<'a, Result<Completion, ModelError>> {
        Box::pin(self.call(call))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Credential;

    fn setup(
        kind: &str,
        edit: impl FnOnce(&mut config::Provider),
    ) -> Result<HttpProvider, SetupError> {
        let mut provider = config::Provider {
            id: Some("p".into()),
            kind: kind.into(),
            model: Some("m".into()),
            credential: Some(Credential::Key("sk-setup-1".into())),
            ..config::Provider::default()
        };
        edit(&mut provider);
        HttpProvider::with_env(&provider, &|_| None)
    }

    #[test]
    fn setup_problems_name_the_provider_and_what_is_wrong() {
        let err = |kind, edit: fn(&mut config::Provider)| {
            setup(kind, edit).expect_err("a problem").to_string()
        };
        assert_eq!(
            err("mock", |_| {}),
            "provider `p`: type `mock` is not an HTTP provider (those are openai, vllm, ollama, claude)"
        );
        assert_eq!(
            err("openai", |p| p.model = Some(" ".into())),
            "provider `p`: no model is set"
        );
        assert_eq!(
            err("ollama", |p| p.base_url = Some("localhost:11434".into())),
            "provider `p`: base_url `localhost:11434` is not an http or https URL"
        );
        assert_eq!(
            err("claude", |p| {
                p.id = None;
                p.credential = Some(Credential::Env("NO_SUCH_KEY_VAR".into()));
            }),
            "provider `claude`: credential_env `NO_SUCH_KEY_VAR` is not set"
        );
    }

    #[test]
    fn a_key_goes_over_plain_http_only_to_this_machine() {
        for remote in [
            "http://10.0.0.5:8000/v1",
            "http://models.example/v1",
            "http://[fe80::1]:8000/v1",
        ] {
            for kind in ["openai", "ollama", "claude"] {
                let err = setup(kind, |p| p.base_url = Some(remote.into()))
                    .expect_err(remote)
                    .to_string();
                let host = Url::parse(remote).expect("a URL");
                let host = host.host_str().expect("a host");
                assert_eq!(
                    err,
                    format!(
                        "provider `p`: refusing to send its key over plain http to {host}; use https"
                    )
                );
                assert!(!err.contains("sk-setup-1"));
            }
        }
        for fine in [
            "http://localhost:11434/v1",
            "http://127.0.0.1:8000/v1",
            "http://127.8.9.10:8000/v1",
            "http://[::1]:8000/v1",
            "https://10.0.0.5/v1",
        ] {
            assert!(
                setup("openai", |p| p.base_url = Some(fine.into())).is_ok(),
                "{fine}"
            );
        }
        // Without a key, plain http goes anywhere.
        let keyless = setup("claude", |p| {
            p.base_url = Some("http://10.0.0.5:8000/v1".into());
            p.credential = None;
        });
        assert!(keyless.is_ok());
    }

    #[test]
    fn a_provider_shows_no_headers_when_debugged() {
        let provider = setup("ollama", |p| {
            p.headers.insert("X-Token".into(), "tok-hidden".into());
        })
        .expect("valid");
        let shown = format!("{provider:?}");
        assert_eq!(
            shown,
            "HttpProvider { name: \"p\", model: \"m\", url: \"http://localhost:11434/v1/chat/completions\", .. }"
        );
    }
}
