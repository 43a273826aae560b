//! What a resolved config makes secret: the values it hands to providers and
//! children, registered with [`crate::secret`] so that no output holds them.

use crate::config::{Credential, ExecSpec, McpEndpoint, RuntimeConfig};
use crate::secret;

/// The words that make a variable's name look secret.
const MARKERS: &[&str] = &[
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "AUTH",
];

/// Whether a variable named `name` looks like it holds a secret: split at every
/// character that is not a letter or digit, one of its words ends with KEY, TOKEN,
/// SECRET, PASSWORD, PASSWD, CREDENTIAL or AUTH, or with one of those and an `S`
/// (case-insensitive). `OPENAI_API_KEY`, `GITHUB_TOKEN`, `NPM_AUTHTOKEN`, `APIKEY`,
/// `DB_PASSWORD`, `GOOGLE_APPLICATION_CREDENTIALS` and `SSH_AUTH_SOCK` do;
/// `GIT_AUTHOR_NAME`, `KEYBOARD` and `TOKENIZERS_PARALLELISM` do not.
pub fn looks_secret(name: &str) -> bool {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .map(str::to_ascii_uppercase)
        .any(|word| {
            let word = word.strip_suffix('S').unwrap_or(&word);
            MARKERS.iter().any(|marker| word.ends_with(marker))
        })
}

/// Registers what `config` makes secret; `env` reads a host variable:
/// - each provider's `api_key`, and the value of its `credential_env` (a
///   `credential_file`, or the type's usual variable, is registered when the
///   provider reads it);
/// - each provider's and each MCP server's `headers` values (and the token after
///   `Bearer `);
/// - every value of an `env` map (an MCP server's, a hook's);
/// - the host's value of every variable an `env` list passes on whose name
///   [`looks_secret`].
///
/// Keys count from 4 characters, other values from 8.
pub fn register_secrets(config: &RuntimeConfig, env: &dyn Fn(&str) -> Option<String>) {
    for provider in &config.providers {
        match &provider.credential {
            Some(Credential::Key(key)) => secret::register_key(key),
            Some(Credential::Env(name)) => {
                if let Some(key) = env(name) {
                    secret::register_key(&key);
                }
            }
            Some(Credential::File(_)) | None => {}
        }
        provider
            .headers
            .values()
            .for_each(|v| secret::register_header(v));
    }
    let listed = |exec: &ExecSpec| {
        for name in exec.env.iter().filter(|name| looks_secret(name)) {
            if let Some(value) = env(name) {
                secret::register_value(&value);
            }
        }
    };
    config
        .tools
        .values()
        .filter_map(|tool| tool.exec())
        .for_each(listed);
    config.evals.values().for_each(|eval| listed(&eval.exec));
    for hook in config.hooks.values() {
        listed(&hook.exec);
        hook.env_values
            .values()
            .for_each(|v| secret::register_value(v));
    }
    for server in config.mcp_servers.values() {
        match &server.endpoint {
            McpEndpoint::Stdio { exec, env } => {
                listed(exec);
                env.values().for_each(|v| secret::register_value(v));
            }
            McpEndpoint::Http { headers, .. } => {
                headers.values().for_each(|v| secret::register_header(v));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_look_secret_by_their_words() {
        for secret in [
            "OPENAI_API_KEY",
            "github_token",
            "NPM_AUTHTOKEN",
            "APIKEY",
            "DB_PASSWORD",
            "MYSQL_PASSWD",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "AWS_SECRET_ACCESS_KEY",
            "OAUTH",
            "SSH_AUTH_SOCK",
            "API_KEYS",
            "x-api-key",
        ] {
            assert!(looks_secret(secret), "{secret}");
        }
        for plain in [
            "GIT_AUTHOR_NAME",
            "KEYBOARD",
            "TOKENIZERS_PARALLELISM",
            "PATH",
            "HOME",
            "PASSTHROUGH",
            "AUTHORITY",
        ] {
            assert!(!looks_secret(plain), "{plain}");
        }
    }

    #[test]
    fn a_config_registers_its_credentials_and_secret_looking_variables() {
        use crate::config::{Hook, HookKind, McpServer, McpToolFilter, Provider};
        let exec = |env: &[&str]| ExecSpec {
            env: env.iter().map(|n| n.to_string()).collect(),
            ..ExecSpec::plain("tool", "/")
        };
        let mut config = RuntimeConfig::default();
        config.providers.push(Provider {
            kind: "openai".into(),
            credential: Some(Credential::Key("cfg-inline-key-1".into())),
            headers: [("X-Gw".to_string(), "Bearer cfg-header-token-2".to_string())].into(),
            ..Provider::default()
        });
        config.providers.push(Provider {
            kind: "claude".into(),
            credential: Some(Credential::Env("CFG_KEY_VAR".into())),
            ..Provider::default()
        });
        config.hooks.insert(
            "h".into(),
            Hook {
                name: "h".into(),
                exec: exec(&["CFG_DB_PASSWORD", "CFG_PLAIN_NAME"]),
                env_values: [("ANY".to_string(), "cfg-hook-value-3".to_string())].into(),
                priority: 0,
                kind: HookKind::Eval,
                pos: Default::default(),
            },
        );
        config.mcp_servers.insert(
            "m".into(),
            McpServer {
                name: "m".into(),
                endpoint: McpEndpoint::Stdio {
                    exec: exec(&[]),
                    env: [("GH".to_string(), "cfg-mcp-env-value-4".to_string())].into(),
                },
                timeout: None,
                tool_filter: McpToolFilter::default(),
                pos: Default::default(),
            },
        );
        let env = |name: &str| {
            let value = match name {
                "CFG_KEY_VAR" => "cfg-env-key-5",
                "CFG_DB_PASSWORD" => "cfg-password-6",
                "CFG_PLAIN_NAME" => "cfg-not-a-secret-7",
                _ => return None,
            };
            Some(value.to_string())
        };
        register_secrets(&config, &env);
        let text = "cfg-inline-key-1 Bearer cfg-header-token-2 cfg-header-token-2 \
                    cfg-hook-value-3 cfg-mcp-env-value-4 cfg-env-key-5 cfg-password-6 \
                    cfg-not-a-secret-7";
        assert_eq!(
            crate::secret::redact(text),
            "*** *** *** *** *** *** *** cfg-not-a-secret-7"
        );
    }
}
