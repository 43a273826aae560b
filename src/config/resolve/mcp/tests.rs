use std::path::Path;

use super::*;
use crate::config::resolve::document::tests::resolve_text;
use crate::doc::snippet::snippet;
use crate::doc::{Checker, Severity};

const FILE: &str = "/project/conf/runtimeconfig.yaml";

/// The config's servers, written under `spec.mcp_servers`: its first line is line
/// 5 of the file, its columns 4 further right.
fn servers(yaml: &str) -> (RuntimeConfig, Checker) {
    let indented: String = yaml.lines().map(|l| format!("    {l}\n")).collect();
    resolve_text(&format!("spec:\n  mcp_servers:\n{indented}"))
}

fn lines(cx: &Checker) -> Vec<String> {
    cx.diagnostics.iter().map(ToString::to_string).collect()
}

#[test]
fn a_server_started_with_a_command_is_read_whole() {
    let (config, cx) = resolve_text(
        "spec:\n  env_mode: listed\n  mcp_servers:\n    - name: files\n      command: ./bin/fs-server\n      args: [--root, ./data]\n      env:\n        FS_TOKEN: tok-1\n        EMPTY: \"\"\n      working_dir: work\n      transport: stdio\n      timeout_ms: 2500\n      tool_filter:\n        allowlist: [\"read_*\", mcp__files__list_dir]\n        blocklist: [write_file]\n    - {name: plain, command: npx, transport: \"\"}\n",
    );
    assert!(cx.diagnostics.iter().next().is_none(), "{}", cx.diagnostics);
    let names: Vec<&str> = config.mcp_servers.keys().map(String::as_str).collect();
    assert_eq!(names, ["files", "plain"]);
    let server = &config.mcp_servers["files"];
    assert_eq!(server.name, "files");
    assert_eq!(server.pos, Pos { line: 6, col: 7 });
    assert_eq!(server.timeout, Some(Duration::from_millis(2500)));
    assert_eq!(
        server.tool_filter,
        McpToolFilter {
            allowlist: vec!["read_*".into(), "mcp__files__list_dir".into()],
            blocklist: vec!["write_file".into()],
        }
    );
    let McpEndpoint::Stdio { exec, env } = &server.endpoint else {
        panic!("a stdio endpoint: {:?}", server.endpoint);
    };
    let expected = ExecSpec {
        command: "/project/conf/bin/fs-server".into(),
        args: vec!["--root".into(), "./data".into()],
        env: Vec::new(),
        timeout: None,
        working_dir: "/project/conf/work".into(),
        max_output_bytes: None,
        runtime: RuntimeMode::Server,
        max_in_flight: None,
        command_pos: Pos { line: 7, col: 16 },
        arg_positions: vec![Pos { line: 8, col: 14 }, Pos { line: 8, col: 22 }],
        env_mode: EnvMode::Listed,
    };
    assert_eq!(*exec, expected);
    let env: Vec<_> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(env, [("FS_TOKEN", "tok-1"), ("EMPTY", "")]);
    let plain = &config.mcp_servers["plain"];
    let McpEndpoint::Stdio { exec, env } = &plain.endpoint else {
        panic!("a stdio endpoint: {:?}", plain.endpoint);
    };
    assert_eq!(
        exec.command,
        Path::new("npx"),
        "a bare name goes through PATH"
    );
    assert_eq!(exec.working_dir, Path::new("/project/conf"));
    assert!(exec.args.is_empty() && env.is_empty());
    assert_eq!(
        (plain.timeout, &plain.tool_filter),
        (None, &McpToolFilter::default())
    );
}

#[test]
fn a_server_reached_by_url_is_read_whole() {
    let (config, cx) = servers(
        "- name: search\n  url: https://mcp.example.com/mcp/\n  transport: streamable_http\n  headers:\n    Authorization: Bearer tok-2\n    X-Team: core\n  timeout_ms: 100\n  tool_filter: {blocklist: [\"mcp__search__delete_*\"]}\n",
    );
    assert!(cx.diagnostics.iter().next().is_none(), "{}", cx.diagnostics);
    let server = &config.mcp_servers["search"];
    let McpEndpoint::Http { url, headers } = &server.endpoint else {
        panic!("an HTTP endpoint: {:?}", server.endpoint);
    };
    assert_eq!(url, "https://mcp.example.com/mcp/", "kept as written");
    let headers: Vec<_> = headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        headers,
        [("Authorization", "Bearer tok-2"), ("X-Team", "core")]
    );
    assert_eq!(server.timeout, Some(Duration::from_millis(100)));
    assert_eq!(server.tool_filter.blocklist, ["mcp__search__delete_*"]);
    assert_eq!(server.pos, Pos { line: 5, col: 7 });
}

