//! `check` and `tools` against real MCP servers, installed at pinned versions by
//! `.ci/run` (tests/fixtures/real_servers/: the npm reference servers filesystem,
//! memory and everything in target/real-servers, mcp-server-time from PyPI in
//! target/real-servers-venv). Each test starts its server from a RuntimeConfig written
//! into a temp dir, and holds `check` to what the user must be able to count on: the
//! data a server serves is left as it was, and a correct server passes.
//!
//! Without the servers a test fails, saying how to install them; outside CI
//! (`CI` unset) `PROMPTEXEC_SKIP_REAL_SERVERS=1` skips them instead.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::channel;
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use serde_json::Value as Json;
use sha2::{Digest, Sha256};

use crate::util::{Outcome, copy_dir, finish, fixtures, promptexec, repo_root};

/// How long the whole `check` of server-everything may take with `--cases 20`.
const EVERYTHING_BOUND: Duration = Duration::from_secs(60);

/// The guard against a hang of any other run: far above what each takes (1-3 s).
const GUARD: Duration = Duration::from_secs(60);

/// An installed server's executable under target/, or `None` when the tests are to
/// be skipped (see the module documentation).
fn installed(relative: &str) -> Option<PathBuf> {
    let path = repo_root().join("target").join(relative);
    if path.is_file() {
        return Some(path);
    }
    let why = format!(
        "{} is missing: `bash .ci/run` installs the real MCP servers pinned in tests/fixtures/real_servers/",
        path.display()
    );
    if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
        panic!("{why}; CI must run these tests");
    }
    if std::env::var("PROMPTEXEC_SKIP_REAL_SERVERS").as_deref() == Ok("1") {
        eprintln!("skipped: {why} (PROMPTEXEC_SKIP_REAL_SERVERS=1)");
        return None;
    }
    panic!("{why}; or set PROMPTEXEC_SKIP_REAL_SERVERS=1 to skip these tests");
}

fn npm_server(bin: &str) -> Option<PathBuf> {
    installed(&format!("real-servers/node_modules/.bin/{bin}"))
}

/// Writes `runtimeconfig.yaml` into `dir`, binding one MCP server the way a user
/// binds it: no timeout of its own.
fn write_config(dir: &Path, name: &str, command: &Path, args: &[&str], env: &[(&str, &str)]) {
    let quoted = |s: &str| Json::from(s).to_string();
    let mut yaml = format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  mcp_servers:\n    - name: {name}\n      command: {}\n",
        quoted(&command.to_string_lossy())
    );
    if !args.is_empty() {
        let args: Vec<String> = args.iter().map(|a| quoted(a)).collect();
        yaml.push_str(&format!("      args: [{}]\n", args.join(", ")));
    }
    if !env.is_empty() {
        let env: Vec<String> = env
            .iter()
            .map(|(k, v)| format!("{k}: {}", quoted(v)))
            .collect();
        yaml.push_str(&format!("      env: {{ {} }}\n", env.join(", ")));
    }
    std::fs::write(dir.join("runtimeconfig.yaml"), yaml).expect("config written");
}

/// `promptexec ARGS` in `dir`, whose runtimeconfig.yaml binds the server; killed,
/// and the test failed, when it has not finished within `limit`.
fn promptexec_in(dir: &Path, args: &[&str], limit: Duration) -> Outcome {
    let child = promptexec()
        .in_dir(dir)
        .args(["-c", "runtimeconfig.yaml"])
        .args(args)
        .spawn();
    let pid = Pid::from_raw(i32::try_from(child.id()).expect("a pid"));
    let (done, finished) = channel();
    let waiter = std::thread::spawn(move || {
        let out = finish(child);
        let _ = done.send(());
        out
    });
    if finished.recv_timeout(limit).is_err() {
        let _ = kill(pid, Signal::SIGKILL);
        // Killed, it has no exit code: the waiter's own check of it fails.
        let _ = waiter.join();
        panic!(
            "`promptexec {}` did not finish within {limit:?}",
            args.join(" ")
        );
    }
    waiter.join().expect("the run was waited for")
}

