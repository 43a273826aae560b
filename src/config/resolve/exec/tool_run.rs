//! How a tool spec says it runs (`mode`, `mock_result`, `mock_template`,
//! `mock_parts`, `http`, `timeout_ms`), read the same way for a RuntimeConfig's
//! `spec.tools` entries and for PromptArena's `kind: Tool` files.

use std::time::Duration;

use indexmap::IndexMap;
use serde_json::Value as Json;

use crate::config::model::{HttpRequestMapping, HttpTool, MockAnswer, MockTool, ToolRun};
use crate::doc::{Checker, Fields, Node, Pos, UnknownKeys, Value};
use crate::go_template::{Template, TemplateError};

/// The keys [`read_tool_run`] reads; a caller checking a spec's other keys allows
/// these.
pub(crate) const TOOL_RUN_KEYS: &[&str] = &[
    "mode",
    "timeout_ms",
    "mock_result",
    "mock_template",
    "mock_parts",
    "http",
    "exec",
];

/// The modes PromptKit defines. `exec` needs the RuntimeConfig's resolver; `client`,
/// `local` and `mcp` are answered outside promptexec's reach.
const MODES: &[(&str, &str)] = &[
    ("mock", "mock"),
    ("live", "live"),
    ("exec", "exec"),
    ("client", "client"),
    ("local", "local"),
    ("mcp", "mcp"),
];

/// What a tool spec says about how it runs.
pub(crate) enum ToolWay<'a> {
    /// Complete: mock, live, elsewhere, or nothing given.
    Run(ToolRun),
    /// An exec tool: its `exec` block, for the caller to resolve.
    Exec(&'a Node),
}

/// Reads how the tool whose spec is `spec` runs. `what` names the spec in messages
/// (`spec.tools.lookup`, `spec`). With no `mode`, the keys decide: `exec`, else
/// `http`, else a `mock_*` key, else [`ToolRun::Unbound`] (PromptKit would answer
/// such a tool as a mock with `{"result": "mock response"}`). `None` when something
/// is wrong (reported to `cx`).
pub(crate) fn read_tool_run<'a>(
    cx: &mut Checker,
    spec: &'a Node,
    what: &str,
) -> Option<ToolWay<'a>> {
    let mut f = cx.map(spec, what)?;
    let mode = match f.get("mode") {
        Some(n) if n.as_str() == Some("") => Some("mock"),
        Some(n) => Some(cx.choice(n, &format!("{what}.mode"), MODES)?),
        None => None,
    };
    let timeout = f
        .get("timeout_ms")
        .and_then(|n| cx.non_negative_integer(n, &format!("{what}.timeout_ms")))
        .filter(|ms| *ms > 0)
        .map(Duration::from_millis);
    let exec = f.entry("exec");
    let http = f.entry("http");
    let mocks: Vec<_> = ["mock_result", "mock_template", "mock_parts"]
        .into_iter()
        .filter_map(|k| f.entry(k))
        .collect();
    let mode = mode.unwrap_or(if exec.is_some() {
        "exec"
    } else if http.is_some() {
        "live"
    } else if !mocks.is_empty() {
        "mock"
    } else {
        "unbound"
    });
    let unused = |cx: &mut Checker, entry: Option<(&crate::doc::Key, &Node)>| {
        if let Some((key, _)) = entry {
            cx.warning(
                key.pos,
                format!("{what}.{}: not used, the tool's mode is `{mode}`", key.name),
            );
        }
    };
    if mode != "exec" {
        unused(cx, exec);
    }
    if mode != "live" {
        unused(cx, http);
    }
    if mode != "mock" {
        for entry in &mocks {
            unused(cx, Some(*entry));
        }
    }
    Some(match mode {
        "exec" => match exec {
            Some((_, node)) => ToolWay::Exec(node),
            None => {
                cx.error(
                    spec.pos,
                    format!("{what}: mode `exec` needs an `exec` block"),
                );
                return None;
            }
        },
        "live" => match http {
            Some((_, node)) => ToolWay::Run(ToolRun::Http(Box::new(http_tool(
                cx,
                node,
                &format!("{what}.http"),
                timeout,
            )?))),
            None => {
                cx.error(
                    spec.pos,
                    format!("{what}: mode `live` needs an `http` block"),
                );
                return None;
            }
        },
        "mock" => ToolWay::Run(ToolRun::Mock(mock_tool(cx, &mut f, what, timeout)?)),
        "unbound" => ToolWay::Run(ToolRun::Unbound),
        other => ToolWay::Run(ToolRun::Elsewhere { mode: other }),
    })
}

