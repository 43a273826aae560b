//! PicoClaw process hooks carried over key for key: the entry of PicoClaw's hook guide,
//! pasted unchanged into a JSON or YAML RuntimeConfig (only its two paths pointed at
//! ours), runs without `runtime: server` and its hook hears `hook.runtime_event`;
//! `command` as an argv list and `env` as a map of values reach the process; every
//! spelling of "every event" is heard over `hook.runtime_event`, and `hook.event` only
//! when named.
//!
//! Fixtures: `tests/fixtures/picoclaw` (`readme_entry.json`, the guide's entry; the
//! pack, mock script and `lookup.sh` tool for one tool call; `review_log.py`, a hook
//! that answers "go on" and logs every method it receives to `PICOCLAW_HOOK_LOG_FILE`).

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::util::{Outcome, fixtures, mock_config_head, promptexec};

fn picoclaw_dir() -> PathBuf {
    fixtures().join("picoclaw")
}

/// A JSON RuntimeConfig in `dir` with the mock playing `lookup`, the `lookup` tool, and
/// `hooks` (JSON text of the entries) pasted in as they are.
fn config_with_hooks(dir: &Path, hooks: &str) -> PathBuf {
    let fixtures = picoclaw_dir();
    let config = format!(
        r#"{{
  "apiVersion": "promptkit.altairalabs.ai/v1alpha1",
  "kind": "RuntimeConfig",
  "spec": {{
    "providers": [
      {{"id": "mock", "type": "mock", "additional_config": {{"mock_config": "{mock}"}}}}
    ],
    "tools": {{"lookup": {{"exec": {{"command": "{tool}", "timeout_ms": 5000}}}}}},
    "hooks": {{
{hooks}
    }}
  }}
}}
"#,
        mock = fixtures.join("desk.mock.yaml").display(),
        tool = fixtures.join("lookup.sh").display(),
    );
    let path = dir.join("runtime.json");
    std::fs::write(&path, config).expect("config written");
    path
}

fn play(dir: &Path, config: &Path) -> Outcome {
    let pack = picoclaw_dir().join("desk.pack.json");
    promptexec()
        .in_dir(dir)
        .arg("-c")
        .arg(config)
        .arg("run")
        .arg(pack)
        .args(["--scenario", "lookup", "--message", "where is A-7?"])
        .run()
}

