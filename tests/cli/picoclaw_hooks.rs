//! JSON-RPC hooks as PicoClaw's hook guide writes them: id 0 (or none) marks a
//! notification, which the hook never answers, and `hook.hello` may be answered with
//! the hook's own name or with `{"ok": true}` alone. `check` passes such a hook on
//! every probe, its ids starting at 1, while a server tool is still sent id 0; a run
//! with it numbers its requests from 1 and sends events without an id.
//!
//! Fixtures: `tests/fixtures/picoclaw_hooks` (`review_gate.py`, the hook; `desk.yaml`,
//! a config binding it as `py_review_gate`, and as `bare_gate` with `--bare-hello`;
//! the pack, mock script and tool are `tests/fixtures/picoclaw`'s).

use serde_json::Value as Json;

use crate::util::{fixtures, promptexec};

/// `check NAMES --format json` on the fixture config: every probe of each extension
/// as `(extension, probe, passed, reason)`.
fn checked(names: &[&str]) -> Vec<(String, String, bool, String)> {
    let out = promptexec()
        .in_dir(fixtures().join("picoclaw_hooks"))
        .args(["-c", "desk.yaml", "check", "--format", "json"])
        .args(names)
        .run();
    out.expect_code(0);
    out.json()["extensions"]
        .as_array()
        .expect("extensions")
        .iter()
        .flat_map(|e| {
            e["probes"].as_array().expect("probes").iter().map(|p| {
                (
                    e["name"].as_str().unwrap_or_default().to_string(),
                    p["probe"].as_str().unwrap_or_default().to_string(),
                    p["passed"] == true,
                    p["reason"].as_str().unwrap_or_default().to_string(),
                )
            })
        })
        .collect()
}

fn reason_of<'a>(probes: &'a [(String, String, bool, String)], ext: &str, probe: &str) -> &'a str {
    probes
        .iter()
        .find(|(e, p, _, _)| e == ext && p == probe)
        .map(|(_, _, _, reason)| reason.as_str())
        .unwrap_or_else(|| panic!("no {probe} for {ext}: {probes:#?}"))
}

#[test]
fn check_passes_a_hook_that_skips_id_0_and_says_hello_in_its_own_words() {
    let probes = checked(&["py_review_gate", "bare_gate"]);
    for ext in ["py_review_gate", "bare_gate"] {
        let names: Vec<&str> = probes
            .iter()
            .filter(|(e, _, _, _)| e == ext)
            .map(|(_, p, _, _)| p.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "hello",
                "one_line_per_reply",
                "within_deadline",
                "flushes_replies",
                "echoes_ids",
                "ignores_unknown_fields",
                "notifications",
                "answers_each_phase",
                "exits_on_eof",
                "no_leftover_processes",
            ],
            "{ext}"
        );
    }
    let failed: Vec<_> = probes.iter().filter(|(_, _, passed, _)| !passed).collect();
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(
        reason_of(&probes, "py_review_gate", "hello"),
        "said hello as `review-gate`"
    );
    assert_eq!(reason_of(&probes, "bare_gate", "hello"), "said hello");
    assert_eq!(
        reason_of(&probes, "py_review_gate", "echoes_ids"),
        "5 pipelined requests, every id echoed (1, 2, 3, 4294967296, 9007199254740991)"
    );
}

#[test]
fn a_server_tool_is_still_sent_id_0() {
    let out = promptexec()
        .in_dir(fixtures().join("check"))
        .args([
            "-c",
            "good.yaml",
            "check",
            "good_server",
            "--probe",
            "echoes_ids",
        ])
        .args(["--format", "json"])
        .run();
    out.expect_code(0);
    let reason = out.json()["extensions"][0]["probes"][0]["reason"].clone();
    assert_eq!(
        reason,
        "5 pipelined requests, every id echoed (0, 1, 2, 4294967296, 9007199254740991)"
    );
}

#[test]
fn a_run_numbers_hook_requests_from_1_and_sends_events_without_an_answer_due() {
    let temp = tempfile::tempdir().expect("temp dir");
    let log = temp.path().join("review-gate.log");
    let out = promptexec()
        .in_dir(fixtures().join("picoclaw_hooks"))
        .env("PICOCLAW_HOOK_LOG_FILE", &log)
        .args(["-c", "desk.yaml", "run", "../picoclaw/desk.pack.json"])
        .args(["--scenario", "lookup", "--message", "where is A-7?"])
        .args(["--format", "json"])
        .run();
    out.expect_code(0);
    let report = out.json_report();
    assert_eq!(
        report["extension_failures"],
        serde_json::json!([]),
        "{report:#}"
    );
    assert_eq!(report["warnings"], serde_json::json!([]), "{report:#}");
    let heard: Vec<Json> = std::fs::read_to_string(&log)
        .expect("the hook's log")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    let requests: Vec<(u64, &str)> = heard
        .iter()
        .filter(|m| m["notification"] == false)
        .map(|m| {
            (
                m["id"].as_u64().unwrap_or(0),
                m["method"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(requests.first(), Some(&(1, "hook.hello")), "{requests:?}");
    let ids: Vec<u64> = requests.iter().map(|(id, _)| *id).collect();
    let counted: Vec<u64> = (1..=ids.len() as u64).collect();
    assert_eq!(ids, counted, "ids count up from 1: {requests:?}");
    let methods: Vec<&str> = requests.iter().map(|(_, m)| *m).collect();
    for method in ["hook.before_tool", "hook.approve_tool", "hook.after_tool"] {
        assert!(methods.contains(&method), "{method}: {methods:?}");
    }
    let events: Vec<&Json> = heard
        .iter()
        .filter(|m| m["notification"] == true)
        .map(|m| &m["method"])
        .collect();
    assert_eq!(
        events,
        [
            &Json::from("hook.runtime_event"),
            &Json::from("hook.runtime_event")
        ]
    );
}
