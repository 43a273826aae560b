//! The comparability key of a run: a SHA-256 per part of what a run depends on, so
//! that two reports can be told comparable (every part the same) or not (and which
//! part differs). Nothing is started: MCP servers count by their configured command
//! or URL, exec extensions by their command and the files they run (as the lock
//! pins them, see [`super::files`]).
//!
//! The parts:
//! - `prompts`: the pack's prompts (system templates, variables, tool lists,
//!   policies) and fragments;
//! - `tools`: the pack's tools (names, descriptions, schemas);
//! - `evals`: the pack's evals;
//! - `extensions`: every exec tool, hook and eval of the config (command and file
//!   hashes) and every MCP server (command and file hashes, or URL);
//! - `provider`: the config's providers (type, model, base URL, model defaults);
//!   never headers or credentials.
//!
//! Each value is hashed in its RFC 8785 canonical form, so key order and number
//! spelling do not count; a part that is absent hashes as `null`.

use std::collections::BTreeMap;

use serde_json::{Value as Json, json};

use crate::config::{McpEndpoint, RuntimeConfig};
use crate::library::{canonical_json, sha256_hex};

use super::files::exec_entry;

/// The comparability key of a run of `pack` (its JSON) under `config`: part name
/// to the SHA-256 (hex) of that part.
pub(crate) fn fingerprint(config: &RuntimeConfig, pack: Option<&Json>) -> BTreeMap<String, String> {
    let member = |key: &str| pack.and_then(|p| p.get(key)).cloned().unwrap_or(Json::Null);
    let parts = [
        (
            "prompts",
            json!({"prompts": member("prompts"), "fragments": member("fragments")}),
        ),
        ("tools", member("tools")),
        ("evals", member("evals")),
        ("extensions", extensions(config)),
        ("provider", providers(config)),
    ];
    parts
        .into_iter()
        .map(|(name, value)| {
            (
                name.to_string(),
                sha256_hex(canonical_json(&value).as_bytes()),
            )
        })
        .collect()
}

/// What every extension of the config runs.
fn extensions(config: &RuntimeConfig) -> Json {
    let base = &config.base_dir;
    let entry = |exec| serde_json::to_value(exec_entry(exec, base)).unwrap_or(Json::Null);
    let tools: serde_json::Map<String, Json> = config
        .tools
        .values()
        .filter_map(|binding| Some((binding.name.clone(), entry(binding.exec()?))))
        .collect();
    let hooks: serde_json::Map<String, Json> = config
        .hooks
        .values()
        .map(|hook| (hook.name.clone(), entry(&hook.exec)))
        .collect();
    let evals: serde_json::Map<String, Json> = config
        .evals
        .iter()
        .map(|(name, eval)| (name.clone(), entry(&eval.exec)))
        .collect();
    let mcp: serde_json::Map<String, Json> = config
        .mcp_servers
        .values()
        .map(|server| {
            let how = match &server.endpoint {
                McpEndpoint::Stdio { exec, .. } => entry(exec),
                McpEndpoint::Http { url, .. } => json!({ "url": url }),
            };
            (server.name.clone(), how)
        })
        .collect();
    json!({"tools": tools, "hooks": hooks, "evals": evals, "mcp_servers": mcp})
}

/// The providers a run may be answered by, without headers or credentials.
fn providers(config: &RuntimeConfig) -> Json {
    config
        .providers
        .iter()
        .map(|p| {
            json!({
                "id": p.id,
                "type": p.kind,
                "model": p.model,
                "base_url": p.base_url,
                "temperature": p.defaults.temperature,
                "top_p": p.defaults.top_p,
                "max_tokens": p.defaults.max_tokens,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Provider;

    fn config_with_tool(dir: &std::path::Path) -> RuntimeConfig {
        let yaml = "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  tools:\n    t:\n      exec:\n        command: python3\n        args: [./tool.py]\n";
        let path = dir.join("runtimeconfig.yaml");
        std::fs::write(&path, yaml).expect("write config");
        crate::config::load(&path, false)
            .expect("config loads")
            .value
    }

    #[test]
    fn the_same_inputs_give_the_same_key_and_every_part_is_named() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("tool.py"), "print(1)\n").expect("write");
        let config = config_with_tool(dir.path());
        let pack = json!({"prompts": {"p": {"system_template": "Hi"}}, "tools": {}});
        let first = fingerprint(&config, Some(&pack));
        assert_eq!(first, fingerprint(&config, Some(&pack)));
        assert_eq!(
            first.keys().collect::<Vec<_>>(),
            ["evals", "extensions", "prompts", "provider", "tools"]
        );
        assert!(first.values().all(|h| h.len() == 64));
    }

    #[test]
    fn each_part_changes_alone() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("tool.py"), "print(1)\n").expect("write");
        let config = config_with_tool(dir.path());
        let pack = json!({"prompts": {"p": {"system_template": "Hi"}}, "tools": {"t": {"description": "a"}}});
        let before = fingerprint(&config, Some(&pack));
        let differing = |after: &BTreeMap<String, String>| -> Vec<String> {
            before
                .iter()
                .filter(|(k, v)| after.get(*k) != Some(v))
                .map(|(k, _)| k.clone())
                .collect()
        };

        std::fs::write(dir.path().join("tool.py"), "print(2)\n").expect("write");
        assert_eq!(
            differing(&fingerprint(&config, Some(&pack))),
            ["extensions"]
        );
        std::fs::write(dir.path().join("tool.py"), "print(1)\n").expect("write");

        let mut edited = pack.clone();
        edited["prompts"]["p"]["system_template"] = json!("Hello");
        assert_eq!(differing(&fingerprint(&config, Some(&edited))), ["prompts"]);
        let mut edited = pack.clone();
        edited["tools"]["t"]["description"] = json!("b");
        assert_eq!(differing(&fingerprint(&config, Some(&edited))), ["tools"]);

        let mut other = config.clone();
        other.providers.push(Provider {
            kind: "openai".into(),
            model: Some("gpt-x".into()),
            ..Provider::default()
        });
        assert_eq!(differing(&fingerprint(&other, Some(&pack))), ["provider"]);
    }
}