/// `check --cases 20 --seed 1 --format json` of the one server in `dir`.
fn check(dir: &Path, limit: Duration) -> Outcome {
    let args = ["check", "--cases", "20", "--seed", "1", "--format", "json"];
    promptexec_in(dir, &args, limit)
}

/// What a folder holds: each path under it (relative), `dir/` for a folder, and for a
/// file the SHA-256 of its bytes.
fn tree(root: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, into: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).expect("readable folder") {
            let path = entry.expect("entry").path();
            let name = path
                .strip_prefix(root)
                .expect("under the root")
                .to_string_lossy()
                .into_owned();
            let meta = std::fs::symlink_metadata(&path).expect("metadata");
            if meta.is_dir() {
                into.insert(name, "dir/".into());
                walk(root, &path, into);
            } else if meta.is_symlink() {
                let target = std::fs::read_link(&path).expect("link");
                into.insert(name, format!("link -> {}", target.display()));
            } else {
                let bytes = std::fs::read(&path).expect("readable file");
                into.insert(name, hex::encode(Sha256::digest(&bytes)));
            }
        }
    }
    let mut found = BTreeMap::new();
    walk(root, root, &mut found);
    found
}

/// Fails naming every path added, removed or changed between two [`tree`]s.
#[track_caller]
fn assert_unchanged(
    what: &str,
    before: &BTreeMap<String, String>,
    after: &BTreeMap<String, String>,
) {
    let mut changes = Vec::new();
    for (path, was) in before {
        match after.get(path) {
            None => changes.push(format!("removed {path:?}")),
            Some(now) if now != was => changes.push(format!("changed {path:?}")),
            Some(_) => {}
        }
    }
    let added: Vec<&String> = after.keys().filter(|p| !before.contains_key(*p)).collect();
    if !added.is_empty() {
        let shown: Vec<String> = added.iter().take(10).map(|p| format!("{p:?}")).collect();
        changes.push(format!(
            "{} added, such as {}",
            added.len(),
            shown.join(", ")
        ));
    }
    assert!(
        changes.is_empty(),
        "check changed {what}:\n{}",
        changes.join("\n")
    );
}

/// The probes of the one extension of a check report.
fn probes(report: &Json) -> &[Json] {
    report["extensions"][0]["probes"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_else(|| panic!("one extension with probes: {report:#}"))
}

fn probe<'r>(report: &'r Json, name: &str) -> &'r Json {
    probes(report)
        .iter()
        .find(|p| p["probe"] == name)
        .unwrap_or_else(|| panic!("no probe {name} in {report:#}"))
}

/// The server started and listed its tools, so the run really reached it.
#[track_caller]
fn reached(report: &Json, tools: usize) {
    let init = probe(report, "initialize");
    assert_eq!(init["passed"], true, "{init:#}");
    let listed = format!("listed {tools} tools");
    assert!(
        init["reason"].as_str().is_some_and(|r| r.contains(&listed)),
        "{init:#}"
    );
}

#[test]
fn check_of_the_filesystem_server_leaves_the_served_folder_as_it_was() {
    let Some(command) = npm_server("mcp-server-filesystem") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let served = dir.path().join("served");
    copy_dir(&fixtures().join("real_servers/served"), &served);
    std::fs::create_dir(served.join("empty")).expect("an empty folder");
    let served_arg = served.to_string_lossy().into_owned();
    write_config(dir.path(), "files", &command, &[&served_arg], &[]);
    let before = tree(&served);
    assert_eq!(before.len(), 6, "{before:#?}");

    let out = check(dir.path(), GUARD);

    let report = out.json_report();
    reached(&report, 14);
    assert_unchanged("the served folder", &before, &tree(&served));
}