#[test]
fn a_name_must_fit_in_a_tool_name_and_be_the_only_one() {
    let (config, cx) = servers(
        "- command: a\n- {name: \"\", command: a}\n- {name: my server, command: a}\n- {name: a__b, command: a}\n- {name: fs_, command: a}\n- {name: fs, command: a}\n- name: fs\n  command: b\n- {name: 7, command: a}\n",
    );
    assert_eq!(
        lines(&cx),
        [
            format!(
                "{FILE}:5:7: spec.mcp_servers[0]: missing key `name` (its tools are named `mcp__<name>__<tool>`)"
            ),
            format!("{FILE}:6:14: spec.mcp_servers[1].name: must not be empty"),
            format!(
                "{FILE}:7:14: spec.mcp_servers[2].name: `my server` may only use letters, digits, `_` and `-`: its tools are named `mcp__<name>__<tool>`, and model APIs accept no other characters in a tool name"
            ),
            format!(
                "{FILE}:8:14: spec.mcp_servers[3].name: `a__b` must not contain `__` or end with `_`: tools are named `mcp__<name>__<tool>`, and the first `__` after the name must be the one that ends it"
            ),
            format!(
                "{FILE}:9:14: spec.mcp_servers[4].name: `fs_` must not contain `__` or end with `_`: tools are named `mcp__<name>__<tool>`, and the first `__` after the name must be the one that ends it"
            ),
            format!(
                "{FILE}:11:13: spec.mcp_servers[6]: an MCP server named `fs` is already declared at line 10; give each its own `name`"
            ),
            format!("{FILE}:13:14: spec.mcp_servers[7].name: expected a string, found 7"),
        ]
    );
    let McpEndpoint::Stdio { exec, .. } = &config.mcp_servers["fs"].endpoint else {
        panic!("a stdio endpoint");
    };
    assert_eq!(exec.command, Path::new("a"), "the first one is kept");
    assert_eq!(config.mcp_servers.len(), 1);
}

#[test]
fn exactly_one_of_command_url_and_source_says_where_the_server_is() {
    let (config, cx) = servers(
        "- name: none\n  args: [x]\n- name: two\n  command: a\n  url: http://x.org\n- {name: three, source: docker, url: \"http://x.org\", command: a}\n",
    );
    assert_eq!(
        lines(&cx),
        [
            format!(
                "{FILE}:5:7: spec.mcp_servers[0]: expected one of `command` (a program to start), `url` (a server to reach) or `source` (one the host provisions)"
            ),
            format!(
                "{FILE}:9:7: spec.mcp_servers[1]: both `command` and `url` are given; keep one of `command`, `url` or `source`"
            ),
            format!(
                "{FILE}:10:37: spec.mcp_servers[2]: both `command` and `url` are given; keep one of `command`, `url` or `source`"
            ),
        ]
    );
    assert!(config.mcp_servers.is_empty());
}

