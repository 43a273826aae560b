//! `promptexec prompt …`: the prompt library on SQLite, its audit log, and signed
//! sharing — run the way a user runs them, each test against its own library.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime};

use promptexec::library::{KeyPair, make_bundle, make_packet};
use serde_json::{Value as Json, json};

use crate::util::{Outcome, fixtures, run_env, run_in};

/// A fresh library in its own temporary directory (which also holds keys and bundles).
struct Lib {
    dir: tempfile::TempDir,
    path: PathBuf,
}

impl Lib {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("library.db");
        Self { dir, path }
    }

    fn path(&self) -> &str {
        self.path.to_str().expect("a UTF-8 temp path")
    }

    /// A path inside the library's temporary directory.
    fn file(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// Runs `promptexec ARGS --library PATH` in the fixtures directory.
    #[track_caller]
    fn run(&self, args: &[&str]) -> Outcome {
        let mut all = args.to_vec();
        all.extend(["--library", self.path()]);
        run_in(&fixtures(), &all)
    }

    /// Like [`Lib::run`], and it must succeed.
    #[track_caller]
    fn ok(&self, args: &[&str]) -> Outcome {
        let out = self.run(args);
        assert_eq!(out.code, 0, "{args:?} failed:\n{}", out.stderr);
        out
    }

    /// The `--format json` document of a command that must succeed.
    #[track_caller]
    fn json(&self, args: &[&str]) -> Json {
        let mut all = args.to_vec();
        all.extend(["--format", "json"]);
        let out = self.ok(&all);
        serde_json::from_str(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?} printed no JSON ({e}):\n{}", out.stdout))
    }

    #[track_caller]
    fn add(&self, fixture: &str, agent: &str) -> Outcome {
        self.ok(&["prompt", "add", &library_fixture(fixture), "--agent", agent])
    }

    /// The ids `prompt list` shows, in order.
    #[track_caller]
    fn listed(&self, extra: &[&str]) -> Vec<String> {
        let mut args = vec!["prompt", "list"];
        args.extend(extra);
        ids(&self.json(&args))
    }
}

/// A template fixture, relative to the fixtures directory the commands run in.
fn library_fixture(name: &str) -> String {
    format!("library/{name}")
}

fn ids(rows: &Json) -> Vec<String> {
    rows.as_array()
        .expect("a JSON array")
        .iter()
        .map(|row| row["id"].as_str().expect("an id").to_string())
        .collect()
}

/// The cells of one line of a comfy table, borders trimmed.
fn cells(line: &str) -> Vec<String> {
    line.trim_matches('│')
        .split(['│', '┆'])
        .map(|cell| cell.trim().to_string())
        .collect()
}

/// The row of a printed table whose first cell is `first`.
#[track_caller]
fn table_row(table: &str, first: &str) -> Vec<String> {
    table
        .lines()
        .map(cells)
        .find(|row| row.len() > 1 && row[0] == first)
        .unwrap_or_else(|| panic!("no row `{first}` in:\n{table}"))
}

/// The data rows of a printed table (not its header or borders).
fn table_rows(table: &str) -> Vec<Vec<String>> {
    table
        .lines()
        .skip(3)
        .map(cells)
        .filter(|row| row.len() > 1)
        .collect()
}

/// Starts promptexec without waiting, isolated like `util::run_env`.
fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_promptexec"))
        .current_dir(fixtures())
        .env_remove("PROMPTEXEC_CONFIG")
        .env_remove("PROMPTEXEC_LIBRARY")
        .env_remove("RUST_LOG")
        .env("NO_COLOR", "1")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promptexec starts")
}

