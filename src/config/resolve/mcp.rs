//! `spec.mcp_servers`: MCP servers whose tools join the tool set, read into
//! [`McpServer`]. A server is started (`command`) or reached (`url`); one the host
//! provisions (`source`) is valid PromptKit that promptexec cannot start. Values of
//! `env` and `headers` may be secrets and are never repeated in a message.

use std::time::Duration;

use indexmap::IndexMap;

use crate::doc::{Fields, Key, Node, Pos, UnknownKeys, Value, one_of};

use crate::config::model::*;

use super::document::Resolver;

/// The keys that say where a server is: exactly one is given.
const ENDPOINT_KEYS: &[&str] = &["command", "url", "source"];

/// Keys that belong to one of the endpoint keys, and only make sense with it.
const ENDPOINT_ONLY: &[(&str, &[&str])] = &[
    ("command", &["args", "env", "working_dir"]),
    ("url", &["headers"]),
    ("source", &["scope", "source_args"]),
];

/// `transport`; an empty one is PromptKit's default, as if none were written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transport {
    Unset,
    Stdio,
    Sse,
    StreamableHttp,
    /// Not one of the others; already reported.
    Unknown,
}

const TRANSPORTS: &[(&str, Transport)] = &[
    ("stdio", Transport::Stdio),
    ("sse", Transport::Sse),
    ("streamable_http", Transport::StreamableHttp),
];

/// When a host-provisioned server opens and closes (`scope`).
const SCOPES: &[(&str, ())] = &[("run", ()), ("scenario", ()), ("session", ())];

/// One entry as far as it could be read: its name (for spotting a second use) and the
/// server, when it is one promptexec can reach.
type Entry = (Option<(String, Pos)>, Option<McpServer>);