#[test]
fn a_server_the_host_provisions_is_checked_then_left_out_with_a_warning() {
    let (config, cx) = servers(
        "- name: box\n  source: docker\n  scope: run\n  source_args: {image: mcp/fs, any: [1, 2]}\n- {name: noscope, source: docker}\n- {name: badscope, source: docker, scope: forever, source_args: [x]}\n- {name: mixed, source: docker, scope: session, args: [a], headers: {A: b}}\n",
    );
    let warning = "warning: spec.mcp_servers[{i}].source: the server `docker` is provisioned by the host; promptexec does not start it, so its tools are not available";
    let warned = |line: u32, col: u32, i: usize| {
        format!(
            "{FILE}:{line}:{col}: {}",
            warning.replace("{i}", &i.to_string())
        )
    };
    assert_eq!(
        lines(&cx),
        [
            warned(6, 7, 0),
            format!(
                "{FILE}:9:7: spec.mcp_servers[1]: missing key `scope` (`run`, `scenario` or `session`), which `source` needs"
            ),
            warned(9, 23, 1),
            format!(
                "{FILE}:10:47: spec.mcp_servers[2].scope: `forever` is not one of `run`, `scenario` or `session`"
            ),
            format!(
                "{FILE}:10:69: spec.mcp_servers[2].source_args: expected a mapping, found a list"
            ),
            warned(10, 24, 2),
            format!(
                "{FILE}:11:53: spec.mcp_servers[3].args: only for a server started with `command` (this one has `source`)"
            ),
            format!(
                "{FILE}:11:64: spec.mcp_servers[3].headers: only for a server reached by `url` (this one has `source`)"
            ),
            warned(11, 21, 3),
        ]
    );
    assert!(config.mcp_servers.is_empty());
}

#[test]
fn keys_of_another_kind_of_server_are_errors() {
    let (_, cx) = servers(
        "- name: local\n  command: a\n  headers: {X-A: b}\n  scope: run\n- name: remote\n  url: https://x.org/mcp\n  transport: streamable_http\n  args: [a]\n  env: {A: b}\n  working_dir: .\n  source_args: {}\n",
    );
    assert_eq!(
        lines(&cx),
        [
            format!(
                "{FILE}:7:7: spec.mcp_servers[0].headers: only for a server reached by `url` (this one has `command`)"
            ),
            format!(
                "{FILE}:8:7: spec.mcp_servers[0].scope: only for a server the host provisions (`source`) (this one has `command`)"
            ),
            format!(
                "{FILE}:12:7: spec.mcp_servers[1].args: only for a server started with `command` (this one has `url`)"
            ),
            format!(
                "{FILE}:13:7: spec.mcp_servers[1].env: only for a server started with `command` (this one has `url`)"
            ),
            format!(
                "{FILE}:14:7: spec.mcp_servers[1].working_dir: only for a server started with `command` (this one has `url`)"
            ),
            format!(
                "{FILE}:15:7: spec.mcp_servers[1].source_args: only for a server the host provisions (`source`) (this one has `url`)"
            ),
        ]
    );
}

#[test]
fn the_transport_must_fit_the_server_and_sse_is_refused() {
    let (config, cx) = servers(
        "- {name: a, url: \"https://x.org/sse\", transport: sse}\n- {name: b, url: \"https://x.org\", transport: stdio}\n- {name: c, command: a, transport: streamable_http}\n- {name: d, command: a, transport: sse}\n- {name: e, url: \"https://x.org\", transport: websocket}\n- {name: f, url: \"https://x.org/mcp\"}\n- {name: g, url: \"https://x.org/mcp\", transport: \"\"}\n- {name: h, command: a, transport: websocket}\n",
    );
    assert_eq!(
        lines(&cx),
        [
            format!(
                "{FILE}:5:54: spec.mcp_servers[0].transport: `sse` is not supported: promptexec's MCP client (the official Rust SDK) has no SSE transport; if the server also speaks streamable HTTP, write `transport: streamable_http`"
            ),
            format!(
                "{FILE}:6:50: spec.mcp_servers[1].transport: `stdio` is for a server started with `command`; one reached by `url` speaks `streamable_http`"
            ),
            format!(
                "{FILE}:7:40: spec.mcp_servers[2].transport: `streamable_http` is for a server reached by `url`; one started with `command` speaks `stdio`"
            ),
            format!(
                "{FILE}:8:40: spec.mcp_servers[3].transport: `sse` is for a server reached by `url`; one started with `command` speaks `stdio`"
            ),
            format!(
                "{FILE}:9:50: spec.mcp_servers[4].transport: `websocket` is not one of `stdio`, `sse` or `streamable_http`"
            ),
            format!(
                "{FILE}:10:17: warning: spec.mcp_servers[5].url: without `transport`, PromptKit reaches this server over SSE; promptexec speaks streamable HTTP to it (write `transport: streamable_http` to say so)"
            ),
            format!(
                "{FILE}:11:17: warning: spec.mcp_servers[6].url: without `transport`, PromptKit reaches this server over SSE; promptexec speaks streamable HTTP to it (write `transport: streamable_http` to say so)"
            ),
            format!(
                "{FILE}:12:40: spec.mcp_servers[7].transport: `websocket` is not one of `stdio`, `sse` or `streamable_http`"
            ),
        ]
    );
    let names: Vec<&str> = config.mcp_servers.keys().map(String::as_str).collect();
    assert_eq!(names, ["f", "g"], "a bare url is still reached");
}