fn mock_tool(
    cx: &mut Checker,
    f: &mut Fields<'_>,
    what: &str,
    timeout: Option<Duration>,
) -> Option<MockTool> {
    let result = f.entry("mock_result");
    let template = f.get("mock_template");
    let answer = match (result, template) {
        (Some((key, _)), Some(_)) => {
            cx.error(
                key.pos,
                format!("{what}: `mock_result` and `mock_template` exclude each other; give one"),
            );
            return None;
        }
        (Some((_, node)), None) => MockAnswer::Result(node.to_json()),
        (None, Some(node)) => {
            MockAnswer::Template(template_at(cx, node, &format!("{what}.mock_template"))?)
        }
        (None, None) => MockAnswer::Default,
    };
    let parts = match f.entry("mock_parts") {
        Some((_, node)) => {
            let what = format!("{what}.mock_parts");
            for (i, part) in cx.list(node, &what)?.iter().enumerate() {
                let mut pf = cx.map(part, &format!("{what}[{i}]"))?;
                match pf.get("type") {
                    Some(n) => {
                        cx.nonempty_string(n, &format!("{what}[{i}].type"))?;
                    }
                    None => {
                        cx.error(part.pos, format!("{what}[{i}]: missing key `type`"));
                        return None;
                    }
                }
                if let Some(media) = pf.get("media") {
                    cx.map(media, &format!("{what}[{i}].media"))?;
                }
            }
            Some(node.to_json())
        }
        None => None,
    };
    Some(MockTool {
        answer,
        parts,
        timeout,
    })
}

fn http_tool(
    cx: &mut Checker,
    node: &Node,
    what: &str,
    tool_timeout: Option<Duration>,
) -> Option<HttpTool> {
    let mut f = cx.map(node, what)?;
    let url = match f.get("url") {
        Some(n) => {
            let url = template_at(cx, n, &format!("{what}.url"));
            if let Some(url) = &url {
                let text = url.source();
                if !(text.starts_with("http://") || text.starts_with("https://")) {
                    cx.error(
                        n.pos,
                        format!(
                            "{what}.url: expected an `http://` or `https://` URL, found `{text}`"
                        ),
                    );
                    return None;
                }
            }
            url
        }
        None => {
            cx.error(node.pos, format!("{what}: missing key `url`"));
            None
        }
    };
    let method = match f.get("method") {
        Some(n) => http_method(cx, n, what)?,
        None => "POST".to_string(),
    };
    let headers = f
        .get("headers")
        .and_then(|n| string_map(cx, n, &format!("{what}.headers")))
        .unwrap_or_default();
    let headers_from_env = match f.get("headers_from_env") {
        Some(n) => headers_from_env(cx, n, what)?,
        None => Vec::new(),
    };
    let timeout = match f.get("timeout_ms") {
        Some(n) => cx
            .non_negative_integer(n, &format!("{what}.timeout_ms"))
            .filter(|ms| *ms > 0)
            .map(Duration::from_millis)
            .or(tool_timeout),
        None => tool_timeout,
    };
    let redact = names(cx, f.get("redact"), &format!("{what}.redact"));
    let request = match f.get("request") {
        Some(n) => Some(request_mapping(cx, n, &format!("{what}.request"))?),
        None => None,
    };
    let response_mapping = match f.get("response") {
        Some(n) => response_mapping(cx, n, what)?,
        None => None,
    };
    if let Some((key, _)) = f.entry("multimodal") {
        cx.warning(
            key.pos,
            format!("{what}.multimodal: binary answers are not turned into media parts; a non-JSON answer becomes {{\"result\": TEXT}}"),
        );
    }
    cx.unknown_keys(&f, what, UnknownKeys::Error);
    Some(HttpTool {
        url: url?,
        method,
        headers,
        headers_from_env,
        timeout,
        redact,
        request,
        response_mapping,
        pos: node.pos,
    })
}

