//! Versions only for changes, ratings per version, ranking, `prompt stats`, and the
//! signed head of the audit log against a chain recomputed by someone who edited the
//! database.

use promptexec::library::{Library, PromptUse, canonical_json, sha256_hex};
use serde_json::{Value as Json, json};

use super::{Lib, Table, greeting_vars, library_fixture};

#[test]
fn adding_unchanged_content_makes_no_version() {
    let lib = Lib::new();
    lib.add("greeting.json", "alice");
    let again = lib.add("greeting.json", "bob");
    assert_eq!(again.stdout, "unchanged `greeting` version 1\n");
    let doc = lib.json(&[
        "prompt",
        "add",
        &library_fixture("greeting.json"),
        "--agent",
        "bob",
    ]);
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["unchanged"], true);
    assert_eq!(doc["updated_by"], "alice", "the version as alice wrote it");
    // A batch with one change and one unchanged prompt: one version in all.
    let batch = lib.ok(&[
        "prompt",
        "add",
        &library_fixture("greeting_v2.json"),
        &library_fixture("summarize.json"),
    ]);
    assert_eq!(
        batch.stdout,
        "added `greeting` version 2\nadded `summarize` version 1\n"
    );
    let batch = lib.ok(&[
        "prompt",
        "add",
        &library_fixture("greeting_v2.json"),
        &library_fixture("summarize.json"),
    ]);
    assert_eq!(
        batch.stdout,
        "unchanged `greeting` version 2\nunchanged `summarize` version 1\n"
    );
    // Only the latest version counts: going back to version 1's content is a change.
    assert_eq!(
        lib.add("greeting.json", "alice").stdout,
        "added `greeting` version 3\n"
    );
    let history = lib.json(&["prompt", "history", "greeting"]);
    assert_eq!(history.as_array().map(Vec::len), Some(3));
    assert_eq!(history[0]["content_hash"], history[2]["content_hash"]);
}

#[test]
fn ratings_belong_to_a_version() {
    let lib = Lib::new();
    lib.add("greeting.json", "alice");
    lib.add("greeting_v2.json", "alice");
    let rated = lib.ok(&["prompt", "rate", "greeting", "2", "--version", "1"]);
    assert_eq!(
        rated.stdout,
        "rated `greeting` version 1: 2; average 2.00 of 1 rating(s)\n"
    );
    let rated = lib.json(&["prompt", "rate", "greeting", "5"]);
    assert_eq!(
        (rated["version"].clone(), rated["ratings"].clone()),
        (json!(2), json!(1))
    );
    assert_eq!(rated["rating"], 5.0);
    let v1 = lib.json(&["prompt", "show", "greeting", "--version", "1"]);
    assert_eq!(
        (v1["rating"].clone(), v1["ratings"].clone()),
        (json!(2.0), json!(1))
    );
    let missing = lib.run(&["prompt", "rate", "greeting", "3", "--version", "9"]);
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    missing.stderr_has("has no version 9");
}

/// A use of the latest version of `id`, as a run records it.
fn run_use(lib: &mut Library, id: &str, success: bool, checks: (u64, u64)) {
    let prompt = lib.get(id, None).expect("the prompt");
    lib.record_use(&PromptUse {
        who: "agent:runner",
        prompt_id: id,
        version: prompt.version,
        content_hash: prompt.content_hash.clone(),
        variables: json!({}),
        purpose: "run",
        success: Some(success),
        checks: Some(checks),
    })
    .expect("recorded");
}

/// Three prompts: `translate` passes every check of many runs, `summarize` has one
/// perfect rating alone, `greeting` steady good ratings and a few renders.
fn ranked_library() -> Lib {
    let lib = Lib::new();
    for fixture in ["greeting.json", "summarize.json", "translate.json"] {
        lib.add(fixture, "alice");
    }
    for score in ["4", "4", "5", "4", "4", "5"] {
        lib.ok(&["prompt", "rate", "greeting", score]);
    }
    lib.ok(&["prompt", "rate", "summarize", "5"]);
    for name in ["Ada", "Grace"] {
        let mut args = vec!["prompt", "render", "greeting"];
        let vars = greeting_vars(name);
        args.extend(vars.iter().map(String::as_str));
        lib.ok(&args);
    }
    let mut library = Library::open(&lib.path).expect("opens");
    for _ in 0..10 {
        run_use(&mut library, "translate", true, (5, 5));
    }
    lib
}