/// What the hook logged, one JSON object a message.
fn heard(log: &Path) -> Vec<Json> {
    std::fs::read_to_string(log)
        .unwrap_or_else(|e| panic!("the hook logged to {}: {e}", log.display()))
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

fn methods(entries: &[Json]) -> Vec<&str> {
    entries
        .iter()
        .map(|e| e["method"].as_str().unwrap_or_default())
        .collect()
}

/// `(method, kind)` of each notification.
fn notifications(entries: &[Json]) -> Vec<(&str, &str)> {
    entries
        .iter()
        .filter(|e| e["request"] == false)
        .map(|e| {
            (
                e["method"].as_str().unwrap_or_default(),
                e["kind"].as_str().unwrap_or_default(),
            )
        })
        .collect()
}

#[test]
fn the_hook_guide_entry_pasted_unchanged_runs_and_its_hook_hears_runtime_events() {
    guide_entry_is_heard(config_with_hooks);
}

#[test]
fn the_hook_guide_entry_pasted_into_a_yaml_config_runs_too() {
    guide_entry_is_heard(yaml_config_with_hooks);
}

/// The guide's entry, its placeholder paths pointed at our hook and a log in a temp
/// dir, pasted by `write_config`; the run must pass and the hook hear what it asked for.
fn guide_entry_is_heard(write_config: fn(&Path, &str) -> PathBuf) {
    let temp = tempfile::tempdir().expect("temp dir");
    let log = temp.path().join("review-gate.log");
    let entry = std::fs::read_to_string(picoclaw_dir().join("readme_entry.json"))
        .expect("the guide's entry")
        .replace(
            "/abs/path/to/review_gate.py",
            &picoclaw_dir().join("review_log.py").display().to_string(),
        )
        .replace(
            "/tmp/picoclaw-hook-review-gate.log",
            &log.display().to_string(),
        );
    let config = write_config(temp.path(), &entry);
    let out = play(temp.path(), &config);
    out.expect_code(0);
    out.stderr_lacks("unknown key");
    let entries = heard(&log);
    let methods = methods(&entries);
    assert_eq!(methods.first(), Some(&"hook.hello"), "{methods:?}");
    assert!(
        methods.contains(&"hook.before_tool") && methods.contains(&"hook.approve_tool"),
        "its interceptors ran: {methods:?}"
    );
    assert_eq!(
        notifications(&entries),
        [
            ("hook.runtime_event", "agent.tool.exec_start"),
            ("hook.runtime_event", "agent.tool.exec_end"),
        ]
    );
}

/// The same config in YAML, `hooks` (JSON text, which YAML reads) indented under
/// `spec.hooks`.
fn yaml_config_with_hooks(dir: &Path, hooks: &str) -> PathBuf {
    let fixtures = picoclaw_dir();
    let indented: String = hooks.lines().map(|line| format!("    {line}\n")).collect();
    let config = format!(
        "{head}  tools:\n    lookup:\n      exec:\n        command: {tool}\n        timeout_ms: 5000\n  hooks:\n{indented}",
        head = mock_config_head(fixtures.join("desk.mock.yaml").display()),
        tool = fixtures.join("lookup.sh").display(),
    );
    let path = dir.join("runtime.yaml");
    std::fs::write(&path, config).expect("config written");
    path
}

#[test]
fn an_argv_command_and_env_values_reach_the_hook_and_every_event_spelling_hears_runtime_events() {
    let temp = tempfile::tempdir().expect("temp dir");
    let hook = picoclaw_dir().join("review_log.py").display().to_string();
    let spellings = ["*", "all", ""];
    let mut entries = Vec::new();
    for (i, spelling) in spellings.iter().enumerate() {
        let log = temp.path().join(format!("every{i}.log"));
        entries.push(format!(
            r#"      "every{i}": {{"command": ["python3", "{hook}", "--name", "every{i}"], "observe": ["{spelling}"], "env": {{"PICOCLAW_HOOK_LOG_FILE": "{log}"}}}}"#,
            log = log.display()
        ));
    }
    let classic = temp.path().join("classic.log");
    entries.push(format!(
        r#"      "classic": {{"command": ["python3", "{hook}", "--name", "classic"], "observe": ["tool_exec_start"], "event_method": "hook.event", "env": {{"PICOCLAW_HOOK_LOG_FILE": "{log}"}}}}"#,
        log = classic.display()
    ));
    let config = config_with_hooks(temp.path(), &entries.join(",\n"));
    // The value is set by the config alone: the host has none to pass.
    let out = play(temp.path(), &config);
    out.expect_code(0);
    for (i, spelling) in spellings.iter().enumerate() {
        let entries = heard(&temp.path().join(format!("every{i}.log")));
        assert!(
            entries.iter().all(|e| e["hook"] == format!("every{i}")),
            "the argv list's arguments reached the hook"
        );
        let events = notifications(&entries);
        let kinds: Vec<&str> = events.iter().map(|(_, kind)| *kind).collect();
        assert!(
            events
                .iter()
                .all(|(method, _)| *method == "hook.runtime_event"),
            "{spelling:?}: {events:?}"
        );
        for kind in [
            "agent.turn.start",
            "agent.llm.request",
            "agent.llm.response",
            "agent.tool.exec_start",
            "agent.tool.exec_end",
            "agent.turn.end",
        ] {
            assert!(
                kinds.contains(&kind),
                "{spelling:?} misses {kind}: {kinds:?}"
            );
        }
    }
    assert_eq!(
        notifications(&heard(&classic)),
        [("hook.event", "tool_exec_start")],
        "named, `hook.event` is kept"
    );
}

#[test]
fn an_entry_that_observes_and_intercepts_nothing_is_told_so_not_about_transport() {
    let temp = tempfile::tempdir().expect("temp dir");
    let config = config_with_hooks(
        temp.path(),
        r#"      "idle": {"transport": "stdio", "command": ["python3", "idle.py"], "observe": []}"#,
    );
    let out = play(temp.path(), &config);
    out.expect_code(2);
    out.stderr_has(
        "spec.hooks.idle: a `runtime: server` hook needs `intercept`, `observe` or both",
    );
    out.stderr_lacks("unknown key");
}
