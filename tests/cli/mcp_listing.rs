//! MCP servers that list their tools badly or die while listing, messages over the size
//! limit, extension test cases calling MCP tools, and what `validate` checks of a server;
//! what `tools` shows of a listing (titles, annotations, output schemas, resource
//! templates) and of a server that dies at start (its stderr).

use serde_json::json;

use crate::mcp::{Setup, script, tool_calls};
use crate::util::{fixtures, promptexec};

/// The server that lists its tools badly (tests/fixtures/mcp/odd_listing.py).
fn odd_server(flags: &[&str], tools: &[&str], mock_yaml: &str) -> Setup {
    let mut args = vec![fixtures().join("mcp/odd_listing.py").display().to_string()];
    args.extend(flags.iter().map(|f| f.to_string()));
    let dir = tempfile::tempdir().expect("temp dir");
    Setup::serving(dir, "python3", &args, "", "", tools, mock_yaml)
}

#[test]
fn tools_a_server_lists_unusably_fail_the_server_and_the_good_ones_still_play() {
    let setup = odd_server(
        &[],
        &["mcp__t__*"],
        &script(&[("mcp__t__echo", json!({"text": "still here"}))]),
    );
    let out = setup.run(&["Go"]);
    out.expect_code(3);
    let report = out.json_report();
    assert_eq!(
        tool_calls(&report),
        [("mcp__t__echo".into(), "ok".into(), "\"still here\"".into())]
    );
    let reasons: Vec<String> = report["extension_failures"]
        .as_array()
        .expect("failures")
        .iter()
        .map(|f| {
            assert_eq!(f["kind"], "mcp_server", "{f:#}");
            f["reason"].as_str().unwrap_or_default().to_string()
        })
        .collect();
    assert_eq!(reasons.len(), 3, "{reasons:#?}");
    assert!(
        reasons[0].starts_with("lists tool `get weather.now`, which cannot be offered: its name"),
        "{reasons:#?}"
    );
    assert_eq!(
        reasons[1],
        "lists tool `echo`, which cannot be offered: it is listed twice; the first is used"
    );
    assert!(
        reasons[2].starts_with(
            "lists tool `bad`, which cannot be offered: its input schema is not valid JSON Schema"
        ),
        "{reasons:#?}"
    );
    // The model was offered the good tool once.
    let offered = report["messages"].to_string();
    assert!(!offered.contains("weather.now\\\""), "{offered}");

    let listed = setup.promptexec(&["tools", "--format", "json"]);
    listed.expect_code(3);
    listed.stderr_has("error: MCP server `t` lists tool `bad`, which cannot be offered");
    let listing = listed.json();
    assert_eq!(listing["mcp_servers"][0]["tools"], json!(["mcp__t__echo"]));
    assert_eq!(
        listing["mcp_servers"][0]["rejected"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );

    let bad = setup.promptexec(&["invoke-tool", "mcp__t__bad", "--arg", "x=1"]);
    bad.expect_code(3);
    bad.stderr_has("MCP server `t` lists it in a way it cannot be called: its input schema is not valid JSON Schema");
}

#[test]
fn a_server_that_dies_while_listing_its_tools_says_how_it_ended() {
    let setup = odd_server(&["--crash-on-list"], &["mcp__t__*"], &script(&[]));
    let out = setup.run(&["Go"]);
    out.expect_code(3);
    out.stderr_has("MCP server `t` could not list its tools: it exited with status 11");
    let failure = &out.json_report()["extension_failures"][0];
    assert_eq!(
        failure["stderr_tail"], "listing is too much\n",
        "{failure:#}"
    );
}

#[test]
fn tools_shows_each_tools_annotations_and_the_servers_resource_templates() {
    let setup = odd_server(&["--annotated"], &["mcp__t__*"], &script(&[]));
    let listed = setup.promptexec(&["tools", "--format", "json"]);
    listed.expect_code(0);
    let listing = listed.json();
    let tool = |name: &str| {
        listing["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {listing:#}"))
    };
    let read = tool("mcp__t__read_order");
    assert_eq!(read["title"], "Read an order");
    assert_eq!(
        read["annotations"],
        json!({"readOnlyHint": true, "openWorldHint": false})
    );
    assert_eq!(
        read["output_schema"],
        json!({"type": "object", "properties": {"status": {"type": "string"}}})
    );
    assert_eq!(
        tool("mcp__t__delete_order")["annotations"],
        json!({"destructiveHint": true, "idempotentHint": true})
    );
    assert_eq!(
        tool("mcp__t__export")["execution"],
        json!({"taskSupport": "optional"})
    );
    let note = tool("mcp__t__note");
    for absent in ["title", "annotations", "output_schema", "execution"] {
        assert!(note.get(absent).is_none(), "{absent}: {note:#}");
    }
    let server = &listing["mcp_servers"][0];
    assert_eq!(
        server["resource_templates"],
        json!([{"uriTemplate": "orders://{id}", "name": "order", "title": "One order",
                "mimeType": "application/json"}])
    );
    assert_eq!(server["resources"][0]["uri"], "orders://index");

    let human = setup.promptexec(&["tools"]);
    human.expect_code(0);
    let row = |name: &str| {
        human
            .stdout
            .lines()
            .find(|line| line.contains(name))
            .unwrap_or_else(|| panic!("no row for {name}:\n{}", human.stdout))
            .to_string()
    };
    let rows = [
        ("mcp__t__read_order", "read-only, output schema"),
        (
            "mcp__t__delete_order",
            "(writes), destructive, idempotent, (open-world)",
        ),
        ("mcp__t__note", "(writes), (destructive), (open-world)"),
        ("mcp__t__export", "writes, open-world, tasks: optional"),
    ];
    for (name, hints) in rows {
        let row = row(name);
        assert!(row.contains(&format!(" {hints} ")), "{name}: {row}");
    }
    assert!(row("mcp__t__read_order").contains(" Read an order "));
    human
        .stdout_has("(hint): not stated by the server; MCP's default assumes it\n")
        .stdout_has("  resources: orders://index\n  resource templates: orders://{id}\n");
}

