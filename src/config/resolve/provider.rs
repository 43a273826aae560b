//! `spec.providers`: PromptKit's whole provider shape, read into [`Provider`]. Every
//! type loads here, even one promptexec does not play; that is refused when chosen.
//! An API key written in the file is never repeated in a message. A `replay`
//! provider's settings are read in `replay`.

use std::path::PathBuf;

use crate::doc::{Fields, Node, Pos, UnknownKeys, one_of};

use crate::config::model::*;

use super::document::{Resolver, join_clean};
use super::exec::is_env_name;

mod replay;

use replay::Replay;

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
        let extra = f.get("additional_config");
        let mock_config =
            extra.and_then(|n| self.additional_config(n, &format!("{what}.additional_config")));
        let replay = match &kind {
            Some((kind, _)) if kind == "replay" => self.replay(extra, item.pos, what),
            _ => Replay::default(),
        };
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
            recording: replay.recording,
            match_content: replay.match_content,
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
mod tests;