#[test]
fn list_sorts_by_rank_score_and_one_lucky_rating_does_not_win() {
    let lib = ranked_library();
    assert_eq!(
        lib.listed(&["--sort", "rank"]),
        ["translate", "greeting", "summarize"]
    );
    assert_eq!(
        lib.listed(&["--sort", "id"]),
        ["greeting", "summarize", "translate"]
    );
    assert_eq!(
        lib.listed(&[]),
        ["greeting", "summarize", "translate"],
        "by id unless asked"
    );
    // The most recently changed first.
    lib.add("greeting_v2.json", "alice");
    assert_eq!(
        lib.listed(&["--sort", "recent"]),
        ["greeting", "translate", "summarize"]
    );
    // The new version of greeting has no evidence yet: it goes last.
    let ranked = lib.json(&["prompt", "list", "--sort", "rank"]);
    let scores: Vec<(String, Json)> = ranked
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| {
            (
                row["id"].as_str().unwrap_or("").into(),
                row["rank_score"].clone(),
            )
        })
        .collect();
    assert_eq!(scores[2], ("greeting".into(), Json::Null));
    assert_eq!(scores[0].0, "translate");
    let table = Table::parse(&lib.ok(&["prompt", "list", "--sort", "rank"]).stdout);
    assert_eq!(table.header.last().map(String::as_str), Some("score"));
    assert_eq!(table.firsts(), ["translate", "summarize", "greeting"]);
    assert_eq!(table.row("greeting")[6], "-");
}

#[test]
fn stats_show_uses_rates_rating_and_rank_per_version() {
    let lib = ranked_library();
    let mut library = Library::open(&lib.path).expect("opens");
    run_use(&mut library, "greeting", true, (4, 4));
    lib.add("greeting_v2.json", "alice");
    run_use(&mut library, "greeting", false, (1, 4));

    let stats = lib.json(&["prompt", "stats", "greeting"]);
    let versions = stats.as_array().expect("versions");
    assert_eq!(versions.len(), 2);
    let (v1, v2) = (&versions[0], &versions[1]);
    assert_eq!(v1["version"], 1);
    assert_eq!(v1["uses"], 3);
    assert_eq!(v1["uses_by_purpose"], json!({"render": 2, "run": 1}));
    assert_eq!(
        (v1["checks_passed"].clone(), v1["checks_total"].clone()),
        (json!(4), json!(4))
    );
    assert_eq!(v1["pass_rate"], 1.0);
    assert_eq!(v1["success_rate"], 1.0);
    assert_eq!(v1["ratings"], 6);
    assert_eq!(v2["uses_by_purpose"], json!({"run": 1}));
    assert_eq!(
        (v2["pass_rate"].clone(), v2["success_rate"].clone()),
        (json!(0.25), json!(0.0))
    );
    assert_eq!(v2["rating"], Json::Null);
    let today = v1["per_day"][0]["day"].as_str().expect("a day").to_string();
    assert_eq!(v1["per_day"], json!([{"day": today, "uses": 3}]));
    // Version 1, rated and passing, ranks above version 2, failing.
    assert_eq!(
        (v1["rank"].clone(), v2["rank"].clone()),
        (json!(1), json!(2))
    );
    assert!(v1["score"].as_f64() > v2["score"].as_f64(), "{stats}");

    let text = lib.ok(&["prompt", "stats", "greeting"]).stdout;
    let table = Table::parse(&text);
    assert_eq!(
        table.header,
        [
            "prompt",
            "version",
            "uses",
            "per day",
            "pass rate",
            "success",
            "rating",
            "score",
            "rank"
        ]
    );
    let row = &table.rows[0];
    assert_eq!(
        row[1..5],
        ["1", "3 (render 2, run 1)", "█", "100% of 4 check(s)"]
    );
    assert_eq!(row[5..7], ["100% of 1 use(s)", "4.33 (6)"]);
    assert_eq!(table.rows[1][4..6], ["25% of 4 check(s)", "0% of 1 use(s)"]);
    assert_eq!(row[8], "1");
    assert!(
        text.ends_with(&format!(
            "per day: uses from {today} to {today} (UTC), one mark a day, · for none\n"
        )),
        "{text}"
    );

    // A window ending two days later starts at the first use.
    let later = humantime::parse_rfc3339_weak(&format!("{today}T12:00:00")).expect("a time")
        + std::time::Duration::from_secs(2 * 86_400);
    let later = humantime::format_rfc3339_seconds(later).to_string();
    let stats = lib.json(&["prompt", "stats", "greeting", "--now", &later]);
    let days: Vec<u64> = stats[0]["per_day"]
        .as_array()
        .expect("days")
        .iter()
        .map(|d| d["uses"].as_u64().expect("uses"))
        .collect();
    assert_eq!(days, [3, 0, 0]);

    let all = lib.json(&["prompt", "stats"]);
    assert_eq!(all.as_array().map(Vec::len), Some(4));
    let missing = lib.run(&["prompt", "stats", "nope"]);
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    missing.stderr_has("no prompt `nope`");
}

