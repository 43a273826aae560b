//! Where a provider's API key comes from.

use std::fmt;

use super::endpoint::Flavor;
use super::error::CredentialError;
use crate::config::{Credential, Provider};

/// An API key. It has no `Display`, and its `Debug` shows nothing of it.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct ApiKey(String);

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

impl ApiKey {
    #[cfg(test)]
    pub(super) fn for_tests(key: &str) -> ApiKey {
        ApiKey(key.to_string())
    }

    /// The key itself, for the one header that carries it.
    pub(super) fn expose(&self) -> &str {
        &self.0
    }
}

/// The key a provider sends: its credential, else the type's usual variable; `None`
/// when it goes without one. `env` reads an environment variable.
pub(super) fn resolve(
    provider: &Provider,
    flavor: Flavor,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<ApiKey>, CredentialError> {
    match &provider.credential {
        Some(Credential::Key(key)) => non_empty(key).map(Some).ok_or(CredentialError::EmptyKey),
        Some(Credential::Env(name)) => match env(name) {
            None => Err(CredentialError::EnvUnset { name: name.clone() }),
            Some(value) => non_empty(&value)
                .map(Some)
                .ok_or_else(|| CredentialError::EnvEmpty { name: name.clone() }),
        },
        Some(Credential::File(path)) => {
            let text = std::fs::read_to_string(path).map_err(|source| {
                CredentialError::FileUnreadable {
                    path: path.clone(),
                    source,
                }
            })?;
            non_empty(text.lines().next().unwrap_or_default())
                .map(Some)
                .ok_or_else(|| CredentialError::FileEmpty { path: path.clone() })
        }
        None => default_key(provider, flavor, env),
    }
}

/// No credential named: the type's usual variable, read only for the vendor's own
/// address. A server at another `base_url` gets no key unless one is named, so that
/// a vendor key never reaches a host it was not made for.
fn default_key(
    provider: &Provider,
    flavor: Flavor,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<ApiKey>, CredentialError> {
    let Some(var) = flavor.default_key_env else {
        return Ok(None);
    };
    let elsewhere = provider
        .base_url
        .as_deref()
        .is_some_and(|base| base.trim_end_matches('/') != flavor.default_base);
    if elsewhere {
        return Ok(None);
    }
    match env(var).as_deref().and_then(non_empty) {
        Some(key) => Ok(Some(key)),
        None => Err(CredentialError::NoKey { var }),
    }
}

fn non_empty(text: &str) -> Option<ApiKey> {
    let text = text.trim();
    (!text.is_empty()).then(|| ApiKey(text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::http::endpoint::flavor;
    use std::io::Write;

    fn provider(kind: &str, credential: Option<Credential>, base: Option<&str>) -> Provider {
        Provider {
            kind: kind.into(),
            credential,
            base_url: base.map(str::to_string),
            ..Provider::default()
        }
    }

    /// What a provider's credential gave, with an error as the user reads it.
    #[derive(Debug, PartialEq)]
    enum Got {
        Key(String),
        NoKey,
        Error(String),
    }

    fn key_of(p: &Provider, env: &dyn Fn(&str) -> Option<String>) -> Got {
        let flavor = flavor(&p.kind).expect("an HTTP type");
        match resolve(p, flavor, env) {
            Ok(Some(key)) => Got::Key(key.expose().to_string()),
            Ok(None) => Got::NoKey,
            Err(err) => Got::Error(err.to_string()),
        }
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn a_named_credential_is_read_and_trimmed() {
        let inline = provider("openai", Some(Credential::Key(" sk-1 ".into())), None);
        assert_eq!(key_of(&inline, &no_env), Got::Key("sk-1".into()));

        let env = provider("claude", Some(Credential::Env("MY_KEY".into())), None);
        let lookup = |name: &str| (name == "MY_KEY").then(|| "sk-ant\n".to_string());
        assert_eq!(key_of(&env, &lookup), Got::Key("sk-ant".into()));

        let mut file = tempfile::NamedTempFile::new().expect("temp file");
        writeln!(file, "  sk-file  \nsecond line").expect("write");
        let from_file = provider("vllm", Some(Credential::File(file.path().into())), None);
        assert_eq!(key_of(&from_file, &no_env), Got::Key("sk-file".into()));
    }

    #[test]
    fn a_missing_credential_names_its_source() {
        let unset = provider(
            "openai",
            Some(Credential::Env("PROMPTEXEC_UNSET_KEY_VAR".into())),
            None,
        );
        let flavor = flavor("openai").expect("openai");
        let real_env = |name: &str| std::env::var(name).ok();
        assert_eq!(
            resolve(&unset, flavor, &real_env).map_err(|e| e.to_string()),
            Err("credential_env `PROMPTEXEC_UNSET_KEY_VAR` is not set".into())
        );
        let empty = |_: &str| Some("  ".to_string());
        let blank = provider("openai", Some(Credential::Env("K".into())), None);
        assert_eq!(
            key_of(&blank, &empty),
            Got::Error("credential_env `K` is empty".into())
        );

        let missing = provider(
            "claude",
            Some(Credential::File("/nonexistent/key".into())),
            None,
        );
        let Got::Error(err) = key_of(&missing, &no_env) else {
            panic!("an unreadable credential_file is an error");
        };
        assert!(
            err.starts_with("cannot read credential_file `/nonexistent/key`: "),
            "{err}"
        );
    }

    #[test]
    fn the_usual_variable_is_read_only_for_the_vendors_own_address() {
        let vendor_keys = |name: &str| match name {
            "OPENAI_API_KEY" => Some("sk-env".to_string()),
            "ANTHROPIC_API_KEY" => Some("sk-ant-env".to_string()),
            _ => None,
        };
        let openai = provider("openai", None, None);
        assert_eq!(key_of(&openai, &vendor_keys), Got::Key("sk-env".into()));
        assert_eq!(
            key_of(&openai, &no_env),
            Got::Error("no API key: `OPENAI_API_KEY` is not set (or name one with credential_env, credential_file or api_key)".into())
        );
        let vendor_root = provider("openai", None, Some("https://api.openai.com/v1/"));
        assert_eq!(
            key_of(&vendor_root, &vendor_keys),
            Got::Key("sk-env".into())
        );
        let claude = provider("claude", None, None);
        assert_eq!(key_of(&claude, &vendor_keys), Got::Key("sk-ant-env".into()));

        // Any other address goes without, whatever the type, even with the variable set.
        for (kind, base) in [
            ("vllm", "http://127.0.0.1:8000/v1"),
            ("openai", "https://openrouter.example/api/v1"),
            ("claude", "https://gateway.example/v1"),
            ("claude", "http://127.0.0.1:9/v1"),
        ] {
            let elsewhere = provider(kind, None, Some(base));
            assert_eq!(
                key_of(&elsewhere, &vendor_keys),
                Got::NoKey,
                "{kind} at {base}"
            );
        }
        // Ollama needs none, and does not borrow OpenAI's.
        assert_eq!(
            key_of(&provider("ollama", None, None), &vendor_keys),
            Got::NoKey
        );
    }

    #[test]
    fn the_key_never_shows_when_debugged() {
        let key = ApiKey("sk-secret-123".into());
        assert_eq!(format!("{key:?}"), "ApiKey(***)");
    }
}