#[test]
fn a_server_with_resources_that_does_not_know_templates_lists_none() {
    let setup = odd_server(
        &["--annotated", "--no-templates"],
        &["mcp__t__*"],
        &script(&[]),
    );
    let listed = setup.promptexec(&["tools", "--format", "json"]);
    listed.expect_code(0);
    let server = &listed.json()["mcp_servers"][0];
    assert_eq!(server["resource_templates"], json!([]));
    assert_eq!(server["resources"][0]["uri"], "orders://index");
}

#[test]
fn a_server_that_dies_at_start_shows_its_stderr_in_tools() {
    let setup = odd_server(&["--die-at-start"], &["mcp__t__*"], &script(&[]));
    let human = setup.promptexec(&["tools"]);
    human.expect_code(3);
    human
        .stdout_has("  its stderr ended with:\n    reading orders.toml\n    fatal: no API key in ORDERS_KEY\n")
        .stderr_has("(stderr: fatal: no API key in ORDERS_KEY)");
    let listed = setup.promptexec(&["tools", "--format", "json"]);
    listed.expect_code(3);
    assert_eq!(
        listed.json()["mcp_servers"][0]["stderr_tail"],
        "reading orders.toml\nfatal: no API key in ORDERS_KEY\n"
    );
}

#[test]
fn a_message_over_the_size_limit_fails_the_call_at_once() {
    let setup = odd_server(&[], &["mcp__t__*"], &script(&[]));
    let out = setup.promptexec(&["invoke-tool", "mcp__t__echo", "--arg", "text=HUGE"]);
    out.expect_code(3);
    out.stderr_has("MCP server `t` wrote a message of more than");
    out.stderr_has("over the 16777216-byte limit; the connection was closed");
    assert!(
        out.elapsed < std::time::Duration::from_secs(10),
        "took {:?}",
        out.elapsed
    );
}

#[test]
fn extension_test_cases_call_mcp_tools_checked_against_the_servers_schema() {
    let setup = Setup::new(&[], "", "", &["mcp__t__*"], &script(&[]));
    let cases = r#"cases:
  - name: add sums
    tool: mcp__t__add
    args: {a: 2, b: 3}
    expect:
      result: {sum: 5}
  - name: fail is a tool error
    tool: mcp__t__fail
    args: {}
    expect:
      status: error
      matches: asked to fail
  - name: a string breaks the schema
    tool: mcp__t__add
    args: {a: two, b: 3}
    expect:
      status: invalid_args
      matches: /a
"#;
    std::fs::write(setup.path().join("mcp.cases.yaml"), cases).expect("cases");
    let out = setup.promptexec(&["test", "mcp.cases.yaml"]);
    out.expect_code(0);
    assert_eq!(
        setup.calls(),
        ["add", "fail"],
        "the invalid call was never sent"
    );
    let starts = setup.starts();
    assert_eq!(starts, 1, "one server for the file's cases");
    setup.nothing_left();

    std::fs::write(
        setup.path().join("bad.cases.yaml"),
        "cases:\n  - name: nowhere\n    tool: mcp__nosuch__echo\n    args: {}\n    expect: {status: ok}\n",
    )
    .expect("cases");
    let bad = setup.promptexec(&["test", "bad.cases.yaml"]);
    bad.expect_code(2);
    bad.stderr_has("bad.cases.yaml:3:11: the config has no MCP server `nosuch` (it has `t`)");
}

#[test]
fn validate_checks_a_servers_command_and_what_no_binding_or_server_provides() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  mcp_servers:\n    - name: t\n      command: no-such-mcp-server-here\n";
    let pack = r#"{"id": "v", "name": "v", "version": "1.0.0",
 "prompts": {"desk": {"id": "desk", "name": "d", "version": "1.0.0", "system_template": "hi",
   "tools": ["mcp__t__*", "mcp__nosuch__*"]}},
 "tools": {"orphan": {"name": "orphan", "description": "nothing binds it", "parameters": {"type": "object"}}}}"#;
    std::fs::write(dir.path().join("v.yaml"), config).expect("config");
    std::fs::write(dir.path().join("v.pack.json"), pack).expect("pack");
    let out = promptexec()
        .in_dir(dir.path())
        .args(["validate", "-c", "v.yaml", "--pack", "v.pack.json"])
        .run();
    out.expect_code(2);
    out.stderr_has(
        "v.yaml:6:16: spec.mcp_servers[t].command: `no-such-mcp-server-here` is not found in PATH",
    );
    out.stderr_has("v.pack.json:3:27: warning: `mcp__nosuch__*` names no MCP server of v.yaml; calls to it cannot run");
    out.stderr_has("v.pack.json:4:12: warning: tool `orphan` is defined here but neither a binding in v.yaml nor an MCP server provides it");
    out.stderr_lacks("`mcp__t__*` names no MCP server");
}
