//! The audit log: who rendered what and when, with sensitive values redacted, and a
//! hash chain that `prompt audit verify` checks.

use std::time::{Duration, SystemTime};

use serde_json::{Value as Json, json};

use super::{Lib, Table, greeting_vars};

#[test]
fn audit_records_who_rendered_what_when_with_sensitive_values_redacted() {
    let lib = Lib::new();
    lib.add("greeting.json", "alice");
    lib.add("greeting_v2.json", "alice");
    lib.add("summarize.json", "alice");
    let vars = greeting_vars("Ada");
    let vars: Vec<&str> = vars.iter().map(String::as_str).collect();

    let before = SystemTime::now() - Duration::from_millis(1);
    let mut args = vec!["prompt", "render", "greeting", "--agent", "planner-bot"];
    args.extend(&vars);
    args.extend(["--version", "1"]);
    lib.ok(&args);
    let mut args = vec!["prompt", "render", "greeting", "--agent", "reviewer"];
    args.extend(&vars);
    lib.ok(&args);
    // Not auditable: not recorded.
    lib.ok(&["prompt", "render", "summarize", "--var", "notes=n"]);
    let after = SystemTime::now();

    let records = lib.json(&["prompt", "audit"]);
    let records = records.as_array().expect("records");
    assert_eq!(records.len(), 2, "{records:?}");
    let redacted = json!({"name": "Ada", "tone": "formal", "account": "[redacted]"});
    for (record, (seq, who, version)) in records
        .iter()
        .zip([(1, "planner-bot", 1), (2, "reviewer", 2)])
    {
        assert_eq!(record["seq"], seq);
        assert_eq!(record["who"], who);
        assert_eq!(record["prompt_id"], "greeting");
        assert_eq!(record["version"], version);
        assert_eq!(record["variables"], redacted);
        assert_eq!(record["purpose"], "render");
        assert_eq!(record["success"], Json::Null);
        assert_eq!(record["checks"], Json::Null);
        let version = lib.json(&[
            "prompt",
            "show",
            "greeting",
            "--version",
            &version.to_string(),
        ]);
        assert_eq!(record["content_hash"], version["content_hash"]);
        let at = record["at"].as_str().expect("at");
        let at = humantime::parse_rfc3339(at).expect("an RFC 3339 time");
        assert!(before <= at && at <= after, "{record}");
    }

    let table = lib.ok(&["prompt", "audit"]).stdout;
    assert_eq!(
        Table::parse(&table).header,
        [
            "#",
            "at",
            "who",
            "prompt",
            "version",
            "content",
            "use",
            "result",
            "variables"
        ]
    );
    let parsed = Table::parse(&table);
    let first = parsed.row("1");
    assert_eq!(first[1], records[0]["at"].as_str().expect("at"));
    assert_eq!(first[2..5], ["planner-bot", "greeting", "1"]);
    let hash = records[0]["content_hash"].as_str().expect("a content hash");
    // The first 12 hex digits of the rendered version's content hash.
    assert_eq!(first[5], hash["sha256:".len()..][..12]);
    assert_eq!(first[6..8], ["render", "-"]);
    assert_eq!(
        first[8],
        r#"{"name":"Ada","tone":"formal","account":"[redacted]"}"#
    );
    assert!(!table.contains("ACC-123"), "{table}");

    // The secret is not in the database either.
    let conn = rusqlite::Connection::open(&lib.path).expect("opens");
    let stored: Vec<String> = conn
        .prepare("SELECT variables FROM audit")
        .expect("prepares")
        .query_map([], |row| row.get(0))
        .expect("queries")
        .collect::<Result<_, _>>()
        .expect("reads");
    assert_eq!(stored.len(), 2);
    assert!(stored.iter().all(|v| !v.contains("ACC-123")), "{stored:?}");

    assert_eq!(
        lib.json(&["prompt", "audit", "greeting"])
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    assert_eq!(lib.json(&["prompt", "audit", "summarize"]), json!([]));
    let later = humantime::format_rfc3339_seconds(after + Duration::from_secs(3600)).to_string();
    assert_eq!(lib.json(&["prompt", "audit", "--since", &later]), json!([]));
    let earlier = humantime::format_rfc3339_seconds(before - Duration::from_secs(3600)).to_string();
    assert_eq!(
        lib.json(&["prompt", "audit", "--since", &earlier])
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    let bad = lib.run(&["prompt", "audit", "--since", "yesterday"]);
    assert_eq!(bad.code, 2);
    bad.stderr_has("not an RFC 3339 time");

    let verified = lib.ok(&["prompt", "audit", "verify"]);
    assert_eq!(
        verified.stdout,
        "the audit log holds: 2 record(s), none edited or removed\n"
    );
    assert_eq!(
        lib.json(&["prompt", "audit", "verify"]),
        json!({"ok": true, "records": 2, "head_signed": true})
    );
}

#[test]
fn audit_since_a_whole_second_keeps_records_made_later_in_that_second() {
    let lib = Lib::new();
    lib.add("greeting.json", "alice");
    let mut args = vec!["prompt", "render", "greeting"];
    let vars = greeting_vars("Ada");
    args.extend(vars.iter().map(String::as_str));
    lib.ok(&args);

    let records = lib.json(&["prompt", "audit"]);
    let at = records[0]["at"].as_str().expect("at");
    let at = humantime::parse_rfc3339(at).expect("an RFC 3339 time");
    // The second the render happened in, written the way --help shows it.
    let second = humantime::format_rfc3339_seconds(at).to_string();
    let since = lib.json(&["prompt", "audit", "--since", &second]);
    assert_eq!(
        since.as_array().map(Vec::len),
        Some(1),
        "a render at {} is at or after {second}",
        records[0]["at"]
    );
}

/// A library with three audited renders.
fn audited() -> Lib {
    let lib = Lib::new();
    lib.add("greeting.json", "alice");
    for name in ["Ada", "Grace", "Linus"] {
        let mut args = vec!["prompt", "render", "greeting"];
        let vars = greeting_vars(name);
        args.extend(vars.iter().map(String::as_str));
        lib.ok(&args);
    }
    assert_eq!(
        lib.json(&["prompt", "audit", "verify"]),
        json!({"ok": true, "records": 3, "head_signed": true})
    );
    lib
}

#[track_caller]
fn tamper(lib: &Lib, sql: &str) {
    let conn = rusqlite::Connection::open(&lib.path).expect("opens the library");
    assert_eq!(conn.execute(sql, []).expect("the change runs"), 1, "{sql}");
}

#[test]
fn an_edited_audit_record_fails_verify_naming_its_number() {
    let lib = audited();
    tamper(
        &lib,
        r#"UPDATE audit SET variables = '{"name":"Mallory","tone":"formal","account":"[redacted]"}' WHERE seq = 2"#,
    );
    let out = lib.run(&["prompt", "audit", "verify"]);
    out.expect_code(1);
    assert_eq!(
        out.stdout,
        "the audit log is broken at record 2: its content does not match its hash: it was edited\n"
    );
    let doc = lib.run(&["prompt", "audit", "verify", "--format", "json"]);
    assert_eq!(doc.code, 1);
    let doc: Json = serde_json::from_str(&doc.stdout).expect("JSON");
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["seq"], 2);
}

#[test]
fn a_deleted_audit_record_fails_verify_naming_the_record_after_the_gap() {
    let lib = audited();
    tamper(&lib, "DELETE FROM audit WHERE seq = 2");
    let out = lib.run(&["prompt", "audit", "verify"]);
    out.expect_code(1);
    assert_eq!(
        out.stdout,
        "the audit log is broken at record 3: record 3 follows record 1: records are missing\n"
    );

    let lib = audited();
    tamper(&lib, "DELETE FROM audit WHERE seq = 3");
    let out = lib.run(&["prompt", "audit", "verify"]);
    out.expect_code(1);
    out.stdout_has("the log ends at record 2 but record 3 was written");
}