fn finish(child: Child) -> Output {
    child.wait_with_output().expect("promptexec is waited for")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Writes a key pair with `prompt keygen` and returns its did:key.
#[track_caller]
fn keygen(out: &str) -> String {
    let made = run_in(&fixtures(), &["prompt", "keygen", "--out", out]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    made.stdout.trim().to_string()
}

fn greeting_vars(name: &str) -> Vec<String> {
    vec![
        "--var".into(),
        format!("name={name}"),
        "--var".into(),
        "tone=formal".into(),
        "--var".into(),
        "account=ACC-123".into(),
    ]
}

// ---------------------------------------------------------------------------------
// Every command, happy path
// ---------------------------------------------------------------------------------

#[test]
fn adding_a_template_twice_makes_version_one_then_version_two() {
    let lib = Lib::new();
    let first = lib.add("greeting.json", "alice");
    assert_eq!(first.stdout, "added `greeting` version 1\n");
    assert_eq!(first.stderr, "");

    let second = lib.json(&[
        "prompt",
        "add",
        &library_fixture("greeting_v2.json"),
        "--agent",
        "bob",
    ]);
    assert_eq!(second["id"], "greeting");
    assert_eq!(second["version"], 2);
    assert_eq!(second["latest_version"], 2);
    assert_eq!(second["title"], "Customer Greeting");
    assert_eq!(second["owner"], "team:support");
    assert_eq!(second["tags"], json!(["support", "greeting"]));
    assert_eq!(second["updated_by"], "bob");
    assert_eq!(second["locked"], false);
    assert!(
        second["content_hash"]
            .as_str()
            .is_some_and(|h| h.starts_with("sha256:") && h.len() == 71),
        "{second}"
    );
}

#[test]
fn list_shows_every_prompt_and_tags_narrow_it_to_prompts_with_all_of_them() {
    let lib = Lib::new();
    assert_eq!(
        lib.ok(&["prompt", "list"]).stdout,
        "the library holds no prompt\n"
    );
    for fixture in ["translate.json", "greeting.json", "summarize.json"] {
        lib.add(fixture, "alice");
    }
    lib.add("greeting_v2.json", "alice");

    let table = lib.ok(&["prompt", "list"]).stdout;
    assert_eq!(
        cells(table.lines().nth(1).expect("a header")),
        ["id", "version", "title", "tags", "rating", "locked"]
    );
    let ids_shown: Vec<String> = table_rows(&table)
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(ids_shown, ["greeting", "summarize", "translate"]);
    assert_eq!(
        table_row(&table, "greeting"),
        [
            "greeting",
            "2",
            "Customer Greeting",
            "support, greeting",
            "-",
            ""
        ]
    );

    assert_eq!(
        lib.listed(&["--tag", "writing"]),
        ["summarize", "translate"]
    );
    assert_eq!(
        lib.listed(&["--tag", "WRITING", "--tag", "language"]),
        ["translate"]
    );
    assert_eq!(lib.listed(&["--tag", "support"]), ["greeting"]);
    assert!(
        lib.listed(&["--tag", "support", "--tag", "writing"])
            .is_empty()
    );
}

#[test]
fn search_ignores_case_and_ranks_a_title_match_above_a_template_only_match() {
    let lib = Lib::new();
    for fixture in ["translate.json", "greeting.json", "summarize.json"] {
        lib.add(fixture, "alice");
    }

    // "summarize" is in summarize's title (and template) but only in translate's template.
    let found = lib.json(&["prompt", "search", "SUMMARIZE"]);
    assert_eq!(ids(&found), ["summarize", "translate"]);
    let (top, next) = (&found[0]["relevance"], &found[1]["relevance"]);
    assert!(
        top.as_u64() > next.as_u64(),
        "relevance {top} must beat {next}"
    );
    let table = lib.ok(&["prompt", "search", "summarize"]).stdout;
    assert_eq!(
        cells(table.lines().nth(1).expect("a header"))
            .last()
            .map(String::as_str),
        Some("relevance")
    );
    let rows: Vec<String> = table_rows(&table)
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(rows, ["summarize", "translate"]);

    // Description, tags and title each count; every word must be found.
    assert_eq!(
        ids(&lib.json(&["prompt", "search", "welcomes"])),
        ["greeting"]
    );
    assert_eq!(
        ids(&lib.json(&["prompt", "search", "Language"])),
        ["translate"]
    );
    assert_eq!(
        ids(&lib.json(&["prompt", "search", "notes writing"])),
        ["summarize"]
    );
    assert_eq!(
        ids(&lib.json(&["prompt", "search", "summarize", "--tag", "language"])),
        ["translate"]
    );
    let none = lib.ok(&["prompt", "search", "xyzzy"]);
    assert_eq!(none.stdout, "no prompt matches `xyzzy`\n");
    assert_eq!(lib.json(&["prompt", "search", "xyzzy"]), json!([]));
}

#[test]
fn show_prints_the_latest_version_or_the_one_asked_for() {
    let lib = Lib::new();
    lib.add("greeting.json", "alice");
    lib.add("greeting_v2.json", "bob");

    let latest = lib.ok(&["prompt", "show", "greeting"]).stdout;
    let mut lines = latest.lines();
    assert_eq!(lines.next(), Some("greeting v2"));
    assert_eq!(lines.next(), Some("title:       Customer Greeting"));
    assert_eq!(
        lines.next(),
        Some("description: Welcomes a customer by name before a support chat")
    );
    assert_eq!(lines.next(), Some("tags:        support, greeting"));
    assert_eq!(lines.next(), Some("owner:       team:support"));
    assert_eq!(lines.next(), Some("rating:      not rated"));
    assert!(
        lines
            .next()
            .is_some_and(|l| l.starts_with("hash:        sha256:"))
    );
    assert_eq!(lines.next(), Some(""));
    assert_eq!(
        lines.next(),
        Some("Say hello to {{name}} in a {{tone}} tone; account {{account}} is verified.")
    );

    let old = lib
        .ok(&["prompt", "show", "greeting", "--version", "1"])
        .stdout;
    assert!(old.starts_with("greeting v1 (latest is v2)\n"), "{old}");
    assert!(
        old.ends_with("\nGreet {{name}} in a {{tone}} tone and confirm account {{account}}.\n"),
        "{old}"
    );

    let doc = lib.json(&["prompt", "show", "greeting", "--version", "1"]);
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["latest_version"], 2);
    assert_eq!(doc["updated_by"], "alice");
    assert_eq!(
        doc["content"]["template"],
        "Greet {{name}} in a {{tone}} tone and confirm account {{account}}."
    );
    assert_eq!(doc["content"]["slots"][2]["sensitive"], true);

    let missing = lib.run(&["prompt", "show", "greeting", "--version", "3"]);
    assert_eq!(missing.code, 2);
    assert!(
        missing
            .stderr
            .contains("prompt `greeting` has no version 3"),
        "{}",
        missing.stderr
    );
    let unknown = lib.run(&["prompt", "show", "nope"]);
    assert_eq!(unknown.code, 2);
    assert!(
        unknown.stderr.contains("no prompt `nope` in the library"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn history_lists_every_version_with_its_hash_and_author() {
    let lib = Lib::new();
    lib.add("greeting.json", "alice");
    lib.add("greeting_v2.json", "bob");
    let v1 = lib.json(&["prompt", "show", "greeting", "--version", "1"]);
    let v2 = lib.json(&["prompt", "show", "greeting"]);
    assert_ne!(v1["content_hash"], v2["content_hash"]);

    let table = lib.ok(&["prompt", "history", "greeting"]).stdout;
    assert_eq!(
        cells(table.lines().nth(1).expect("a header")),
        ["version", "hash", "by", "at"]
    );
    let rows = table_rows(&table);
    assert_eq!(rows.len(), 2, "{table}");
    assert_eq!(
        rows[0][..3],
        ["1", v1["content_hash"].as_str().expect("hash"), "alice"]
    );
    assert_eq!(
        rows[1][..3],
        ["2", v2["content_hash"].as_str().expect("hash"), "bob"]
    );

    let doc = lib.json(&["prompt", "history", "greeting"]);
    let versions: Vec<u64> = doc
        .as_array()
        .expect("array")
        .iter()
        .map(|v| v["version"].as_u64().expect("version"))
        .collect();
    assert_eq!(versions, [1, 2]);
    assert_eq!(doc[1]["author"], "bob");
}

#[test]
fn render_prints_the_filled_template_on_stdout_and_nothing_else() {
    let lib = Lib::new();
    lib.add("greeting.json", "alice");
    lib.add("greeting_v2.json", "alice");
    lib.add("summarize.json", "alice");

    let mut args = vec!["prompt", "render", "greeting"];
    let vars = greeting_vars("Ada Lovelace");
    args.extend(vars.iter().map(String::as_str));
    let latest = lib.ok(&args);
    assert_eq!(
        latest.stdout,
        "Say hello to Ada Lovelace in a formal tone; account ACC-123 is verified."
    );
    assert_eq!(latest.stderr, "");

    args.extend(["--version", "1"]);
    let old = lib.ok(&args);
    assert_eq!(
        old.stdout,
        "Greet Ada Lovelace in a formal tone and confirm account ACC-123."
    );
    assert_eq!(old.stderr, "");

    // Values are text: template syntax inside one is not expanded, and a slot that
    // allows control characters takes them.
    let notes = lib.ok(&[
        "prompt",
        "render",
        "summarize",
        "--var",
        "notes={{notes}} and a bell \u{7}",
    ]);
    assert_eq!(
        notes.stdout,
        "Summarize these notes in three bullet points: {{notes}} and a bell \u{7}"
    );
}

#[test]
fn the_library_can_be_named_by_the_promptexec_library_variable() {
    let lib = Lib::new();
    let env = [("PROMPTEXEC_LIBRARY", lib.path())];
    let added = run_env(
        &fixtures(),
        &["prompt", "add", &library_fixture("summarize.json")],
        &env,
    );
    assert_eq!(added.code, 0, "{}", added.stderr);
    assert_eq!(added.stdout, "added `summarize` version 1\n");
    assert!(
        lib.path.exists(),
        "the library file was created where named"
    );
    assert_eq!(lib.listed(&[]), ["summarize"]);
}

#[test]
fn a_locked_prompt_refuses_new_versions_and_removal_until_unlocked() {
    let lib = Lib::new();
    lib.add("greeting.json", "alice");

    assert_eq!(
        lib.ok(&["prompt", "lock", "greeting"]).stdout,
        "`greeting` is locked\n"
    );
    let table = lib.ok(&["prompt", "list"]).stdout;
    assert_eq!(table_row(&table, "greeting")[5], "yes");
    assert!(
        lib.ok(&["prompt", "show", "greeting"])
            .stdout
            .starts_with("greeting v1 [locked]\n")
    );

    let unlock_hint = "prompt `greeting` is locked; `promptexec prompt unlock greeting` first";
    let add = lib.run(&["prompt", "add", &library_fixture("greeting_v2.json")]);
    assert_eq!(add.code, 1, "{}", add.stderr);
    assert!(add.stderr.contains(unlock_hint), "{}", add.stderr);
    assert_eq!(add.stdout, "");
    let rm = lib.run(&["prompt", "rm", "greeting"]);
    assert_eq!(rm.code, 1, "{}", rm.stderr);
    assert!(rm.stderr.contains(unlock_hint), "{}", rm.stderr);

    // Nothing changed: still one version, still listed.
    assert_eq!(
        lib.json(&["prompt", "history", "greeting"])
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    assert_eq!(lib.listed(&[]), ["greeting"]);

    let unlocked = lib.json(&["prompt", "unlock", "greeting"]);
    assert_eq!(unlocked, json!({"id": "greeting", "locked": false}));
    let v2 = lib.json(&["prompt", "add", &library_fixture("greeting_v2.json")]);
    assert_eq!(v2["version"], 2);
    assert_eq!(v2["locked"], false);

    let unknown = lib.run(&["prompt", "lock", "nope"]);
    assert_eq!(unknown.code, 2);
    assert!(
        unknown.stderr.contains("no prompt `nope`"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn rm_takes_a_prompt_out_of_list_show_and_render() {
    let lib = Lib::new();
    lib.add("greeting.json", "alice");
    lib.add("summarize.json", "alice");

    assert_eq!(
        lib.ok(&["prompt", "rm", "summarize"]).stdout,
        "removed `summarize`\n"
    );
    assert_eq!(lib.listed(&[]), ["greeting"]);
    for args in [
        vec!["prompt", "show", "summarize"],
        vec!["prompt", "render", "summarize", "--var", "notes=x"],
        vec!["prompt", "rm", "summarize"],
    ] {
        let out = lib.run(&args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("no prompt `summarize` in the library"),
            "{args:?}: {}",
            out.stderr
        );
    }
    assert_eq!(
        lib.json(&["prompt", "rm", "greeting"]),
        json!({"id": "greeting", "removed": true})
    );
    assert_eq!(
        lib.ok(&["prompt", "list"]).stdout,
        "the library holds no prompt\n"
    );
}

#[test]
fn ratings_are_averaged_in_show_and_list() {
    let lib = Lib::new();
    lib.add("greeting.json", "alice");
    lib.add("summarize.json", "alice");

    assert_eq!(
        lib.ok(&["prompt", "rate", "greeting", "4", "--agent", "a"])
            .stdout,
        "rated `greeting` 4; average 4.00 of 1 rating(s)\n"
    );
    lib.ok(&[
        "prompt",
        "rate",
        "greeting",
        "5",
        "--comment",
        "clear and kind",
    ]);
    let third = lib.json(&["prompt", "rate", "greeting", "2.5"]);
    assert_eq!(third["ratings"], 3);
    let average = third["rating"].as_f64().expect("a rating");
    assert!((average - 11.5 / 3.0).abs() < 1e-9, "{third}");

    let shown = lib.ok(&["prompt", "show", "greeting"]).stdout;
    assert!(
        shown.contains("\nrating:      3.83 of 5 (3 rating(s))\n"),
        "{shown}"
    );
    let table = lib.ok(&["prompt", "list"]).stdout;
    assert_eq!(table_row(&table, "greeting")[4], "3.83 (3)");
    assert_eq!(table_row(&table, "summarize")[4], "-");
    let listed = lib.json(&["prompt", "list"]);
    assert_eq!(listed[0]["ratings"], 3);
    assert_eq!(listed[1]["rating"], Json::Null);

    for score in ["5.5", "-1"] {
        let bad = run_in(
            &fixtures(),
            &[
                "prompt",
                "rate",
                "--library",
                lib.path(),
                "greeting",
                "--",
                score,
            ],
        );
        assert_eq!(bad.code, 2, "{score}: {}", bad.stderr);
        assert!(bad.stderr.contains("from 0 to 5"), "{}", bad.stderr);
    }
    assert_eq!(lib.json(&["prompt", "show", "greeting"])["ratings"], 3);
}

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
        let at = record["at"].as_str().expect("at");
        let at = humantime::parse_rfc3339(at).expect("an RFC 3339 time");
        assert!(before <= at && at <= after, "{record}");
    }

    let table = lib.ok(&["prompt", "audit"]).stdout;
    assert_eq!(
        cells(table.lines().nth(1).expect("a header")),
        ["#", "at", "who", "prompt", "version", "variables"]
    );
    let first = table_row(&table, "1");
    assert_eq!(first[1], records[0]["at"].as_str().expect("at"));
    assert_eq!(first[2..5], ["planner-bot", "greeting", "1"]);
    assert_eq!(
        first[5],
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
    assert!(
        bad.stderr.contains("not an RFC 3339 time"),
        "{}",
        bad.stderr
    );

    let verified = lib.ok(&["prompt", "audit", "verify"]);
    assert_eq!(
        verified.stdout,
        "the audit log holds: 2 record(s), none edited or removed\n"
    );
    assert_eq!(
        lib.json(&["prompt", "audit", "verify"]),
        json!({"ok": true, "records": 2})
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

// ---------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------

#[test]
fn an_undeclared_placeholder_is_refused_with_its_file_line_and_column() {
    let lib = Lib::new();
    let out = lib.run(&["prompt", "add", &library_fixture("undeclared.json")]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "library/undeclared.json:4:42: placeholder `{{audience}}` is not listed in `slots`"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(out.stdout, "");
    assert!(lib.listed(&[]).is_empty());
}

#[test]
fn rendering_without_a_slot_value_names_the_missing_slot() {
    let lib = Lib::new();
    lib.add("greeting.json", "alice");
    let out = lib.run(&[
        "prompt",
        "render",
        "greeting",
        "--var",
        "name=Ada",
        "--var",
        "account=1",
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("slot `tone` of template `greeting` has no value"),
        "{}",
        out.stderr
    );
    assert_eq!(out.stdout, "");
    assert_eq!(lib.json(&["prompt", "audit"]), json!([]));
}

#[test]
fn values_breaking_a_slot_rule_are_refused_naming_the_slot_and_rule() {
    let lib = Lib::new();
    lib.add("greeting.json", "alice");
    let cases = [
        (
            "name",
            "Bartholomew Montgomery Smith",
            "slot `name`: the value is 28 characters, more than max_length 20",
        ),
        (
            "name",
            "R2-D2",
            "slot `name`: the value does not match pattern `[A-Za-z ]+`",
        ),
        (
            "tone",
            "rude",
            "slot `tone`: the value is not one of `formal`, `casual`",
        ),
        (
            "account",
            "12\u{1b}[2J34",
            "slot `account`: the value holds a control character (U+001B)",
        ),
    ];
    for (slot, value, reason) in cases {
        let mut values = vec![
            ("name", "Ada".to_string()),
            ("tone", "casual".to_string()),
            ("account", "42".to_string()),
        ];
        for v in &mut values {
            if v.0 == slot {
                v.1 = value.to_string();
            }
        }
        let pairs: Vec<String> = values.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let mut args = vec!["prompt", "render", "greeting"];
        for pair in &pairs {
            args.extend(["--var", pair.as_str()]);
        }
        let out = lib.run(&args);
        assert_eq!(out.code, 2, "{slot}={value:?}: {}", out.stderr);
        assert!(
            out.stderr.contains(reason),
            "{slot}={value:?}: {}",
            out.stderr
        );
        assert_eq!(out.stdout, "", "{slot}={value:?}");
    }
    // Refused renders leave no audit record.
    assert_eq!(lib.json(&["prompt", "audit"]), json!([]));
}

// ---------------------------------------------------------------------------------
// Keys, bundles and sync packets
// ---------------------------------------------------------------------------------

#[test]
fn keygen_prints_a_did_key_writes_a_private_key_file_and_never_overwrites_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let key = dir.path().join("me.key");
    let key_arg = key.display().to_string();
    let made = run_in(&fixtures(), &["prompt", "keygen", "--out", &key_arg]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    let did = made.stdout.trim_end_matches('\n');
    assert!(did.starts_with("did:key:z6Mk"), "{did}");
    assert_eq!(made.stdout.lines().count(), 1);

    let mode = std::fs::metadata(&key)
        .expect("the key file")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "mode {mode:o}");
    let public = dir.path().join("me.key.pub");
    assert_eq!(
        std::fs::read_to_string(&public).expect("the .pub file"),
        format!("{did}\n")
    );
    let secret = std::fs::read_to_string(&key).expect("the key file");

    let again = run_in(&fixtures(), &["prompt", "keygen", "--out", &key_arg]);
    assert_eq!(again.code, 2, "{}", again.stderr);
    assert!(
        again
            .stderr
            .contains("already exists; refusing to overwrite it"),
        "{}",
        again.stderr
    );
    assert_eq!(again.stdout, "");
    assert_eq!(std::fs::read_to_string(&key).expect("key"), secret);
    assert_eq!(
        std::fs::read_to_string(&public).expect(".pub"),
        format!("{did}\n")
    );
}

/// A library holding greeting and summarize, a key, and a bundle of both signed by it.
struct Exported {
    lib: Lib,
    did: String,
    bundle: String,
}

fn exported() -> Exported {
    let lib = Lib::new();
    lib.add("greeting.json", "alice");
    lib.add("summarize.json", "alice");
    let key = lib.file("signer.key");
    let did = keygen(&key);
    let bundle = lib.file("bundle.json");
    let out = lib.ok(&[
        "prompt",
        "export",
        "greeting",
        "summarize",
        "--sign-key",
        &key,
        "-o",
        &bundle,
    ]);
    assert_eq!(out.stdout, "");
    Exported { lib, did, bundle }
}

#[test]
fn an_exported_bundle_verifies_and_imports_into_another_library() {
    let ex = exported();
    let verified = run_in(&fixtures(), &["prompt", "verify", &ex.bundle]);
    assert_eq!(verified.code, 0, "{}", verified.stderr);
    assert!(
        verified
            .stdout
            .starts_with(&format!("the bundle is intact: signed by {} at ", ex.did)),
        "{}",
        verified.stdout
    );
    assert!(
        verified.stdout.ends_with("; greeting v1, summarize v1\n"),
        "{}",
        verified.stdout
    );
    let trusted = run_in(
        &fixtures(),
        &[
            "prompt", "verify", &ex.bundle, "--trust", &ex.did, "--format", "json",
        ],
    );
    assert_eq!(trusted.code, 0, "{}", trusted.stderr);
    let doc: Json = serde_json::from_str(&trusted.stdout).expect("JSON");
    assert_eq!(doc["signer"], ex.did.as_str());
    assert_eq!(doc["trusted"], true);
    assert_eq!(ids(&doc["prompts"]), ["greeting", "summarize"]);
    assert_eq!(doc["prompts"][0]["owner"], "team:support");

    let other = Lib::new();
    let imported = other.ok(&["prompt", "import", &ex.bundle, "--trust", &ex.did]);
    assert_eq!(
        imported.stdout,
        "imported 2 prompt(s): greeting v1, summarize v1\n"
    );
    assert_eq!(other.listed(&[]), ["greeting", "summarize"]);
    for id in ["greeting", "summarize"] {
        let theirs = other.json(&["prompt", "show", id]);
        let ours = ex.lib.json(&["prompt", "show", id]);
        assert_eq!(theirs["content"], ours["content"]);
        assert_eq!(theirs["content_hash"], ours["content_hash"]);
    }
}

/// Replaces the byte at the first occurrence of `marker` (plus `offset`) and checks
/// that exactly one byte changed.
#[track_caller]
fn alter_one_byte(text: &str, marker: &str, offset: usize, new: u8) -> Vec<u8> {
    let at = text.find(marker).unwrap_or_else(|| panic!("no `{marker}`")) + offset;
    let mut bytes = text.as_bytes().to_vec();
    assert_ne!(bytes[at], new, "the byte must change");
    bytes[at] = new;
    let changed = bytes
        .iter()
        .zip(text.as_bytes())
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(changed, 1);
    bytes
}

#[test]
fn an_altered_or_untrusted_bundle_is_refused_with_the_reason_and_nothing_is_imported() {
    let ex = exported();
    let original = std::fs::read_to_string(&ex.bundle).expect("the bundle");
    let manifest_end =
        original.find("\"prompts\": [\n    {\n      \"id\": \"greeting\",\n      \"title\"");
    let manifest_end = manifest_end.expect("the prompts come after the manifest");
    let version_at = original.find("\"version\": 1").expect("a manifest version");
    let hash_at = original
        .find("\"content_hash\": \"sha256:")
        .expect("a manifest hash");
    assert!(version_at < manifest_end && hash_at < manifest_end);
    let hash_char = original.as_bytes()[hash_at + "\"content_hash\": \"sha256:".len()];

    let stranger = keygen(&ex.lib.file("stranger.key"));
    let signature = "bundle signature does not verify";
    let cases: Vec<(&str, Vec<u8>, &str, String)> = vec![
        (
            "a manifest version digit",
            alter_one_byte(&original, "\"version\": 1", "\"version\": ".len(), b'2'),
            ex.did.as_str(),
            signature.to_string(),
        ),
        (
            "a manifest hash character",
            alter_one_byte(
                &original,
                "\"content_hash\": \"sha256:",
                "\"content_hash\": \"sha256:".len(),
                if hash_char == b'0' { b'1' } else { b'0' },
            ),
            ex.did.as_str(),
            signature.to_string(),
        ),
        (
            "the template text after signing",
            alter_one_byte(
                &original,
                "notes in three bullet",
                "notes in thre".len(),
                b'E',
            ),
            ex.did.as_str(),
            "prompt `summarize` does not match its signed content hash (altered after signing)"
                .to_string(),
        ),
        (
            "an untrusted signer",
            original.clone().into_bytes(),
            stranger.as_str(),
            format!("bundle signer {} is not among the trusted keys", ex.did),
        ),
    ];
    for (what, bytes, trust, reason) in cases {
        let lib = Lib::new();
        let bundle = lib.file("bundle.json");
        std::fs::write(&bundle, &bytes).expect("writes the bundle");
        let out = lib.run(&["prompt", "import", &bundle, "--trust", trust]);
        assert_eq!(out.code, 1, "{what}: {}", out.stderr);
        assert!(out.stderr.contains(&reason), "{what}: {}", out.stderr);
        assert_eq!(out.stdout, "", "{what}");
        assert!(lib.listed(&[]).is_empty(), "{what}: something was imported");
        if trust == ex.did {
            let verified = run_in(&fixtures(), &["prompt", "verify", &bundle]);
            assert_eq!(verified.code, 1, "{what}: {}", verified.stderr);
            assert!(
                verified.stderr.contains(&reason),
                "{what}: {}",
                verified.stderr
            );
        }
    }
}

#[test]
fn an_import_refused_by_one_locked_prompt_imports_none_of_the_bundle() {
    let ex = exported();
    let other = Lib::new();
    other.add("summarize.json", "bob");
    other.ok(&["prompt", "lock", "summarize"]);
    let out = other.run(&["prompt", "import", &ex.bundle, "--trust", &ex.did]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("prompt `summarize` is locked"),
        "{}",
        out.stderr
    );
    assert_eq!(other.listed(&[]), ["summarize"]);
    assert_eq!(
        other
            .json(&["prompt", "history", "summarize"])
            .as_array()
            .map(Vec::len),
        Some(1)
    );
}

#[test]
fn a_sync_packet_is_accepted_once_and_its_replay_is_refused() {
    let sender = Lib::new();
    sender.add("greeting.json", "alice");
    let key = sender.file("sender.key");
    let did = keygen(&key);
    let receiver_key = sender.file("receiver.key");
    let receiver_did = keygen(&receiver_key);
    let packet = sender.file("packet.json");
    sender.ok(&[
        "prompt",
        "sync-send",
        "greeting",
        "--sign-key",
        &key,
        "--target",
        &receiver_did,
        "-o",
        &packet,
    ]);
    let doc: Json =
        serde_json::from_str(&std::fs::read_to_string(&packet).expect("packet")).expect("JSON");
    assert_eq!(doc["promptId"], "greeting");
    assert_eq!(doc["source"], did.as_str());
    assert_eq!(doc["target"], receiver_did.as_str());

    let receiver = Lib::new();
    let first = receiver.ok(&[
        "prompt",
        "sync-receive",
        &packet,
        "--trust",
        &did,
        "--key",
        &receiver_key,
    ]);
    assert_eq!(
        first.stdout,
        format!("received `greeting` from {did} as version 1\n")
    );
    let replay = receiver.run(&[
        "prompt",
        "sync-receive",
        &packet,
        "--trust",
        &did,
        "--key",
        &receiver_key,
    ]);
    assert_eq!(replay.code, 1, "{}", replay.stderr);
    assert!(
        replay
            .stderr
            .contains("this sync packet was received before"),
        "{}",
        replay.stderr
    );
    assert_eq!(replay.stdout, "");
    assert_eq!(
        receiver
            .json(&["prompt", "history", "greeting"])
            .as_array()
            .map(Vec::len),
        Some(1)
    );
}

#[test]
fn a_sync_packet_from_ten_minutes_ago_is_refused_as_outside_the_window() {
    let lib = Lib::new();
    let key = KeyPair::generate().expect("a key");
    let receiver = KeyPair::generate().expect("a key");
    let target = receiver.did();
    let receiver_key = lib.file("receiver.key");
    promptexec::library::write_key_files(std::path::Path::new(&receiver_key), &receiver)
        .expect("key file");
    let template: Json = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("library/summarize.json")).expect("fixture"),
    )
    .expect("JSON");
    let ten_minutes_ago = SystemTime::now() - Duration::from_secs(600);
    let packet = make_packet(&key, &template, "1", &target, ten_minutes_ago);
    let path = lib.file("old-packet.json");
    std::fs::write(&path, serde_json::to_string_pretty(&packet).expect("JSON")).expect("writes");

    let out = lib.run(&[
        "prompt",
        "sync-receive",
        &path,
        "--trust",
        &key.did(),
        "--key",
        &receiver_key,
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("old, beyond the 5m window"),
        "{}",
        out.stderr
    );
    assert!(lib.listed(&[]).is_empty());

    // The same packet is otherwise sound: a wider window takes it.
    let wide = lib.ok(&[
        "prompt",
        "sync-receive",
        &path,
        "--trust",
        &key.did(),
        "--window",
        "900",
        "--key",
        &receiver_key,
    ]);
    assert!(
        wide.stdout.starts_with("received `summarize` from "),
        "{}",
        wide.stdout
    );
}

// ---------------------------------------------------------------------------------
// Reliability rows 22–23
// ---------------------------------------------------------------------------------

#[test]
fn eight_concurrent_processes_add_rate_and_render_without_losing_a_record() {
    let lib = Lib::new();
    lib.add("greeting.json", "setup");
    const ROUNDS: usize = 4;
    const PROCESSES: usize = 8;
    let greeting = library_fixture("greeting.json");
    let (mut adds, mut scores, mut names) = (0, Vec::new(), Vec::new());

    for round in 0..ROUNDS {
        let mut children = Vec::new();
        for i in 0..PROCESSES {
            let n = round * PROCESSES + i;
            let agent = format!("agent-{n}");
            let name = format!(
                "Caller {}{}",
                char::from(b'A' + (n / 26) as u8),
                char::from(b'a' + (n % 26) as u8)
            );
            let score = (n % 6).to_string();
            let vars = greeting_vars(&name);
            let mut args: Vec<&str> = match i % 4 {
                0 => vec!["prompt", "add", &greeting],
                1 => vec!["prompt", "rate", "greeting", &score],
                _ => {
                    let mut render = vec!["prompt", "render", "greeting"];
                    render.extend(vars.iter().map(String::as_str));
                    render
                }
            };
            args.extend(["--agent", &agent, "--library", lib.path()]);
            children.push((i % 4, name.clone(), n, spawn(&args)));
        }
        for (role, name, n, child) in children {
            let out = finish(child);
            assert!(
                out.status.success(),
                "round {round}, process {n} ({role}): {:?}\n{}",
                out.status,
                text(&out.stderr)
            );
            match role {
                0 => adds += 1,
                1 => scores.push((n % 6) as f64),
                _ => {
                    assert_eq!(
                        text(&out.stdout),
                        format!("Greet {name} in a formal tone and confirm account ACC-123.")
                    );
                    names.push((format!("agent-{n}"), name));
                }
            }
        }
    }

    let verified = lib.ok(&["prompt", "audit", "verify"]);
    assert_eq!(
        verified.stdout,
        format!(
            "the audit log holds: {} record(s), none edited or removed\n",
            names.len()
        )
    );
    let records = lib.json(&["prompt", "audit"]);
    let records = records.as_array().expect("records");
    let seqs: Vec<u64> = records
        .iter()
        .map(|r| r["seq"].as_u64().expect("seq"))
        .collect();
    assert_eq!(seqs, (1..=names.len() as u64).collect::<Vec<_>>());
    let mut recorded: Vec<(String, String)> = records
        .iter()
        .map(|r| {
            assert_eq!(r["variables"]["account"], "[redacted]", "{r}");
            (
                r["who"].as_str().expect("who").to_string(),
                r["variables"]["name"].as_str().expect("name").to_string(),
            )
        })
        .collect();
    recorded.sort();
    names.sort();
    assert_eq!(recorded, names);

    let history = lib.json(&["prompt", "history", "greeting"]);
    let versions: Vec<u64> = history
        .as_array()
        .expect("versions")
        .iter()
        .map(|v| v["version"].as_u64().expect("version"))
        .collect();
    assert_eq!(versions, (1..=1 + adds).collect::<Vec<u64>>());
    let shown = lib.json(&["prompt", "show", "greeting"]);
    assert_eq!(shown["ratings"], scores.len());
    let mean = scores.iter().sum::<f64>() / scores.len() as f64;
    assert!((shown["rating"].as_f64().expect("rating") - mean).abs() < 1e-9);
}

#[test]
fn eight_processes_opening_a_new_library_at_once_all_succeed() {
    // The first use of a library by several agents at once: each round starts on a
    // library that does not exist yet, and every process creates or migrates it. Each
    // process is started from its own thread, all released together, so they overlap.
    for round in 0..100 {
        let lib = Lib::new();
        let start = std::sync::Barrier::new(8);
        std::thread::scope(|scope| {
            let runs: Vec<_> = (0..8)
                .map(|_| {
                    scope.spawn(|| {
                        start.wait();
                        finish(spawn(&[
                            "prompt",
                            "list",
                            "--format",
                            "json",
                            "--library",
                            lib.path(),
                        ]))
                    })
                })
                .collect();
            for (i, run) in runs.into_iter().enumerate() {
                let out = run.join().expect("the thread ends");
                assert!(
                    out.status.success(),
                    "round {round}, process {i}: {:?}\n{}",
                    out.status,
                    text(&out.stderr)
                );
                assert_eq!(text(&out.stdout), "[]\n", "round {round}, process {i}");
            }
        });
    }
}

#[test]
fn an_import_killed_with_sigkill_leaves_all_or_none_of_the_bundle() {
    const PROMPTS: usize = 3000;
    let work = tempfile::tempdir().expect("temp dir");
    let key = KeyPair::generate().expect("a key");
    let prompts: Vec<(String, u64, Json)> = (0..PROMPTS)
        .map(|i| {
            let id = format!("bulk-{i:04}");
            let template = json!({
                "id": id,
                "title": format!("Bulk prompt {i}"),
                "template": format!("Prompt number {i} for {{{{who}}}}."),
                "slots": ["who"],
                "tags": ["bulk"],
                "owner": "loader",
            });
            (id, 1, template)
        })
        .collect();
    let bundle = make_bundle(&key, &prompts, SystemTime::now());
    let bundle_path = work.path().join("big.json");
    std::fs::write(
        &bundle_path,
        serde_json::to_string_pretty(&bundle).expect("JSON"),
    )
    .expect("writes the bundle");
    let bundle_arg = bundle_path.display().to_string();
    let did = key.did();

    let import = |lib: &Lib| {
        spawn(&[
            "prompt",
            "import",
            &bundle_arg,
            "--trust",
            &did,
            "--library",
            lib.path(),
        ])
    };
    let count = |lib: &Lib| lib.json(&["prompt", "list"]).as_array().map_or(0, Vec::len);

    // Undisturbed, it imports everything; how long that takes sets the kill delays.
    let baseline = Lib::new();
    let started = Instant::now();
    let out = finish(import(&baseline));
    let full = started.elapsed();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(count(&baseline), PROMPTS);

    let mut killed = 0;
    for fraction in [0.05, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9] {
        let lib = Lib::new();
        let mut child = import(&lib);
        std::thread::sleep(full.mul_f64(fraction));
        child.kill().expect("SIGKILL is sent");
        let status = child.wait().expect("waited for");
        if status.signal() == Some(9) {
            killed += 1;
        }
        let listed = count(&lib);
        assert!(
            listed == 0 || listed == PROMPTS,
            "killed after {fraction} of the import ({status:?}): {listed} of {PROMPTS} prompts"
        );
        let conn = rusqlite::Connection::open(&lib.path).expect("the database opens");
        let integrity: String = conn
            .query_row("PRAGMA integrity_check", [], |row| row.get(0))
            .expect("integrity check runs");
        assert_eq!(integrity, "ok", "after {fraction}");
        lib.ok(&["prompt", "audit", "verify"]);
    }
    assert!(killed > 0, "no import was still running when killed");
}

// ---------------------------------------------------------------------------------
// Tampering with the audit log
// ---------------------------------------------------------------------------------

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
        json!({"ok": true, "records": 3})
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
    assert_eq!(out.code, 1, "{}", out.stderr);
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
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(
        out.stdout,
        "the audit log is broken at record 3: record 3 follows record 1: records are missing\n"
    );

    let lib = audited();
    tamper(&lib, "DELETE FROM audit WHERE seq = 3");
    let out = lib.run(&["prompt", "audit", "verify"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("the log ends at record 2 but record 3 was written"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_signed_bundle_carrying_an_invalid_template_imports_nothing_and_names_it() {
    let lib = Lib::new();
    let key = KeyPair::generate().expect("a key");
    let good = json!({"id": "good", "title": "Good", "template": "Hi {{who}}", "slots": ["who"]});
    let bad = json!({"id": "bad", "title": "Bad", "template": "Hi {{whom}}", "slots": ["who"]});
    let bundle = make_bundle(
        &key,
        &[("good".into(), 1, good), ("bad".into(), 1, bad)],
        SystemTime::now(),
    );
    let path = lib.file("bundle.json");
    std::fs::write(&path, bundle.to_string()).expect("writes the bundle");
    let out = lib.run(&["prompt", "import", &path, "--trust", &key.did()]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!("{path}#bad:1:"))
            && out
                .stderr
                .contains("placeholder `{{whom}}` is not listed in `slots`"),
        "{}",
        out.stderr
    );
    assert_eq!(
        lib.listed(&[]),
        Vec::<String>::new(),
        "nothing was imported"
    );
}