impl Resolver<'_> {
    pub(super) fn mcp_servers(&mut self, node: &Node, config: &mut RuntimeConfig) {
        let Some(items) = self.cx.list(node, "spec.mcp_servers") else {
            return;
        };
        // Each name, with where it is written, so a second use can point at the first.
        let mut names: Vec<(String, Pos)> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let what = format!("spec.mcp_servers[{i}]");
            let (Some((name, name_pos)), server) = self.mcp_server(item, &what) else {
                continue;
            };
            if let Some((_, first)) = names.iter().find(|(n, _)| *n == name) {
                self.cx.error(
                    name_pos,
                    format!(
                        "{what}: an MCP server named `{name}` is already declared at line {}; give each its own `name`",
                        first.line
                    ),
                );
                continue;
            }
            names.push((name.clone(), name_pos));
            if let Some(server) = server {
                config.mcp_servers.insert(name, server);
            }
        }
    }

    fn mcp_server(&mut self, item: &Node, what: &str) -> Entry {
        let Some(mut f) = self.cx.map(item, what) else {
            return (None, None);
        };
        let name = self.mcp_server_name(&mut f, item.pos, what);
        let endpoint_key = self.endpoint_key(&mut f, item.pos, what);
        if let Some((kind, _, _)) = endpoint_key {
            self.keys_of_other_endpoints(&mut f, kind, what);
        }
        let transport = match f.get("transport") {
            Some(n) => (self.transport(n, what), n.pos),
            None => (Transport::Unset, item.pos),
        };
        let endpoint = match endpoint_key {
            Some(("command", _, node)) => self.stdio_endpoint(&mut f, node, transport, what),
            Some(("url", key, node)) => self.http_endpoint(&mut f, key, node, transport, what),
            Some((_, key, node)) => {
                self.host_source(&mut f, item.pos, key, node, what);
                None
            }
            None => {
                // Which keys belong is unknown; they are not reported as unknown too.
                for (_, keys) in ENDPOINT_ONLY {
                    f.allow(keys);
                }
                None
            }
        };
        let timeout = f
            .get("timeout_ms")
            .and_then(|n| self.cx.positive_integer(n, &format!("{what}.timeout_ms")))
            .map(Duration::from_millis);
        let server_name = name.as_ref().map(|(name, _)| name.as_str());
        let tool_filter = f
            .get("tool_filter")
            .and_then(|n| self.tool_filter(n, what, server_name))
            .unwrap_or_default();
        self.cx.unknown_keys(&f, what, UnknownKeys::Error);
        let server = match (&name, endpoint) {
            (Some((name, _)), Some(endpoint)) => Some(McpServer {
                name: name.clone(),
                endpoint,
                timeout,
                tool_filter,
                pos: item.pos,
            }),
            _ => None,
        };
        (name, server)
    }

    /// The name and where it is written. It becomes part of every tool's name
    /// (`mcp__<server>__<tool>`), so it must be a valid piece of one and keep the
    /// server apart from the tool.
    fn mcp_server_name(
        &mut self,
        f: &mut Fields<'_>,
        pos: Pos,
        what: &str,
    ) -> Option<(String, Pos)> {
        let Some(node) = f.get("name") else {
            self.cx.error(
                pos,
                format!("{what}: missing key `name` (its tools are named `mcp__<name>__<tool>`)"),
            );
            return None;
        };
        let name = self.cx.nonempty_string(node, &format!("{what}.name"))?;
        let problem = if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            "may only use letters, digits, `_` and `-`: its tools are named `mcp__<name>__<tool>`, and model APIs accept no other characters in a tool name"
        } else if name.contains("__") || name.ends_with('_') {
            "must not contain `__` or end with `_`: tools are named `mcp__<name>__<tool>`, and the first `__` after the name must be the one that ends it"
        } else {
            return Some((name, node.pos));
        };
        self.cx
            .error(node.pos, format!("{what}.name: `{name}` {problem}"));
        None
    }

    /// Which of `command`, `url` and `source` is given, with its key and value; `None`
    /// (reported) unless exactly one is.
    fn endpoint_key<'a>(
        &mut self,
        f: &mut Fields<'a>,
        pos: Pos,
        what: &str,
    ) -> Option<(&'static str, &'a Key, &'a Node)> {
        let given: Vec<_> = ENDPOINT_KEYS
            .iter()
            .filter_map(|name| f.entry(name).map(|(key, value)| (*name, key, value)))
            .collect();
        match given.as_slice() {
            [one] => Some(*one),
            [] => {
                self.cx.error(
                    pos,
                    format!("{what}: expected one of `command` (a program to start), `url` (a server to reach) or `source` (one the host provisions)"),
                );
                None
            }
            [(first, ..), (second, key, _), ..] => {
                self.cx.error(
                    key.pos,
                    format!(
                        "{what}: both `{first}` and `{second}` are given; keep one of {}",
                        one_of(ENDPOINT_KEYS)
                    ),
                );
                None
            }
        }
    }

    /// Reports the keys that belong to an endpoint key other than `kind`.
    fn keys_of_other_endpoints(&mut self, f: &mut Fields<'_>, kind: &str, what: &str) {
        for (owner, keys) in ENDPOINT_ONLY {
            for name in keys.iter().filter(|_| *owner != kind) {
                if let Some((key, _)) = f.entry(name) {
                    self.cx.error(
                        key.pos,
                        format!(
                            "{what}.{name}: only for {} (this one has `{kind}`)",
                            described(owner)
                        ),
                    );
                }
            }
        }
    }

    fn transport(&mut self, node: &Node, what: &str) -> Transport {
        if node.as_str() == Some("") {
            return Transport::Unset;
        }
        self.cx
            .choice(node, &format!("{what}.transport"), TRANSPORTS)
            .unwrap_or(Transport::Unknown)
    }

    /// `command`: a child started like any extension, speaking MCP on stdin and stdout.
    fn stdio_endpoint(
        &mut self,
        f: &mut Fields<'_>,
        node: &Node,
        (transport, transport_pos): (Transport, Pos),
        what: &str,
    ) -> Option<McpEndpoint> {
        let command = self.cx.nonempty_string(node, &format!("{what}.command"));
        let (args, arg_positions) = self.exec_args(f.get("args"), what);
        let env = match f.get("env") {
            Some(n) => self.env_values(n, &format!("{what}.env")),
            None => Some(IndexMap::new()),
        };
        let working_dir = self.working_dir(f.get("working_dir"), what);
        let transport_fits = matches!(transport, Transport::Unset | Transport::Stdio);
        if matches!(transport, Transport::Sse | Transport::StreamableHttp) {
            self.cx.error(
                transport_pos,
                format!(
                    "{what}.transport: `{}` is for a server reached by `url`; one started with `command` speaks `stdio`",
                    transport_name(transport)
                ),
            );
        }
        let command = self.command_path(&command?, node.pos, what);
        let exec = ExecSpec {
            command,
            args,
            env: Vec::new(),
            timeout: None,
            working_dir: working_dir?,
            max_output_bytes: None,
            runtime: RuntimeMode::Server,
            max_in_flight: None,
            command_pos: node.pos,
            arg_positions,
            env_mode: self.env_mode,
        };
        let env = env?;
        transport_fits.then_some(McpEndpoint::Stdio { exec, env })
    }

    /// Reports each header the transport sets itself; whether there was one.
    fn transport_headers(&mut self, node: &Node, what: &str) -> bool {
        let Value::Map(entries) = &node.value else {
            return false;
        };
        let mut found = false;
        for (key, _) in entries {
            if MCP_TRANSPORT_HEADERS
                .iter()
                .any(|h| h.eq_ignore_ascii_case(&key.name))
            {
                self.cx.error(
                    key.pos,
                    format!(
                        "{what}.headers: `{}` is set by the MCP transport itself and cannot be configured",
                        key.name
                    ),
                );
                found = true;
            }
        }
        found
    }

    /// `url`: a server reached over streamable HTTP, the one HTTP transport
    /// promptexec's MCP client has.
    fn http_endpoint(
        &mut self,
        f: &mut Fields<'_>,
        key: &Key,
        node: &Node,
        (transport, transport_pos): (Transport, Pos),
        what: &str,
    ) -> Option<McpEndpoint> {
        let url = self.http_url(node, &format!("{what}.url"), "`headers`");
        let headers = match f.get("headers") {
            Some(n) => {
                let refused = self.transport_headers(n, what);
                self.headers(n, what).filter(|_| !refused)
            }
            None => Some(IndexMap::new()),
        };
        match transport {
            Transport::StreamableHttp => {}
            Transport::Unset => self.cx.warning(
                key.pos,
                format!("{what}.url: without `transport`, PromptKit reaches this server over SSE; promptexec speaks streamable HTTP to it (write `transport: streamable_http` to say so)"),
            ),
            Transport::Sse => {
                self.cx.error(
                    transport_pos,
                    format!("{what}.transport: `sse` is not supported: promptexec's MCP client (the official Rust SDK) has no SSE transport; if the server also speaks streamable HTTP, write `transport: streamable_http`"),
                );
                return None;
            }
            Transport::Stdio => {
                self.cx.error(
                    transport_pos,
                    format!("{what}.transport: `stdio` is for a server started with `command`; one reached by `url` speaks `streamable_http`"),
                );
                return None;
            }
            Transport::Unknown => return None,
        }
        Some(McpEndpoint::Http {
            url: url?,
            headers: headers?,
        })
    }

    /// `source`: an endpoint a host-registered MCPSource provisions. It is checked as
    /// PromptKit would, then left out: promptexec has no such host.
    fn host_source(&mut self, f: &mut Fields<'_>, pos: Pos, key: &Key, node: &Node, what: &str) {
        let source = self.cx.nonempty_string(node, &format!("{what}.source"));
        match f.get("scope") {
            Some(n) => {
                self.cx.choice(n, &format!("{what}.scope"), SCOPES);
            }
            None => self.cx.error(
                pos,
                format!("{what}: missing key `scope` (`run`, `scenario` or `session`), which `source` needs"),
            ),
        }
        if let Some(n) = f.get("source_args") {
            self.cx.map(n, &format!("{what}.source_args"));
        }
        if let Some(source) = source {
            self.cx.warning(
                key.pos,
                format!("{what}.source: the server `{source}` is provisioned by the host; promptexec does not start it, so its tools are not available"),
            );
        }
    }

    fn tool_filter(
        &mut self,
        node: &Node,
        what: &str,
        server: Option<&str>,
    ) -> Option<McpToolFilter> {
        let what = format!("{what}.tool_filter");
        let mut f = self.cx.map(node, &what)?;
        let allowlist = f
            .get("allowlist")
            .map(|n| self.patterns(n, &format!("{what}.allowlist"), server))
            .unwrap_or_default();
        let blocklist = f
            .get("blocklist")
            .map(|n| self.patterns(n, &format!("{what}.blocklist"), server))
            .unwrap_or_default();
        self.cx.unknown_keys(&f, &what, UnknownKeys::Error);
        Some(McpToolFilter {
            allowlist,
            blocklist,
        })
    }

    /// A list of tool name patterns. One written as another server's tool name can
    /// never match here, which is worth a warning.
    fn patterns(&mut self, node: &Node, what: &str, server: Option<&str>) -> Vec<String> {
        let Some(items) = self.cx.string_list(node, what) else {
            return Vec::new();
        };
        for (pattern, pos) in &items {
            if let (Some(server), Some(named)) = (server, named_server(pattern))
                && named != server
            {
                self.cx.warning(
                    *pos,
                    format!("{what}: `{pattern}` names the server `{named}`, not `{server}`, so it never matches a tool of this one"),
                );
            }
        }
        items.into_iter().map(|(pattern, _)| pattern).collect()
    }
}

/// How messages call a server by the key that says where it is.
fn described(endpoint_key: &str) -> &'static str {
    match endpoint_key {
        "command" => "a server started with `command`",
        "url" => "a server reached by `url`",
        _ => "a server the host provisions (`source`)",
    }
}

fn transport_name(transport: Transport) -> &'static str {
    TRANSPORTS
        .iter()
        .find(|(_, t)| *t == transport)
        .map_or("", |(name, _)| name)
}

/// The server a pattern written as `mcp__<server>__<tool>` names, when it names one
/// without wildcards.
fn named_server(pattern: &str) -> Option<&str> {
    let rest = pattern.strip_prefix("mcp__")?;
    let server = rest.split("__").next().unwrap_or_default();
    (!server.is_empty() && !server.contains(['*', '?'])).then_some(server)
}

#[cfg(test)]
mod tests;
