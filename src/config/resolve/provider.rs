//! `spec.providers`: PromptKit's whole provider shape, read into [`Provider`]. Every
//! type loads here, even one promptexec does not play; that is refused when chosen.
//! An API key written in the file is never repeated in a message.

use std::path::PathBuf;

use crate::doc::{Fields, Node, Pos, UnknownKeys, one_of};

use crate::config::model::*;

use super::document::{Resolver, join_clean};
use super::exec::is_env_name;

/// Provider keys PromptKit defines for what promptexec does not do (audio, cloud
/// platforms, transport tuning); accepted, not used.
const PROVIDER_KEYS_UNUSED: &[&str] = &[
    "voice",
    "sample_rate",
    "audio_files",
    "platform",
    "capabilities",
    "unsupported_params",
    "stream_retry",
    "stream_max_concurrent",
    "http_transport",
    "include_raw_output",
    "pricing_correct_at",
];

/// The three places a key can come from, in the order messages name them.
const CREDENTIAL_KEYS: &[&str] = &["api_key", "credential_env", "credential_file"];

impl Resolver<'_> {
    pub(super) fn providers(&mut self, node: &Node, config: &mut RuntimeConfig) {
        let Some(items) = self.cx.list(node, "spec.providers") else {
            return;
        };
        // Each name, with where it is written, so a second use can point at the first.
        let mut names: Vec<(String, Pos)> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let what = format!("spec.providers[{i}]");
            let Some((provider, name_pos)) = self.provider(item, &what) else {
                continue;
            };
            let name = provider.name().to_string();
            if let Some((_, first)) = names.iter().find(|(n, _)| *n == name) {
                self.cx.error(
                    name_pos,
                    format!(
                        "{what}: a provider named `{name}` is already declared at line {}; give each its own `id`",
                        first.line
                    ),
                );
                continue;
            }
            names.push((name, name_pos));
            config.providers.push(provider);
        }
    }

    /// One provider, and where its name (the id, else the type) is written.
    fn provider(&mut self, item: &Node, what: &str) -> Option<(Provider, Pos)> {
        let mut f = self.cx.map(item, what)?;
        let id = f.get("id").and_then(|n| {
            self.cx
                .nonempty_string(n, &format!("{what}.id"))
                .map(|id| (id, n.pos))
        });
        let kind = match f.get("type") {
            Some(n) => self
                .cx
                .nonempty_string(n, &format!("{what}.type"))
                .map(|kind| (kind, n.pos)),
            None => {
                self.cx.error(
                    item.pos,
                    format!("{what}: missing key `type` (for example `mock`)"),
                );
                None
            }
        };
        let model = f
            .get("model")
            .and_then(|n| self.cx.string(n, &format!("{what}.model")));
        if let Some(n) = f.get("role") {
            self.role(n, what);
        }
        let base_url = f.get("base_url").and_then(|n| self.base_url(n, what));
        let headers = f
            .get("headers")
            .and_then(|n| self.headers(n, what))
            .unwrap_or_default();
        let credential = f.get("credential").and_then(|n| self.credential(n, what));
        let defaults = f
            .get("defaults")
            .and_then(|n| self.model_defaults(n, what))
            .unwrap_or_default();
        let pricing = f.get("pricing").and_then(|n| self.pricing(n, what));
        let request_timeout = f.get("request_timeout").and_then(|n| {
            self.cx
                .positive_duration(n, &format!("{what}.request_timeout"))
        });
        let stream_idle_timeout = f.get("stream_idle_timeout").and_then(|n| {
            self.cx
                .positive_duration(n, &format!("{what}.stream_idle_timeout"))
        });
        let rate_limit = f.get("rate_limit").and_then(|n| self.rate_limit(n, what));
        let mock_config = f
            .get("additional_config")
            .and_then(|n| self.additional_config(n, &format!("{what}.additional_config")));
        self.cx.ignored_keys(&mut f, PROVIDER_KEYS_UNUSED, what);
        self.cx.unknown_keys(&f, what, UnknownKeys::Error);
        let (kind, kind_pos) = kind?;
        let name_pos = id.as_ref().map_or(kind_pos, |(_, pos)| *pos);
        let provider = Provider {
            id: id.map(|(id, _)| id),
            kind,
            model,
            base_url,
            headers,
            credential,
            defaults,
            pricing,
            request_timeout,
            stream_idle_timeout,
            rate_limit,
            mock_config,
            pos: item.pos,
        };
        Some((provider, name_pos))
    }

    /// PromptKit's roles beyond `llm` are voices, embeddings and media, which a
    /// conversation does not use.
    fn role(&mut self, node: &Node, what: &str) {
        let Some(role) = self.cx.string(node, &format!("{what}.role")) else {
            return;
        };
        if role != "llm" {
            self.cx.warning(
                node.pos,
                format!("{what}.role: `{role}` is not a role promptexec plays (it plays `llm`); the role is ignored"),
            );
        }
    }

    /// The API's root, written without a trailing `/` so paths can be appended.
    fn base_url(&mut self, node: &Node, what: &str) -> Option<String> {
        let url = self.http_url(
            node,
            &format!("{what}.base_url"),
            "`credential` or `headers`",
        )?;
        Some(url.trim_end_matches('/').to_string())
    }

    fn credential(&mut self, node: &Node, what: &str) -> Option<Credential> {
        let what = format!("{what}.credential");
        let mut f = self.cx.map(node, &what)?;
        let given: Vec<_> = CREDENTIAL_KEYS
            .iter()
            .filter_map(|name| f.entry(name).map(|(key, value)| (*name, key, value)))
            .collect();
        self.cx.unknown_keys(&f, &what, UnknownKeys::Error);
        let (name, key, value) = match given.as_slice() {
            [] => {
                self.cx.error(
                    node.pos,
                    format!("{what}: expected one of {}", one_of(CREDENTIAL_KEYS)),
                );
                return None;
            }
            [one] => *one,
            [(first, ..), (second, key, _), ..] => {
                self.cx.error(
                    key.pos,
                    format!(
                        "{what}: both `{first}` and `{second}` are given; keep one of {}",
                        one_of(CREDENTIAL_KEYS)
                    ),
                );
                return None;
            }
        };
        let at = format!("{what}.{name}");
        match name {
            "api_key" => {
                let text = self.secret_string(value, &at)?;
                self.cx.warning(
                    key.pos,
                    format!("{at}: a key written in the config travels wherever the file does; name an environment variable with `credential_env` instead"),
                );
                Some(Credential::Key(text))
            }
            "credential_env" => {
                let var = self.cx.nonempty_string(value, &at)?;
                if !is_env_name(&var) {
                    self.cx.error(
                        value.pos,
                        format!("{at}: `{var}` is not a valid environment variable name (letters, digits and `_`, not starting with a digit)"),
                    );
                    return None;
                }
                Some(Credential::Env(var))
            }
            _ => {
                let file = self.cx.nonempty_string(value, &at)?;
                let path = join_clean(self.base_dir, &file);
                if self.check_files && !path.is_file() {
                    self.cx.error(
                        value.pos,
                        format!("{at}: file `{}` does not exist", path.display()),
                    );
                }
                Some(Credential::File(path))
            }
        }
    }

    fn model_defaults(&mut self, node: &Node, what: &str) -> Option<ModelDefaults> {
        let what = format!("{what}.defaults");
        let mut f = self.cx.map(node, &what)?;
        let temperature = f
            .get("temperature")
            .and_then(|n| self.number_within(n, &format!("{what}.temperature"), 2.0));
        let top_p = f
            .get("top_p")
            .and_then(|n| self.number_within(n, &format!("{what}.top_p"), 1.0));
        let max_tokens = f
            .get("max_tokens")
            .and_then(|n| self.cx.positive_integer(n, &format!("{what}.max_tokens")));
        self.cx.ignored_keys(&mut f, &["prompt_caching"], &what);
        self.cx.unknown_keys(&f, &what, UnknownKeys::Error);
        Some(ModelDefaults {
            temperature,
            top_p,
            max_tokens,
        })
    }

    /// A number from 0 to `max`, both included.
    fn number_within(&mut self, node: &Node, what: &str, max: f64) -> Option<f64> {
        let value = self.cx.number(node, what)?;
        if !(0.0..=max).contains(&value) {
            self.cx.error(
                node.pos,
                format!("{what}: expected a number from 0 to {max}, found {value}"),
            );
            return None;
        }
        Some(value)
    }

    fn pricing(&mut self, node: &Node, what: &str) -> Option<Pricing> {
        let what = format!("{what}.pricing");
        let mut f = self.cx.map(node, &what)?;
        let input = self.required(&mut f, node, "input_cost_per_1k", &what, Self::cost);
        let output = self.required(&mut f, node, "output_cost_per_1k", &what, Self::cost);
        self.cx.unknown_keys(&f, &what, UnknownKeys::Error);
        Some(Pricing {
            input_per_1k: input?,
            output_per_1k: output?,
        })
    }

    fn cost(&mut self, node: &Node, what: &str) -> Option<f64> {
        let value = self.cx.number(node, what)?;
        if value < 0.0 {
            self.cx.error(
                node.pos,
                format!("{what}: expected a non-negative number, found {value}"),
            );
            return None;
        }
        Some(value)
    }

    fn rate_limit(&mut self, node: &Node, what: &str) -> Option<RateLimit> {
        let what = format!("{what}.rate_limit");
        let mut f = self.cx.map(node, &what)?;
        let rps = self.required(&mut f, node, "rps", &what, Self::positive_u32);
        let burst = self.required(&mut f, node, "burst", &what, Self::positive_u32);
        self.cx.unknown_keys(&f, &what, UnknownKeys::Error);
        Some(RateLimit {
            rps: rps?,
            burst: burst?,
        })
    }

    fn positive_u32(&mut self, node: &Node, what: &str) -> Option<u32> {
        let value = self.cx.positive_integer(node, what)?;
        match u32::try_from(value) {
            Ok(value) => Some(value),
            Err(_) => {
                self.cx.error(
                    node.pos,
                    format!("{what}: {value} is too large (at most {})", u32::MAX),
                );
                None
            }
        }
    }

    /// The key `name` of the mapping `node`, read by `read`; reported when missing.
    fn required<T>(
        &mut self,
        f: &mut Fields<'_>,
        node: &Node,
        name: &'static str,
        what: &str,
        read: impl FnOnce(&mut Self, &Node, &str) -> Option<T>,
    ) -> Option<T> {
        match f.get(name) {
            Some(n) => read(self, n, &format!("{what}.{name}")),
            None => {
                self.cx
                    .error(node.pos, format!("{what}: missing key `{name}`"));
                None
            }
        }
    }

    /// Free-form, except `mock_config`, which names a file.
    fn additional_config(&mut self, node: &Node, what: &str) -> Option<PathBuf> {
        let mut f = self.cx.map(node, what)?;
        let mock = f.get("mock_config")?;
        let name = self
            .cx
            .nonempty_string(mock, &format!("{what}.mock_config"))?;
        let path = join_clean(self.base_dir, &name);
        if self.check_files && !path.is_file() {
            self.cx.error(
                mock.pos,
                format!(
                    "{what}.mock_config: file `{}` does not exist",
                    path.display()
                ),
            );
        }
        Some(path)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use super::*;
    use crate::config::resolve::document::tests::resolve_text;
    use crate::doc::Checker;

    const FILE: &str = "/project/conf/runtimeconfig.yaml";

    /// The config's providers list, written under `spec.providers`: its first line is
    /// line 5 of the file, its columns 4 further right.
    fn providers(yaml: &str) -> (RuntimeConfig, Checker) {
        let indented: String = yaml.lines().map(|l| format!("    {l}\n")).collect();
        resolve_text(&format!("spec:\n  providers:\n{indented}"))
    }

    fn lines(cx: &Checker) -> Vec<String> {
        cx.diagnostics.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn every_field_of_a_provider_is_read_and_typed() {
        let (config, cx) = providers(
            "- id: gpt\n  type: openai\n  model: gpt-4o-mini\n  role: llm\n  base_url: https://api.example.com/v1/\n  headers:\n    OpenAI-Organization: org-1\n    X-Trace: \"on\"\n  credential:\n    credential_env: OPENAI_API_KEY\n  defaults:\n    temperature: 0.7\n    top_p: 1\n    max_tokens: 512\n  pricing:\n    input_cost_per_1k: 0.00015\n    output_cost_per_1k: 0\n  request_timeout: 1m30s\n  stream_idle_timeout: 500ms\n  rate_limit: {rps: 5, burst: 10}\n",
        );
        assert!(cx.diagnostics.iter().next().is_none(), "{}", cx.diagnostics);
        let p = &config.providers[0];
        assert_eq!(p.name(), "gpt");
        assert_eq!(p.kind, "openai");
        assert_eq!(p.model.as_deref(), Some("gpt-4o-mini"));
        assert_eq!(
            p.base_url.as_deref(),
            Some("https://api.example.com/v1"),
            "kept without its trailing slash"
        );
        let headers: Vec<_> = p
            .headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            headers,
            [("OpenAI-Organization", "org-1"), ("X-Trace", "on")]
        );
        assert_eq!(p.credential, Some(Credential::Env("OPENAI_API_KEY".into())));
        assert_eq!(
            p.defaults,
            ModelDefaults {
                temperature: Some(0.7),
                top_p: Some(1.0),
                max_tokens: Some(512)
            }
        );
        assert_eq!(
            p.pricing,
            Some(Pricing {
                input_per_1k: 0.00015,
                output_per_1k: 0.0
            })
        );
        assert_eq!(p.request_timeout, Some(Duration::from_secs(90)));
        assert_eq!(p.stream_idle_timeout, Some(Duration::from_millis(500)));
        assert_eq!(p.rate_limit, Some(RateLimit { rps: 5, burst: 10 }));
        assert_eq!(p.pos, Pos { line: 5, col: 7 });
    }

    #[test]
    fn a_provider_with_only_a_type_takes_every_default() {
        let (config, cx) = providers("- type: gemini\n");
        assert!(!cx.diagnostics.has_errors(), "{}", cx.diagnostics);
        let p = &config.providers[0];
        assert_eq!(
            p.name(),
            "gemini",
            "a type promptexec does not play still loads"
        );
        assert_eq!(p.base_url, None);
        assert!(p.headers.is_empty());
        assert_eq!(p.credential, None);
        assert_eq!(p.defaults, ModelDefaults::default());
        assert_eq!((p.pricing, p.rate_limit), (None, None));
        assert_eq!((p.request_timeout, p.stream_idle_timeout), (None, None));
    }

    #[test]
    fn a_base_url_must_be_http_or_https() {
        let (config, cx) = providers(
            "- {id: a, type: openai, base_url: ftp://example.com/v1}\n- {id: b, type: openai, base_url: localhost:11434}\n- {id: c, type: openai, base_url: \"http://\"}\n- {id: d, type: ollama, base_url: \"http://localhost:11434/v1\"}\n",
        );
        assert_eq!(
            lines(&cx),
            [
                format!(
                    "{FILE}:5:39: spec.providers[0].base_url: expected an `http://` or `https://` URL, found `ftp://example.com/v1`"
                ),
                format!(
                    "{FILE}:6:39: spec.providers[1].base_url: expected an `http://` or `https://` URL, found `localhost:11434`"
                ),
                format!(
                    "{FILE}:7:39: spec.providers[2].base_url: expected an `http://` or `https://` URL, found `http://`"
                ),
            ]
        );
        assert_eq!(
            config.providers[3].base_url.as_deref(),
            Some("http://localhost:11434/v1")
        );
    }

    #[test]
    fn a_base_url_with_a_password_is_refused_without_showing_it() {
        let (_, cx) =
            providers("- {id: a, type: openai, base_url: \"http://me:hunter2@example.com/v1\"}\n");
        let lines = lines(&cx);
        assert_eq!(
            lines,
            [format!(
                "{FILE}:5:39: spec.providers[0].base_url: a user or password in the URL is not accepted (URLs are shown in logs and errors); give the key with `credential` or `headers`"
            )]
        );
    }

    #[test]
    fn headers_are_a_map_of_strings_whose_values_are_never_shown() {
        let (_, cx) = providers(
            "- type: openai\n  headers:\n    Authorization: 12345\n    \"bad name\": x\n    X-A: a\n    x-a: b\n- type: claude\n  headers: [a]\n",
        );
        assert_eq!(
            lines(&cx),
            [
                format!(
                    "{FILE}:7:24: spec.providers[0].headers.Authorization: expected a string, found an integer"
                ),
                format!(
                    "{FILE}:8:9: spec.providers[0].headers: `bad name` is not a valid header name (letters, digits and `!#$%&'*+-.^_`|~`)"
                ),
                format!(
                    "{FILE}:10:9: spec.providers[0].headers.x-a: given twice (header names ignore case)"
                ),
                format!(
                    "{FILE}:12:16: spec.providers[1].headers: expected a mapping, found a list"
                ),
            ]
        );
    }

    #[test]
    fn a_credential_names_exactly_one_source() {
        let (_, cx) = providers(
            "- id: none\n  type: openai\n  credential: {}\n- id: two\n  type: openai\n  credential:\n    credential_env: KEY\n    credential_file: key.txt\n- id: typo\n  type: openai\n  credential:\n    credentail_env: KEY\n- id: bad_env\n  type: openai\n  credential: {credential_env: 1KEY}\n",
        );
        assert_eq!(
            lines(&cx),
            [
                format!(
                    "{FILE}:7:19: spec.providers[0].credential: expected one of `api_key`, `credential_env` or `credential_file`"
                ),
                format!(
                    "{FILE}:12:9: spec.providers[1].credential: both `credential_env` and `credential_file` are given; keep one of `api_key`, `credential_env` or `credential_file`"
                ),
                format!(
                    "{FILE}:16:9: unknown key `credentail_env` in spec.providers[2].credential; did you mean `credential_env`?"
                ),
                format!(
                    "{FILE}:16:9: spec.providers[2].credential: expected one of `api_key`, `credential_env` or `credential_file`"
                ),
                format!(
                    "{FILE}:19:36: spec.providers[3].credential.credential_env: `1KEY` is not a valid environment variable name (letters, digits and `_`, not starting with a digit)"
                ),
            ]
        );
    }

    #[test]
    fn a_key_in_the_file_is_used_with_a_warning_that_does_not_repeat_it() {
        let (config, cx) = providers(
            "- type: openai\n  credential:\n    api_key: sk-test-0123456789\n- id: b\n  type: openai\n  credential: {api_key: 42}\n",
        );
        assert_eq!(
            config.providers[0].credential,
            Some(Credential::Key("sk-test-0123456789".into()))
        );
        let shown = lines(&cx);
        assert_eq!(
            shown,
            [
                format!(
                    "{FILE}:7:9: warning: spec.providers[0].credential.api_key: a key written in the config travels wherever the file does; name an environment variable with `credential_env` instead"
                ),
                format!(
                    "{FILE}:10:29: spec.providers[1].credential.api_key: expected a string, found an integer"
                ),
            ]
        );
        let debug = format!("{:?}", config.providers[0]);
        assert!(!debug.contains("sk-test"), "{debug}");
    }

    #[test]
    fn a_credential_file_is_found_from_the_config_directory() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("key.txt"), "sk-x\n").expect("written");
        let text = "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  providers:\n    - id: here\n      type: openai\n      credential: {credential_file: ./key.txt}\n    - id: gone\n      type: openai\n      credential: {credential_file: ../gone.txt}\n";
        let path = dir.path().join("c.yaml");
        let root = crate::doc::parse_yaml(&path, text).expect("valid yaml");
        let mut cx = Checker::new(&path, text);
        let config = super::super::document::resolve(&root, dir.path(), true, &mut cx);
        assert_eq!(
            config.providers[0].credential,
            Some(Credential::File(dir.path().join("key.txt")))
        );
        let gone = dir.path().join("../gone.txt");
        assert_eq!(
            lines(&cx),
            [format!(
                "{}:10:37: spec.providers[1].credential.credential_file: file `{}` does not exist",
                path.display(),
                gone.display()
            )]
        );
    }

    #[test]
    fn defaults_are_checked_against_their_ranges() {
        let (config, cx) = providers(
            "- id: a\n  type: openai\n  defaults: {temperature: 2.5, top_p: -0.1, max_tokens: 0, prompt_caching: true}\n- id: b\n  type: openai\n  defaults: {temperature: 2, top_p: 0, tempreature: 1}\n",
        );
        assert_eq!(
            lines(&cx),
            [
                format!(
                    "{FILE}:7:31: spec.providers[0].defaults.temperature: expected a number from 0 to 2, found 2.5"
                ),
                format!(
                    "{FILE}:7:43: spec.providers[0].defaults.top_p: expected a number from 0 to 1, found -0.1"
                ),
                format!(
                    "{FILE}:7:61: spec.providers[0].defaults.max_tokens: expected a positive integer, found 0"
                ),
                format!(
                    "{FILE}:7:64: warning: `prompt_caching` in spec.providers[0].defaults is a PromptKit key promptexec does not apply; it is ignored"
                ),
                format!(
                    "{FILE}:10:44: unknown key `tempreature` in spec.providers[1].defaults; did you mean `temperature`?"
                ),
            ]
        );
        assert_eq!(config.providers[1].defaults.temperature, Some(2.0));
        assert_eq!(config.providers[1].defaults.top_p, Some(0.0));
    }

    #[test]
    fn pricing_and_rate_limit_need_both_their_keys() {
        let (config, cx) = providers(
            "- id: a\n  type: openai\n  pricing: {input_cost_per_1k: 0.5}\n  rate_limit: {rps: 0, burst: 2}\n- id: b\n  type: openai\n  pricing: {input_cost_per_1k: -1, output_cost_per_1k: 1}\n  rate_limit: {burst: 2}\n- id: c\n  type: openai\n  pricing: {input_cost_per_1k: 1, output_cost_per_1k: 2}\n  rate_limit: {rps: 1, burst: 5000000000}\n",
        );
        assert_eq!(
            lines(&cx),
            [
                format!("{FILE}:7:16: spec.providers[0].pricing: missing key `output_cost_per_1k`"),
                format!(
                    "{FILE}:8:25: spec.providers[0].rate_limit.rps: expected a positive integer, found 0"
                ),
                format!(
                    "{FILE}:11:36: spec.providers[1].pricing.input_cost_per_1k: expected a non-negative number, found -1"
                ),
                format!("{FILE}:12:19: spec.providers[1].rate_limit: missing key `rps`"),
                format!(
                    "{FILE}:16:35: spec.providers[2].rate_limit.burst: 5000000000 is too large (at most 4294967295)"
                ),
            ]
        );
        assert_eq!(
            config.providers[2].pricing,
            Some(Pricing {
                input_per_1k: 1.0,
                output_per_1k: 2.0
            })
        );
        assert_eq!(config.providers[0].pricing, None);
    }

    #[test]
    fn timeouts_are_durations_more_than_zero() {
        let (config, cx) = providers(
            "- id: a\n  type: openai\n  request_timeout: 0s\n  stream_idle_timeout: 30\n- id: b\n  type: openai\n  request_timeout: soon\n  stream_idle_timeout: 2m\n",
        );
        let shown = lines(&cx);
        assert_eq!(shown.len(), 3, "{shown:#?}");
        assert_eq!(
            shown[0],
            format!("{FILE}:7:24: spec.providers[0].request_timeout: must be more than zero")
        );
        assert_eq!(
            shown[1],
            format!(
                "{FILE}:8:28: spec.providers[0].stream_idle_timeout: expected a duration such as `30s`, `1m30s` or `500ms`, found 30"
            )
        );
        assert_eq!(
            shown[2],
            format!(
                "{FILE}:11:24: spec.providers[1].request_timeout: expected a duration such as `30s`, `1m30s` or `500ms`, found `soon`"
            )
        );
        assert_eq!(
            config.providers[1].stream_idle_timeout,
            Some(Duration::from_secs(120))
        );
    }

    #[test]
    fn keys_promptexec_does_not_use_are_warnings_and_misspelt_ones_errors() {
        let (config, cx) = providers(
            "- type: openai\n  role: tts\n  voice: alloy\n  include_raw_output: true\n  http_transport: {}\n  base_ulr: http://x\n- type: mock\n  role: llm\n",
        );
        assert_eq!(
            lines(&cx),
            [
                format!(
                    "{FILE}:6:13: warning: spec.providers[0].role: `tts` is not a role promptexec plays (it plays `llm`); the role is ignored"
                ),
                format!(
                    "{FILE}:7:7: warning: `voice` in spec.providers[0] is a PromptKit key promptexec does not apply; it is ignored"
                ),
                format!(
                    "{FILE}:9:7: warning: `http_transport` in spec.providers[0] is a PromptKit key promptexec does not apply; it is ignored"
                ),
                format!(
                    "{FILE}:8:7: warning: `include_raw_output` in spec.providers[0] is a PromptKit key promptexec does not apply; it is ignored"
                ),
                format!(
                    "{FILE}:10:7: unknown key `base_ulr` in spec.providers[0]; did you mean `base_url`?"
                ),
            ]
        );
        assert_eq!(config.providers.len(), 2);
    }

    #[test]
    fn two_providers_with_one_name_point_at_the_first() {
        let (config, cx) = providers(
            "- type: mock\n- id: fast\n  type: openai\n- id: mock\n  type: openai\n- type: openai\n  id: fast\n",
        );
        assert_eq!(
            lines(&cx),
            [
                format!(
                    "{FILE}:8:11: spec.providers[2]: a provider named `mock` is already declared at line 5; give each its own `id`"
                ),
                format!(
                    "{FILE}:11:11: spec.providers[3]: a provider named `fast` is already declared at line 6; give each its own `id`"
                ),
            ]
        );
        let names: Vec<&str> = config.providers.iter().map(Provider::name).collect();
        assert_eq!(names, ["mock", "fast"]);
    }

    #[test]
    fn the_mock_file_is_found_from_the_config_directory() {
        let (config, cx) = providers(
            "- type: mock\n  additional_config:\n    mock_config: ./mocks/responses.yaml\n    other: kept\n",
        );
        assert!(cx.diagnostics.iter().next().is_none(), "{}", cx.diagnostics);
        assert_eq!(
            config.providers[0].mock_config.as_deref(),
            Some(Path::new("/project/conf/mocks/responses.yaml"))
        );
    }
}
