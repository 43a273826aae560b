//! The headers every request of a provider carries. They are built once and never
//! formatted: the key is among them.

use indexmap::IndexMap;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

use super::credential::ApiKey;
use super::endpoint::Api;
use super::error::HeaderError;

const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The API's own headers and the key, then the config's `headers`, which may replace
/// them (a newer `anthropic-version`, say).
pub(super) fn request_headers(
    api: Api,
    key: Option<&ApiKey>,
    extra: &IndexMap<String, String>,
) -> Result<HeaderMap, HeaderError> {
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if api == Api::Claude {
        headers.insert(
            "anthropic-version",
            HeaderValue::from_static(ANTHROPIC_VERSION),
        );
    }
    if let Some(key) = key {
        let (name, value) = match api {
            Api::OpenAi => (AUTHORIZATION, format!("Bearer {}", key.expose())),
            Api::Claude => (
                HeaderName::from_static("x-api-key"),
                key.expose().to_string(),
            ),
        };
        let mut value = HeaderValue::from_str(&value).map_err(|_| HeaderError::Key)?;
        value.set_sensitive(true);
        headers.insert(name, value);
    }
    for (name, value) in extra {
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| HeaderError::Name { name: name.clone() })?;
        // The value is not quoted: it may well be a token.
        let mut value =
            HeaderValue::from_str(value).map_err(|_| HeaderError::Value { name: name.clone() })?;
        value.set_sensitive(true);
        headers.insert(header, value);
    }
    Ok(headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extra(pairs: &[(&str, &str)]) -> IndexMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn each_api_sends_its_key_its_way() {
        let key = ApiKey::for_tests("sk-1");
        let openai =
            request_headers(Api::OpenAi, Some(&key), &extra(&[("X-Team", "a")])).expect("valid");
        assert_eq!(openai["authorization"], "Bearer sk-1");
        assert_eq!(openai["x-team"], "a");
        assert!(!openai.contains_key("anthropic-version"));
        let claude = request_headers(
            Api::Claude,
            Some(&key),
            &extra(&[("anthropic-version", "2099-01-01")]),
        )
        .expect("valid");
        assert_eq!(claude["x-api-key"], "sk-1");
        assert_eq!(claude["anthropic-version"], "2099-01-01");
        assert!(!claude.contains_key("authorization"));
        let keyless = request_headers(Api::OpenAi, None, &IndexMap::new()).expect("valid");
        assert_eq!(keyless.len(), 1);
    }

    #[test]
    fn a_bad_header_is_named_but_its_value_not_shown() {
        let err = request_headers(Api::OpenAi, None, &extra(&[("bad name", "v")]))
            .map_err(|e| e.to_string());
        assert_eq!(
            err,
            Err("headers: `bad name` is not a valid header name".into())
        );
        let err = request_headers(Api::OpenAi, None, &extra(&[("X-Token", "secret\nvalue")]))
            .map_err(|e| e.to_string());
        assert_eq!(
            err,
            Err("headers: the value of `X-Token` holds characters a header cannot carry".into())
        );
        let key = ApiKey::for_tests("sk-\u{7f}");
        let err =
            request_headers(Api::Claude, Some(&key), &IndexMap::new()).map_err(|e| e.to_string());
        assert_eq!(
            err,
            Err("the API key holds characters a header cannot carry".into())
        );
    }
}