/// `http.method`, upper-cased: letters only.
fn http_method(cx: &mut Checker, node: &Node, what: &str) -> Option<String> {
    let m = cx.nonempty_string(node, &format!("{what}.method"))?;
    if !m.chars().all(|c| c.is_ascii_alphabetic()) {
        cx.error(
            node.pos,
            format!("{what}.method: `{m}` is not an HTTP method"),
        );
        return None;
    }
    Some(m.to_ascii_uppercase())
}

/// `http.headers_from_env`: `Header-Name=VARIABLE` entries.
fn headers_from_env(cx: &mut Checker, node: &Node, what: &str) -> Option<Vec<(String, String)>> {
    let mut found = Vec::new();
    for (entry, at) in cx.string_list(node, &format!("{what}.headers_from_env"))? {
        match entry.split_once('=') {
            Some((header, var)) if !header.is_empty() && !var.is_empty() => {
                found.push((header.to_string(), var.to_string()));
            }
            _ => cx.error(
                at,
                format!(
                    "{what}.headers_from_env: expected `Header-Name=VARIABLE`, found `{entry}`"
                ),
            ),
        }
    }
    Some(found)
}

/// `http.response`: its `body_mapping` (JMESPath), if any. `None` when the section
/// itself is not a map.
fn response_mapping(cx: &mut Checker, node: &Node, what: &str) -> Option<Option<String>> {
    let rwhat = format!("{what}.response");
    let mut rf = cx.map(node, &rwhat)?;
    let mapping = rf
        .get("body_mapping")
        .and_then(|n| jmespath_at(cx, n, &format!("{rwhat}.body_mapping")));
    cx.unknown_keys(&rf, &rwhat, UnknownKeys::Error);
    Some(mapping)
}

fn request_mapping(cx: &mut Checker, node: &Node, what: &str) -> Option<HttpRequestMapping> {
    let mut f = cx.map(node, what)?;
    let mut mapping = HttpRequestMapping {
        query_params: names(cx, f.get("query_params"), &format!("{what}.query_params")),
        exclude: names(cx, f.get("exclude"), &format!("{what}.exclude")),
        ..HttpRequestMapping::default()
    };
    if let Some(n) = f.get("header_params") {
        let hwhat = format!("{what}.header_params");
        let entries = match &n.value {
            Value::Map(entries) => entries,
            _ => {
                cx.map(n, &hwhat);
                return None;
            }
        };
        for (key, value) in entries {
            let t = template_at(cx, value, &format!("{hwhat}.{}", key.name))?;
            mapping.header_params.insert(key.name.clone(), t);
        }
    }
    mapping.body_mapping = f
        .get("body_mapping")
        .and_then(|n| jmespath_at(cx, n, &format!("{what}.body_mapping")));
    if let Some(n) = f.get("static_query") {
        mapping.static_query = string_map(cx, n, &format!("{what}.static_query"))?;
    }
    if let Some(n) = f.get("static_headers") {
        mapping.static_headers = string_map(cx, n, &format!("{what}.static_headers"))?;
    }
    if let Some(n) = f.get("static_body") {
        cx.map(n, &format!("{what}.static_body"))?;
        if let Json::Object(body) = n.to_json() {
            mapping.static_body = body;
        }
    }
    cx.unknown_keys(&f, what, UnknownKeys::Error);
    Some(mapping)
}