/// A library with three audited renders, its head signed.
fn audited() -> Lib {
    let lib = Lib::new();
    lib.add("greeting.json", "alice");
    for name in ["Ada", "Grace", "Linus"] {
        let mut args = vec!["prompt", "render", "greeting"];
        let vars = greeting_vars(name);
        args.extend(vars.iter().map(String::as_str));
        lib.ok(&args);
    }
    lib
}

/// The hash of an audit row over the fields it covers, chained to `prev`.
fn record_hash(row: &Json, prev: &str) -> String {
    let body = json!({
        "seq": row["seq"], "at": row["at"], "who": row["who"], "prompt_id": row["prompt_id"],
        "version": row["version"], "variables": row["variables"],
        "content_hash": row["content_hash"], "purpose": row["purpose"],
        "success": row["success"], "checks": Json::Null,
    });
    sha256_hex(format!("{prev}\n{}", canonical_json(&body)).as_bytes())
}

#[test]
fn a_recomputed_audit_chain_fails_on_the_head_signature() {
    let lib = audited();
    assert_eq!(
        lib.json(&["prompt", "audit", "verify"]),
        json!({"ok": true, "records": 3, "head_signed": true})
    );
    let key = std::path::PathBuf::from(format!("{}.key", lib.path()));
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&key)
        .expect("a key beside the library")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);

    // Edit record 2 and recompute the chain from it to the head, as someone with
    // the database (and the hash rule) but without the key would.
    let mut records = lib
        .json(&["prompt", "audit"])
        .as_array()
        .expect("records")
        .clone();
    records[1]["variables"]["name"] = json!("Mallory");
    let conn = rusqlite::Connection::open(&lib.path).expect("opens the library");
    let mut prev = records[0]["hash"].as_str().expect("a hash").to_string();
    for row in &records[1..] {
        let hash = record_hash(row, &prev);
        conn.execute(
            "UPDATE audit SET variables = ?2, prev_hash = ?3, hash = ?4 WHERE seq = ?1",
            rusqlite::params![
                row["seq"].as_u64(),
                row["variables"].to_string(),
                prev,
                hash
            ],
        )
        .expect("rewrites a record");
        prev = hash;
    }
    conn.execute("UPDATE audit_head SET hash = ?1", [&prev])
        .expect("moves the head");
    drop(conn);

    let out = lib.run(&["prompt", "audit", "verify"]);
    out.expect_code(1);
    assert_eq!(
        out.stdout,
        "the audit log is broken at record 3: the head signature does not match the head: the chain was recomputed\n"
    );
    let records = lib.json(&["prompt", "audit"]);
    assert_eq!(
        records[1]["variables"]["name"], "Mallory",
        "the edit is in place"
    );

    // Without the key the signature cannot be checked: that is reported, not passed.
    std::fs::remove_file(&key).expect("removes the key");
    let out = lib.run(&["prompt", "audit", "verify"]);
    out.expect_code(1);
    out.stdout_has("the head is signed but the library's key");
}

#[test]
fn a_head_written_before_signing_passes_with_a_note_until_the_next_render() {
    let lib = audited();
    for file in [".key", ".key.pub"] {
        std::fs::remove_file(format!("{}{file}", lib.path())).expect("removes the key");
    }
    let conn = rusqlite::Connection::open(&lib.path).expect("opens the library");
    conn.execute("UPDATE audit_head SET signature = NULL, signer = NULL", [])
        .expect("as an older promptexec left it");
    drop(conn);
    let out = lib.ok(&["prompt", "audit", "verify"]);
    assert_eq!(
        out.stdout,
        "the audit log holds: 3 record(s), none edited or removed\nnote: head not signed (the library's next audit record signs it)\n"
    );
    let mut args = vec!["prompt", "render", "greeting"];
    let vars = greeting_vars("Ada");
    args.extend(vars.iter().map(String::as_str));
    lib.ok(&args);
    assert_eq!(
        lib.json(&["prompt", "audit", "verify"]),
        json!({"ok": true, "records": 4, "head_signed": true})
    );
}