#[test]
fn a_url_is_http_or_https_without_a_user_or_password() {
    let (config, cx) = servers(
        "- {name: a, url: \"ftp://x.org\", transport: streamable_http}\n- {name: b, url: \"https://me:tok-3@x.org/mcp\", transport: streamable_http}\n- {name: c, url: \"\", transport: streamable_http}\n",
    );
    assert_eq!(
        lines(&cx),
        [
            format!(
                "{FILE}:5:22: spec.mcp_servers[0].url: expected an `http://` or `https://` URL, found `ftp://x.org`"
            ),
            format!(
                "{FILE}:6:22: spec.mcp_servers[1].url: a user or password in the URL is not accepted (URLs are shown in logs and errors); give the key with `headers`"
            ),
            format!(
                "{FILE}:7:22: spec.mcp_servers[2].url: expected an `http://` or `https://` URL, found ``"
            ),
        ]
    );
    assert!(config.mcp_servers.is_empty());
}

#[test]
fn env_names_must_be_valid_and_values_strings_never_shown() {
    let (config, cx) = servers(
        "- name: a\n  command: x\n  env:\n    1BAD: tok-4\n    PORT: 8080\n    OK: tok-5\n- {name: b, command: x, env: [A]}\n",
    );
    assert_eq!(
        lines(&cx),
        [
            format!(
                "{FILE}:8:9: spec.mcp_servers[0].env: `1BAD` is not a valid environment variable name (letters, digits and `_`, not starting with a digit)"
            ),
            format!(
                "{FILE}:9:15: spec.mcp_servers[0].env.PORT: expected a string, found an integer"
            ),
            format!("{FILE}:11:34: spec.mcp_servers[1].env: expected a mapping, found a list"),
        ]
    );
    let McpEndpoint::Stdio { env, .. } = &config.mcp_servers["a"].endpoint else {
        panic!("a stdio endpoint");
    };
    let env: Vec<_> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(env, [("OK", "tok-5")], "only the good entries are kept");
    assert!(!config.mcp_servers.contains_key("b"));
}

#[test]
fn header_values_are_strings_never_shown() {
    let (_, cx) = servers(
        "- name: a\n  url: https://x.org/mcp\n  transport: streamable_http\n  headers:\n    Authorization: 12345\n    \"bad name\": tok-6\n",
    );
    assert_eq!(
        lines(&cx),
        [
            format!(
                "{FILE}:9:24: spec.mcp_servers[0].headers.Authorization: expected a string, found an integer"
            ),
            format!(
                "{FILE}:10:9: spec.mcp_servers[0].headers: `bad name` is not a valid header name (letters, digits and `!#$%&'*+-.^_`|~`)"
            ),
        ]
    );
}

#[test]
fn secrets_under_env_and_headers_are_masked_in_snippets() {
    let (_, cx) = servers(
        "- name: a\n  command: x\n  env:\n    TOKEN: 42\n    OTHER: tok-7\n- name: b\n  url: https://x.org/mcp\n  transport: streamable_http\n  headers: {X-Key: tok-8, X-Num: 9}\n",
    );
    let shown: String = cx
        .diagnostics
        .iter()
        .map(|d| {
            let pos = d.pos.expect("a position");
            format!("{d}\n{}", snippet(&cx.text, pos, Severity::Error, false))
        })
        .collect();
    assert_eq!(
        shown,
        format!(
            "{FILE}:8:16: spec.mcp_servers[0].env.TOKEN: expected a string, found an integer\n  |\n8 |         TOKEN: **\n  |                ^^\n{FILE}:13:38: spec.mcp_servers[1].headers.X-Num: expected a string, found an integer\n   |\n13 |       headers: {{X-Key: *****, X-Num: *}}\n   |                                      ^\n"
        )
    );
}