fn names(cx: &mut Checker, node: Option<&Node>, what: &str) -> Vec<String> {
    node.and_then(|n| cx.string_list(n, what))
        .unwrap_or_default()
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

fn string_map(cx: &mut Checker, node: &Node, what: &str) -> Option<IndexMap<String, String>> {
    let Value::Map(entries) = &node.value else {
        cx.map(node, what);
        return None;
    };
    let mut out = IndexMap::new();
    for (key, value) in entries {
        let text = match &value.value {
            Value::Str(s) => s.clone(),
            Value::Int(i) => i.to_string(),
            Value::Float(x) => x.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => {
                cx.string(value, &format!("{what}.{}", key.name));
                continue;
            }
        };
        out.insert(key.name.clone(), text);
    }
    Some(out)
}

fn jmespath_at(cx: &mut Checker, node: &Node, what: &str) -> Option<String> {
    let source = cx.nonempty_string(node, what)?;
    if let Err(e) = jmespath::compile(&source) {
        cx.error(node.pos, format!("{what}: not a JMESPath expression: {e}"));
        return None;
    }
    Some(source)
}

/// A Go template written in `node`, its syntax errors reported where they are in
/// the file.
pub(crate) fn template_at(cx: &mut Checker, node: &Node, what: &str) -> Option<Template> {
    let source = cx.string(node, what)?;
    match Template::parse(&source) {
        Ok(t) => Some(t),
        Err(e) => {
            let at = file_pos(&cx.text, node, &e);
            cx.error(at, format!("{what}: template: {}", e.message));
            None
        }
    }
}

/// Where a place inside a string value is in the file: exact for a literal block
/// (`|`), a single-line quoted string without escapes and a plain string, near it
/// otherwise (a folded block, escapes).
pub(crate) fn file_pos(text: &str, node: &Node, e: &TemplateError) -> Pos {
    let quoted = matches!(
        text.get(node.offset..).and_then(|r| r.chars().next()),
        Some('"' | '\'')
    );
    if quoted && e.line == 1 {
        // The opening quote comes first.
        return Pos {
            line: node.pos.line,
            col: node.pos.col + e.col,
        };
    }
    // A block's value starts at its first line's indentation.
    Pos {
        line: node.pos.line + e.line - 1,
        col: node.pos.col + e.col - 1,
    }
}

#[cfg(test)]
mod tests {
    use crate::config::resolve::document::tests::resolve_text;
    use crate::config::{MockAnswer, ToolRun};

    /// The errors of a config whose `spec.tools` is `tools` (indented by four).
    fn errors(tools: &str) -> Vec<String> {
        let (_, cx) = resolve_text(&format!("spec:\n  tools:\n{tools}"));
        cx.diagnostics.iter().map(|d| d.to_string()).collect()
    }

    #[test]
    fn template_errors_are_placed_in_the_file() {
        for (tools, at) in [
            (
                "    t:\n      mode: mock\n      mock_template: |\n        ok\n        x {{ toJson . }}\n",
                "9:14",
            ),
            (
                "    t:\n      mode: mock\n      mock_template: \"y {{ toJson . }}\"\n",
                "7:28",
            ),
            (
                "    t:\n      mode: mock\n      mock_template: z {{ toJson . }}\n",
                "7:27",
            ),
        ] {
            let found = errors(tools);
            assert!(
                found.iter().any(|e| e.contains(&format!(":{at}: "))
                    && e.contains("function \"toJson\" not defined")),
                "{at} in {found:#?}"
            );
        }
    }

    #[test]
    fn the_keys_decide_when_no_mode_is_given() {
        let (config, cx) = resolve_text(
            "spec:\n  tools:\n    a:\n      mock_result: {ok: true}\n    b:\n      mode: mock\n    c:\n      http: {url: \"http://127.0.0.1:9/x\", method: get}\n    d:\n      mode: client\n",
        );
        assert!(!cx.diagnostics.has_errors(), "{}", cx.diagnostics);
        assert!(
            matches!(&config.tools["a"].run, ToolRun::Mock(m) if matches!(&m.answer, MockAnswer::Result(v) if v["ok"] == true))
        );
        assert!(
            matches!(&config.tools["b"].run, ToolRun::Mock(m) if matches!(m.answer, MockAnswer::Default))
        );
        assert!(matches!(&config.tools["c"].run, ToolRun::Http(h) if h.method == "GET"));
        assert!(matches!(
            config.tools["d"].run,
            ToolRun::Elsewhere { mode: "client" }
        ));
    }

    #[test]
    fn contradictions_are_errors() {
        for (tools, error) in [
            (
                "    t:\n      mode: live\n",
                "spec.tools.t: mode `live` needs an `http` block",
            ),
            (
                "    t:\n      mock_result: 1\n      mock_template: x\n",
                "`mock_result` and `mock_template` exclude each other",
            ),
            (
                "    t:\n      mode: live\n      http: {url: \"ftp://x\"}\n",
                "expected an `http://` or `https://` URL",
            ),
            (
                "    t:\n      mode: live\n      http: {url: \"http://x\", response: {body_mapping: \"a[\"}}\n",
                "not a JMESPath expression",
            ),
            (
                "    t:\n      mode: live\n      http: {url: \"http://x\", headers_from_env: [TOKEN]}\n",
                "expected `Header-Name=VARIABLE`",
            ),
        ] {
            let found = errors(tools);
            assert!(
                found.iter().any(|e| e.contains(error)),
                "{error} in {found:#?}"
            );
        }
    }
}