#[test]
fn check_of_the_memory_server_leaves_its_graph_file_as_it_was() {
    let Some(command) = npm_server("mcp-server-memory") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let graph = dir.path().join("graph");
    std::fs::create_dir(&graph).expect("graph folder");
    // Written by hand, with a final newline the server never writes: any save of
    // the graph, even of the same entities, changes the bytes.
    let memory = graph.join("memory.jsonl");
    std::fs::copy(fixtures().join("real_servers/memory.jsonl"), &memory).expect("graph copied");
    let memory_arg = memory.to_string_lossy().into_owned();
    write_config(
        dir.path(),
        "memory",
        &command,
        &[],
        &[("MEMORY_FILE_PATH", &memory_arg)],
    );
    let before = tree(&graph);

    let out = check(dir.path(), GUARD);

    let report = out.json_report();
    reached(&report, 9);
    assert_unchanged("the memory graph's folder", &before, &tree(&graph));
}

#[test]
fn check_of_the_everything_reference_server_passes_in_bounded_time() {
    let Some(command) = npm_server("mcp-server-everything") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    write_config(dir.path(), "everything", &command, &[], &[]);

    let out = check(dir.path(), EVERYTHING_BOUND);

    out.expect_code(0);
    reached(&out.json_report(), 13);
}

#[test]
fn check_of_the_time_server_passes_and_says_what_it_exercised() {
    let Some(command) = installed("real-servers-venv/bin/mcp-server-time") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    write_config(dir.path(), "time", &command, &[], &[]);

    let out = check(dir.path(), GUARD);

    out.expect_code(0);
    let report = out.json_report();
    reached(&report, 2);
    // Generated time zones are rarely IANA names: when no call answered without an
    // error, the probe must say it exercised nothing rather than pass silently.
    let calls = probe(&report, "calls_each_tool");
    let any_ok = calls["reason"].as_str().is_some_and(|r| r.contains("(ok)"));
    assert!(
        any_ok || calls["warning"] == true,
        "every call answered an error, yet the probe passed without a warning: {calls:#}"
    );
    // Nor may the output contract pass on no result at all.
    let contract = probe(&report, "output_contract");
    let none_held = contract["reason"]
        .as_str()
        .is_some_and(|r| r.starts_with("0 "));
    assert!(
        !none_held || contract["warning"] == true || contract["skipped"] == true,
        "no result was held to the output schema, yet the probe passed without a warning: {contract:#}"
    );
}

#[test]
fn tools_json_shows_annotations_and_resource_templates_of_the_everything_server() {
    let Some(command) = npm_server("mcp-server-everything") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    write_config(dir.path(), "everything", &command, &[], &[]);

    let out = promptexec_in(dir.path(), &["tools", "--format", "json"], GUARD);

    out.expect_code(0);
    let listing = out.json();
    let tool = |name: &str| {
        listing["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .find(|t| t["name"] == format!("mcp__everything__{name}"))
            .unwrap_or_else(|| panic!("no tool {name} in {listing:#}"))
            .clone()
    };
    let echo = tool("echo");
    assert_eq!(echo["title"], "Echo Tool", "{echo:#}");
    assert_eq!(echo["annotations"]["readOnlyHint"], true, "{echo:#}");
    assert_eq!(echo["annotations"]["destructiveHint"], false, "{echo:#}");
    assert_eq!(echo["execution"]["taskSupport"], "forbidden", "{echo:#}");
    let gzip = tool("gzip-file-as-resource");
    assert_eq!(gzip["annotations"]["readOnlyHint"], false, "{gzip:#}");
    assert_eq!(gzip["annotations"]["openWorldHint"], true, "{gzip:#}");
    let research = tool("simulate-research-query");
    assert_eq!(
        research["execution"]["taskSupport"], "required",
        "{research:#}"
    );

    let server = &listing["mcp_servers"][0];
    let templates: Vec<(&str, &str)> = server["resource_templates"]
        .as_array()
        .unwrap_or_else(|| panic!("resource_templates in {server:#}"))
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap_or_default(),
                t["uriTemplate"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        templates,
        [
            (
                "Dynamic Text Resource",
                "demo://resource/dynamic/text/{resourceId}"
            ),
            (
                "Dynamic Blob Resource",
                "demo://resource/dynamic/blob/{resourceId}"
            )
        ]
    );
}