#[test]
fn timeouts_are_positive_milliseconds() {
    let (config, cx) = servers(
        "- {name: a, command: x, timeout_ms: 0}\n- {name: b, command: x, timeout_ms: 5s}\n",
    );
    assert_eq!(
        lines(&cx),
        [
            format!(
                "{FILE}:5:41: spec.mcp_servers[0].timeout_ms: expected a positive integer, found 0"
            ),
            format!(
                "{FILE}:6:41: spec.mcp_servers[1].timeout_ms: expected a positive integer, found a string"
            ),
        ]
    );
    assert_eq!(config.mcp_servers["a"].timeout, None);
}

#[test]
fn a_tool_filter_has_two_lists_and_a_pattern_for_another_server_is_a_warning() {
    let (config, cx) = servers(
        "- name: fs\n  command: x\n  tool_filter:\n    allowlist: [\"mcp__other__*\", \"mcp__fs__read\", \"mcp__*\", \"mcp__f?__x\", read]\n    blocklist: [mcp__git__push, 3]\n    denylist: [x]\n- {name: b, command: x, tool_filter: [a]}\n",
    );
    assert_eq!(
        lines(&cx),
        [
            format!(
                "{FILE}:8:21: warning: spec.mcp_servers[0].tool_filter.allowlist: `mcp__other__*` names the server `other`, not `fs`, so it never matches a tool of this one"
            ),
            format!(
                "{FILE}:9:37: spec.mcp_servers[0].tool_filter.blocklist: expected a string, found 3"
            ),
            format!(
                "{FILE}:9:21: warning: spec.mcp_servers[0].tool_filter.blocklist: `mcp__git__push` names the server `git`, not `fs`, so it never matches a tool of this one"
            ),
            format!(
                "{FILE}:10:9: unknown key `denylist` in spec.mcp_servers[0].tool_filter (expected one of `allowlist` or `blocklist`)"
            ),
            format!(
                "{FILE}:11:42: spec.mcp_servers[1].tool_filter: expected a mapping, found a list"
            ),
        ]
    );
    assert_eq!(
        config.mcp_servers["fs"].tool_filter.allowlist,
        [
            "mcp__other__*",
            "mcp__fs__read",
            "mcp__*",
            "mcp__f?__x",
            "read"
        ]
    );
}

#[test]
fn unknown_keys_and_a_list_that_is_not_one_are_errors() {
    let (_, cx) = servers("- {name: a, command: x, enviroment: {A: b}}\n");
    assert_eq!(
        lines(&cx),
        [format!(
            "{FILE}:5:29: unknown key `enviroment` in spec.mcp_servers[0]; did you mean `env`?"
        )]
    );
    let (_, cx) = resolve_text("spec:\n  mcp_servers: {fs: {command: x}}\n");
    assert_eq!(
        lines(&cx),
        [format!(
            "{FILE}:4:16: spec.mcp_servers: expected a list, found a mapping"
        )]
    );
}

#[test]
fn a_missing_command_or_working_dir_is_found_from_the_config_directory() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("server.sh"), "").expect("written");
    let text = "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  mcp_servers:\n    - {name: here, command: ./server.sh}\n    - {name: gone, command: ./gone.sh, working_dir: nowhere}\n";
    let path = dir.path().join("c.yaml");
    let root = crate::doc::parse_yaml(&path, text).expect("valid yaml");
    let mut cx = Checker::new(&path, text);
    let config = super::super::document::resolve(&root, dir.path(), true, &mut cx);
    assert_eq!(
        lines(&cx),
        [
            format!(
                "{}:6:53: spec.mcp_servers[1].working_dir: directory `{}` does not exist",
                path.display(),
                dir.path().join("nowhere").display()
            ),
            format!(
                "{}:6:29: spec.mcp_servers[1].command: `./gone.sh` does not exist (looked for `{}`)",
                path.display(),
                dir.path().join("gone.sh").display()
            ),
        ]
    );
    assert!(config.mcp_servers.contains_key("here"));
}
