//! Text from peers is safe for the terminal: an MCP server whose name, tool names,
//! errors and answers carry escape sequences
//! (tests/fixtures/terminal_text/hostile_names.py) gets them printed escaped
//! (`\u{1b}`) by `tools`, `check` and `run`, while promptexec's own colour stays.

use std::path::Path;

use serde_json::json;

use crate::util::{Outcome, fixtures, mock_config_head, promptexec};

/// A folder with a config binding the hostile server as `t` (with `flags`), a pack
/// offering its tools, and a mock whose first answer calls `mcp__t__echo`.
fn setup(flags: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut args = vec![
        fixtures()
            .join("terminal_text/hostile_names.py")
            .display()
            .to_string(),
    ];
    args.extend(flags.iter().map(|f| f.to_string()));
    let config = format!(
        "{}  mcp_servers:\n    - name: t\n      command: python3\n      args: {}\n",
        mock_config_head("mock.yaml"),
        json!(args),
    );
    let pack = json!({
        "id": "hostile", "name": "Hostile", "version": "1.0.0",
        "prompts": {"desk": {
            "id": "desk", "name": "Desk", "version": "1.0.0",
            "system_template": "Help.", "tools": ["mcp__t__echo"]
        }}
    });
    let mock = "scenarios:
  desk:
    turns:
      1:
        content: Calling.
        tool_calls: [{name: mcp__t__echo, arguments: {text: hi}}]
      2: Done.
";
    let write = |name: &str, text: String| {
        std::fs::write(dir.path().join(name), text).expect("written");
    };
    write("runtimeconfig.yaml", config);
    write("pack.json", pack.to_string());
    write("mock.yaml", mock.to_string());
    dir
}

fn promptexec_in(dir: &Path, args: &[&str]) -> Outcome {
    promptexec()
        .in_dir(dir)
        .args(["-c", "runtimeconfig.yaml"])
        .args(args)
        .run()
}

/// Neither stream holds a raw escape sequence from the server: no ESC at all but
/// promptexec's own colour codes (`ESC[…m` with the codes it uses), no BEL, no
/// 8-bit CSI.
#[track_caller]
fn no_raw_escapes(out: &Outcome) {
    for (name, text) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let mut rest = text.clone();
        for ours in [
            "\x1b[1;31m",
            "\x1b[32m",
            "\x1b[33m",
            "\x1b[2m",
            "\x1b[1m",
            "\x1b[0m",
        ] {
            rest = rest.replace(ours, "");
        }
        assert!(!rest.contains('\x1b'), "a raw ESC on {name}:\n{text:?}");
        assert!(!rest.contains('\x07'), "a raw BEL on {name}:\n{text:?}");
        assert!(!rest.contains('\u{9b}'), "a raw CSI on {name}:\n{text:?}");
    }
}

#[test]
fn tools_prints_a_servers_names_and_errors_escaped() {
    let dir = setup(&[]);
    let out = promptexec_in(dir.path(), &["tools", "--color", "always"]);
    out.expect_code(3);
    no_raw_escapes(&out);
    out.stdout_has("hostile\\u{1b}]0;owned\\u{7}server 1\\u{1b}[2J");
    // The tool with an escape in its name is refused, and the refusal shows it escaped
    // after promptexec's own red `error:`.
    out.stderr_has("\x1b[1;31merror:\x1b[0m MCP server `t` lists tool `red\\u{1b}[31mtool`");

    let failing = setup(&["--fail-list"]);
    let out = promptexec_in(failing.path(), &["tools"]);
    out.expect_code(3);
    no_raw_escapes(&out);
    out.stderr_has("could not list its tools: no tools\\u{1b}]0;owned\\u{7}\\u{1b}[2J today");
}

#[test]
fn check_prints_a_refused_name_escaped() {
    let dir = setup(&[]);
    let out = promptexec_in(dir.path(), &["check", "t", "--color", "always"]);
    out.expect_code(1);
    no_raw_escapes(&out);
    out.stdout_has("tool_schemas failed: tool `red\\u{1b}[31mtool`");
}

#[test]
fn a_tools_answer_is_shown_escaped_in_the_conversation() {
    let dir = setup(&[]);
    let out = promptexec_in(
        dir.path(),
        &["run", "pack.json", "--message", "Go", "--color", "always"],
    );
    // The answer is shown as a JSON string, which escapes C0 itself but not the
    // 8-bit CSI: that is escaped on top.
    out.expect_code(0);
    no_raw_escapes(&out);
    out.stderr_has(r#": "\u001b[31mhi\u001b]0;owned\u0007\u{9b}2J""#);
}

#[test]
fn a_pack_tool_no_model_api_accepts_is_refused_with_its_name_escaped() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tool =
        |name: &str| json!({"name": name, "description": "d", "parameters": {"type": "object"}});
    let pack = json!({
        "id": "p", "name": "P", "version": "1",
        "prompts": {"p": {"id": "p", "name": "P", "version": "1", "system_template": "Hi.",
                          "tools": ["get weather", "e\u{1b}[2Jx"]}},
        "tools": {"get weather": tool("get weather"), "e\u{1b}[2Jx": tool("e\u{1b}[2Jx")}
    });
    let out = promptexec()
        .in_dir(dir.path())
        .file("pack.json", pack.to_string())
        .args(["--color", "never", "validate", "--pack", "pack.json"])
        .run();
    out.expect_code(2);
    no_raw_escapes(&out);
    out.stderr_has("/tools/get weather: a model cannot be offered this tool")
        .stderr_has("its name `e\\u{1b}[2Jx` is not one model APIs accept");
}

#[test]
fn a_tools_stderr_is_logged_escaped() {
    let script = fixtures().join("terminal_text/noisy_stderr.py");
    let out = promptexec()
        .args(["--color", "never", "-v", "invoke-tool", "t", "--exec"])
        .arg(format!("python3 {}", script.display()))
        .run();
    out.expect_code(0);
    no_raw_escapes(&out);
    out.stderr_has("[tool t] warn \\u{1b}[2J\\u{1b}]0;pwned\\u{7} done");
}
