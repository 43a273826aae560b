//! MCP servers as tools, end to end through the binary: the rmcp test server
//! (tests/fixtures/mcp/test_server.rs) bound in a config and played in `run`, listed by
//! `tools`, called ad hoc by `invoke-tool --server`; and the bundled Python server.
//!
//! Every test server logs its starts, its calls and any grandchild to a file, so a test
//! knows which requests arrived and can check that no process outlived promptexec.

use std::path::Path;

use serde_json::{Value as Json, json};

use crate::mcp_servers::test_server_path;
use crate::util::{Invocation, Outcome, gone, mock_config_head, promptexec};

/// A pack with one prompt offering `tools` (`mcp__…` entries and globs).
pub(crate) fn pack(tools: &[&str]) -> String {
    json!({
        "id": "mcp-pack",
        "name": "MCP",
        "version": "1.0.0",
        "prompts": {"desk": {
            "id": "desk", "name": "Desk", "version": "1.0.0",
            "system_template": "You help at the desk.",
            "tools": tools,
            "tool_policy": {"max_rounds": 4}
        }}
    })
    .to_string()
}

/// A folder holding a config that binds the test server as `t` (`server_yaml` adds
/// keys to its entry, `more_spec` adds sections to `spec`), a pack, and the mock's
/// script `mock_yaml`.
pub(crate) struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    pub(crate) fn new(
        server_flags: &[&str],
        server_yaml: &str,
        more_spec: &str,
        tools: &[&str],
        mock_yaml: &str,
    ) -> Setup {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = dir.path().join("server.log");
        let mut args = vec!["--log".to_string(), log.display().to_string()];
        args.extend(server_flags.iter().map(|f| f.to_string()));
        let command = test_server_path().display().to_string();
        Setup::serving(
            dir,
            &command,
            &args,
            server_yaml,
            more_spec,
            tools,
            mock_yaml,
        )
    }

    /// The same with another server: `command` and `args`.
    pub(crate) fn serving(
        dir: tempfile::TempDir,
        command: &str,
        args: &[String],
        server_yaml: &str,
        more_spec: &str,
        tools: &[&str],
        mock_yaml: &str,
    ) -> Setup {
        let config = format!(
            "{}  mcp_servers:\n    - name: t\n      command: {command}\n      args: {}\n{server_yaml}{more_spec}",
            mock_config_head("mock.yaml"),
            json!(args),
        );
        std::fs::write(dir.path().join("runtimeconfig.yaml"), config).expect("config");
        std::fs::write(dir.path().join("pack.json"), pack(tools)).expect("pack");
        std::fs::write(dir.path().join("mock.yaml"), mock_yaml).expect("mock script");
        Setup { dir }
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `run` of the pack with these messages, its JSON report on stdout.
    #[track_caller]
    pub(crate) fn run(&self, messages: &[&str]) -> Outcome {
        let mut args = vec![
            "-c",
            "runtimeconfig.yaml",
            "run",
            "pack.json",
            "--format",
            "json",
        ];
        for message in messages {
            args.extend(["--message", message]);
        }
        promptexec().in_dir(self.path()).args(&args).run()
    }

    /// promptexec with this folder's config and `args`, run to its end.
    #[track_caller]
    pub(crate) fn promptexec(&self, args: &[&str]) -> Outcome {
        promptexec()
            .in_dir(self.path())
            .args(["-c", "runtimeconfig.yaml"])
            .args(args)
            .run()
    }

    /// `run` of the pack with the message "Go", to add arguments to.
    pub(crate) fn go(&self) -> Invocation {
        promptexec().in_dir(self.path()).args([
            "-c",
            "runtimeconfig.yaml",
            "run",
            "pack.json",
            "--message",
            "Go",
        ])
    }

    /// What the server logged, one line per start, call and grandchild.
    pub(crate) fn log(&self) -> Vec<String> {
        std::fs::read_to_string(self.path().join("server.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// How many times the server started.
    pub(crate) fn starts(&self) -> usize {
        self.log()
            .iter()
            .filter(|l| l.starts_with("started"))
            .count()
    }

    pub(crate) fn calls(&self) -> Vec<String> {
        self.log()
            .iter()
            .filter_map(|l| l.strip_prefix("call ").map(str::to_string))
            .collect()
    }

    /// Every process the server logged (itself, each restart, any grandchild) is gone.
    #[track_caller]
    pub(crate) fn nothing_left(&self) {
        let pids: Vec<i32> = self
            .log()
            .iter()
            .filter_map(|l| {
                l.split_once(' ')
                    .filter(|(k, _)| *k == "started" || *k == "grandchild")
            })
            .map(|(_, pid)| pid.parse().expect("a pid"))
            .collect();
        assert!(!pids.is_empty(), "the server logged no start");
        for pid in pids {
            assert!(gone(pid), "process {pid} outlived promptexec");
        }
    }
}

/// A mock script whose first model call makes `calls` (`(tool, args)`), then answers.
pub(crate) fn script(calls: &[(&str, Json)]) -> String {
    let calls: Vec<Json> = calls
        .iter()
        .map(|(name, args)| json!({"name": name, "arguments": args}))
        .collect();
    let script = json!({
        "defaultResponse": "Done.",
        "scenarios": {"desk": {"turns": {
            "1": {"content": "Let me call it.", "tool_calls": calls},
            "2": "That was it."
        }}}
    });
    serde_json::to_string(&script).expect("JSON is YAML")
}

/// The names of the tools a `tools --format json` listing gives, in order.
pub fn tool_names(listing: &Json) -> Vec<&str> {
    listing["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default())
        .collect()
}

/// Each `tool_call` event of a run's JSON report: name, status, content.
pub fn tool_calls(report: &Json) -> Vec<(String, String, String)> {
    report["tool_calls"]
        .as_array()
        .expect("tool_calls")
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap_or_default().to_string(),
                c["status"].as_str().unwrap_or_default().to_string(),
                c["content"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_conversation_calls_mcp_tools_offered_by_a_glob_and_the_model_sees_their_schemas() {
    let setup = Setup::new(
        &["--grandchild"],
        "",
        "",
        &[
            "mcp__t__*",
            "mcp__t__echo",
            "mcp__t__zzz*",
            "mcp__nosuch__*",
        ],
        &script(&[
            ("mcp__t__echo", json!({"text": "hi"})),
            ("mcp__t__add", json!({"a": 2, "b": 3})),
            ("mcp__t__fail", json!({})),
        ]),
    );
    let out = setup.run(&["Go"]);
    out.expect_code(0);
    for entry in ["mcp__t__zzz*", "mcp__nosuch__*"] {
        out.stderr_has(&format!(
            "prompt `desk` offers `{entry}`, which matches no tool of its MCP servers"
        ));
    }
    let report = out.json_report();
    assert_eq!(
        tool_calls(&report),
        [
            ("mcp__t__echo".into(), "ok".into(), "\"hi\"".into()),
            ("mcp__t__add".into(), "ok".into(), r#"{"sum":5}"#.into()),
            (
                "mcp__t__fail".into(),
                "error".into(),
                "fail was asked to fail".into()
            ),
        ]
    );
    assert_eq!(setup.calls(), ["echo", "add", "fail"]);

    // A recording keeps the names of the tools the model was offered: each once.
    setup
        .go()
        .args(["--record", "session.json"])
        .run()
        .expect_code(0);
    let recording: Json = serde_json::from_str(
        &std::fs::read_to_string(setup.path().join("session.json")).expect("recording"),
    )
    .expect("JSON");
    let offered = &recording["sessions"][0]["exchanges"][0]["match"]["tools"];
    let names: Vec<&str> = offered
        .as_array()
        .unwrap_or_else(|| panic!("tools offered: {recording:#}"))
        .iter()
        .map(|t| t.as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        names,
        [
            "mcp__t__add",
            "mcp__t__crash",
            "mcp__t__echo",
            "mcp__t__fail",
            "mcp__t__shout",
            "mcp__t__slow"
        ]
    );
    assert_eq!(setup.starts(), 2, "one server for every call of a run");
    setup.nothing_left();
}

#[test]
fn arguments_that_break_the_servers_schema_are_refused_and_never_sent() {
    let setup = Setup::new(
        &[],
        "",
        "",
        &["mcp__t__add"],
        &script(&[("mcp__t__add", json!({"a": "two", "b": 3}))]),
    );
    let out = setup.run(&["Go"]);
    out.expect_code(0);
    let calls = tool_calls(&out.json_report());
    assert_eq!(calls.len(), 1);
    assert_eq!(
        (calls[0].0.as_str(), calls[0].1.as_str()),
        ("mcp__t__add", "error")
    );
    assert!(
        calls[0].2.starts_with("invalid arguments: /a:"),
        "{calls:?}"
    );
    assert_eq!(
        setup.calls(),
        Vec::<String>::new(),
        "no tools/call reached the server"
    );
    setup.nothing_left();
}

#[test]
fn a_tool_hook_denies_an_mcp_call_before_it_reaches_the_server() {
    let hook = r#"import json, sys
request = json.load(sys.stdin)["request"]
if request["name"] == "mcp__t__shout":
    json.dump({"allow": False, "reason": "no shouting"}, sys.stdout)
else:
    json.dump({"allow": True}, sys.stdout)
"#;
    let hooks = "  hooks:\n    quiet:\n      command: python3\n      args: [./quiet.py]\n      hook: tool\n      phases: [before_execution]\n      mode: filter\n";
    let setup = Setup::new(
        &[],
        "",
        hooks,
        &["mcp__t__shout", "mcp__t__echo"],
        &script(&[
            ("mcp__t__shout", json!({"text": "LOUD"})),
            ("mcp__t__echo", json!({"text": "soft"})),
        ]),
    );
    std::fs::write(setup.path().join("quiet.py"), hook).expect("hook");
    let out = setup.run(&["Go"]);
    out.expect_code(0);
    let calls = tool_calls(&out.json_report());
    assert_eq!(calls[0].1, "blocked", "{calls:?}");
    assert_eq!(calls[0].2, "blocked by hook `quiet`: no shouting");
    assert_eq!(calls[1].1, "ok", "{calls:?}");
    assert_eq!(
        setup.calls(),
        ["echo"],
        "the denied call never reached the server"
    );
    setup.nothing_left();
}

#[test]
fn a_crash_mid_call_fails_that_call_shows_stderr_and_the_next_call_restarts_the_server() {
    let mock = json!({
        "defaultResponse": "Done.",
        "scenarios": {"desk": {"turns": {
            "1": {"content": "", "tool_calls": [{"name": "mcp__t__crash", "arguments": {}}]},
            "2": "It broke.",
            "3": {"content": "", "tool_calls": [{"name": "mcp__t__echo", "arguments": {"text": "back"}}]},
            "4": "It is back."
        }}}
    });
    let setup = Setup::new(
        &["--stderr", "booting test server"],
        "",
        "",
        &["mcp__t__*"],
        &mock.to_string(),
    );
    let out = setup.run(&["Crash it", "Try again"]);
    out.expect_code(3);
    let report = out.json_report();
    let calls = tool_calls(&report);
    assert_eq!(calls[0].0, "mcp__t__crash");
    assert_eq!(calls[0].1, "failed", "{calls:?}");
    assert!(
        calls[0]
            .2
            .contains("MCP server `t` exited with status 7 while the call was in flight"),
        "{calls:?}"
    );
    assert_eq!(
        calls[1],
        ("mcp__t__echo".into(), "ok".into(), "\"back\"".into())
    );
    let failure = report["extension_failures"]
        .as_array()
        .and_then(|f| f.first())
        .unwrap_or_else(|| panic!("an extension failure: {report:#}"));
    assert!(
        failure["stderr_tail"]
            .as_str()
            .unwrap_or_default()
            .contains("crashing on purpose"),
        "{failure:#}"
    );
    let starts = setup.starts();
    assert_eq!(
        starts,
        2,
        "the crash, then a fresh server: {:?}",
        setup.log()
    );
    setup.nothing_left();

    // At -v the server's stderr is forwarded line by line under its name.
    let verbose = setup.promptexec(&["-v", "invoke-tool", "mcp__t__echo", "--arg", "text=x"]);
    verbose.expect_code(0);
    verbose.stderr_has("[mcp t] booting test server");
    setup.nothing_left();
}

#[test]
fn a_server_that_never_answers_initialize_names_itself_and_exits_3() {
    let setup = Setup::new(
        &["--hang-initialize"],
        "      timeout_ms: 500\n",
        "",
        &["mcp__t__*"],
        &script(&[]),
    );
    let out = setup.run(&["Go"]);
    out.expect_code(3);
    out.stderr_has("MCP server `t` did not answer `initialize` within 500 ms");
    let failure = &out.json_report()["extension_failures"][0];
    assert_eq!(failure["kind"], "mcp_server", "{failure:#}");
    assert_eq!(failure["name"], "t", "{failure:#}");
    assert_eq!(
        failure["reason"],
        "did not answer `initialize` within 500 ms"
    );
    setup.nothing_left();

    let invoked = setup.promptexec(&["invoke-tool", "mcp__t__echo", "--arg", "text=hi"]);
    invoked.expect_code(3);
    invoked.stderr_has("MCP server `t` did not answer `initialize` within 500 ms");
    setup.nothing_left();
}

#[test]
fn tool_filter_globs_decide_which_tools_join_and_tools_lists_them_with_schemas() {
    let filter = "      tool_filter:\n        allowlist: [\"mcp__t__*\"]\n        blocklist: [crash, \"mcp__t__s*\"]\n";
    let setup = Setup::new(&[], filter, "", &["mcp__t__*"], &script(&[]));
    let out = setup.promptexec(&["tools", "--pack", "pack.json", "--format", "json"]);
    out.expect_code(0);
    let listing = out.json();
    let names = tool_names(&listing);
    // In the order the server lists them.
    assert_eq!(names, ["mcp__t__add", "mcp__t__echo", "mcp__t__fail"]);
    let add = &listing["tools"][0];
    assert_eq!(add["mode"], "mcp");
    assert_eq!(add["source"], "MCP server `t`");
    assert_eq!(add["prompts"], json!(["desk"]));
    assert_eq!(
        add["input_schema"]["required"],
        json!(["a", "b"]),
        "{add:#}"
    );
    assert_eq!(
        listing["mcp_servers"][0]["server_info"],
        json!({"name": "mcp-test-server", "version": "1.0.0"})
    );
    setup.nothing_left();

    // A filtered-out tool is not there to call.
    let blocked = setup.promptexec(&["invoke-tool", "mcp__t__shout", "--arg", "text=x"]);
    blocked.expect_code(2);
    blocked.stderr_has("MCP server `t`: its tool_filter leaves out `shout`");
}
