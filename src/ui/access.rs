//! Who may drive the server: a request must carry this start's token, and come from
//! the page's own origin under the address served. The token keeps out other local
//! users and pages that guess the port; the origin and host checks keep out pages
//! that hold a token or rename the server (DNS rebinding).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{CACHE_CONTROL, HOST, ORIGIN, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS};
use axum::http::{HeaderMap, HeaderValue, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::UiError;
use super::reply::ApiError;

/// The header a script may send the token in, instead of `?token=`.
pub(super) const TOKEN_HEADER: &str = "x-promptexec-token";

#[derive(Debug)]
pub(super) struct Access {
    token: String,
    authority: String,
    /// The `Host` values accepted; `None`: any (an address named with `--listen`).
    hosts: Option<Vec<String>>,
}

impl Access {
    pub(super) fn new(bound: SocketAddr, any_host: bool) -> Result<Self, UiError> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(UiError::Token)?;
        let authority = bound.to_string();
        let hosts = (!any_host).then(|| {
            let mut hosts = vec![authority.clone()];
            if bound.ip().is_loopback() {
                hosts.push(format!("localhost:{}", bound.port()));
            }
            hosts
        });
        Ok(Self {
            token: hex::encode(bytes),
            authority,
            hosts,
        })
    }

    pub(super) fn token(&self) -> &str {
        &self.token
    }

    /// `HOST:PORT` as the page's address names it.
    pub(super) fn authority(&self) -> &str {
        &self.authority
    }

    /// Refuses a request from another origin or host (403), then one without the
    /// token (401).
    fn check(&self, headers: &HeaderMap, uri: &Uri) -> Result<(), ApiError> {
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let host = header(HOST.as_str()).unwrap_or_default();
        if let Some(hosts) = &self.hosts
            && !hosts.iter().any(|h| h == host)
        {
            return Err(ApiError::Forbidden(format!(
                "this server answers only at http://{}",
                self.authority
            )));
        }
        if let Some(origin) = header(ORIGIN.as_str())
            && origin != format!("http://{host}")
        {
            return Err(ApiError::Forbidden(format!(
                "requests from {origin} are refused"
            )));
        }
        // Browsers say where a request comes from even when they send no Origin.
        if header("sec-fetch-site").is_some_and(|site| site != "same-origin" && site != "none") {
            return Err(ApiError::Forbidden(
                "requests from other sites are refused".into(),
            ));
        }
        let given = header(TOKEN_HEADER).or_else(|| query_token(uri));
        match given {
            Some(given) if same(given.as_bytes(), self.token.as_bytes()) => Ok(()),
            _ => Err(ApiError::Unauthorized(
                "the access token is missing or wrong: use the address `promptexec ui` printed"
                    .into(),
            )),
        }
    }
}

/// The checks on every request, and the headers on every answer: nothing is cached,
/// and no address (with its token) is sent on as a referrer.
pub(super) async fn guard(
    State(state): State<Arc<super::State>>,
    request: Request,
    next: Next,
) -> Response {
    let mut response = match state.access.check(request.headers(), request.uri()) {
        Ok(()) => next.run(request).await,
        Err(refusal) => refusal.into_response(),
    };
    let headers = response.headers_mut();
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}

/// The `token` of the query string (a token is hex: nothing to decode).
fn query_token(uri: &Uri) -> Option<&str> {
    uri.query()?
        .split('&')
        .find_map(|pair| pair.strip_prefix("token="))
}

/// Equal bytes, compared in a time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access() -> Access {
        Access::new(SocketAddr::from(([127, 0, 0, 1], 4000)), false).expect("token")
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).expect("header"));
        }
        map
    }

    #[test]
    fn the_token_host_and_origin_must_all_hold() {
        let access = access();
        let with_token: Uri = format!("/api/prompts?token={}", access.token())
            .parse()
            .expect("uri");
        let bare: Uri = "/api/prompts".parse().expect("uri");
        let here = [("host", "127.0.0.1:4000")];
        assert!(access.check(&headers(&here), &with_token).is_ok());
        assert!(
            access
                .check(&headers(&[("host", "localhost:4000")]), &with_token)
                .is_ok()
        );
        let by_header = headers(&[("host", "127.0.0.1:4000"), (TOKEN_HEADER, access.token())]);
        assert!(access.check(&by_header, &bare).is_ok());
        assert!(matches!(
            access.check(&headers(&here), &bare),
            Err(ApiError::Unauthorized(_))
        ));
        let wrong: Uri = "/?token=00".parse().expect("uri");
        assert!(matches!(
            access.check(&headers(&here), &wrong),
            Err(ApiError::Unauthorized(_))
        ));
        let renamed = [("host", "evil.example:4000")];
        assert!(matches!(
            access.check(&headers(&renamed), &with_token),
            Err(ApiError::Forbidden(_))
        ));
        let other = [
            ("host", "127.0.0.1:4000"),
            ("origin", "http://127.0.0.1:3000"),
        ];
        assert!(matches!(
            access.check(&headers(&other), &with_token),
            Err(ApiError::Forbidden(_))
        ));
        let own = [
            ("host", "127.0.0.1:4000"),
            ("origin", "http://127.0.0.1:4000"),
        ];
        assert!(access.check(&headers(&own), &with_token).is_ok());
        let cross = [("host", "127.0.0.1:4000"), ("sec-fetch-site", "cross-site")];
        assert!(matches!(
            access.check(&headers(&cross), &with_token),
            Err(ApiError::Forbidden(_))
        ));
    }

    #[test]
    fn each_start_has_its_own_token() {
        assert_ne!(access().token(), access().token());
        assert_eq!(access().token().len(), 64);
    }
}
