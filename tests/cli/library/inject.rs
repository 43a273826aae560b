//! `prompt render --as/--into`: a library prompt placed into chat messages; and
//! `run --library-prompt`: a library prompt played as the system prompt, named in
//! the reports and in the audit log.

use serde_json::{Value as Json, json};

use super::{Lib, library_fixture};
use crate::util::{example_config, fixtures};

fn inject_fixture(name: &str) -> String {
    library_fixture(&format!("inject/{name}"))
}

/// A library holding the support prompt, the reply prompt and its partial.
fn library() -> Lib {
    let lib = Lib::new();
    for name in ["support-system.json", "house-rules.json", "reply.prompt"] {
        lib.add(&format!("inject/{name}"), "agent:test");
    }
    lib
}

#[track_caller]
fn placed(lib: &Lib, args: &[&str]) -> Json {
    let out = lib.ok(args);
    serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?} printed no JSON ({e}):\n{}", out.stdout))
}

const SUPPORT: [&str; 7] = [
    "prompt",
    "render",
    "support-system",
    "--var",
    "customer_name=Dana",
    "--var",
    "company=Acme",
];

fn support(extra: &[&str]) -> Vec<String> {
    SUPPORT.iter().chain(extra).map(|s| s.to_string()).collect()
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

#[test]
fn as_system_goes_before_the_existing_system_message_or_first() {
    let lib = library();
    let chat = inject_fixture("chat.json");
    let got = placed(&lib, &strs(&support(&["--as", "system", "--into", &chat])));
    assert_eq!(
        got[0],
        json!({"role": "system", "content": "You help Dana of Acme. Be short.\n\nYou are the store's assistant."})
    );
    assert_eq!(got.as_array().map(Vec::len), Some(4));
    assert_eq!(got[1]["content"], "Where is order A-1001?");

    // An object with `messages` keeps its other keys; with no system message, a
    // new one comes first.
    let wrapped = inject_fixture("wrapped.json");
    let got = placed(
        &lib,
        &strs(&support(&["--as", "system", "--into", &wrapped])),
    );
    assert_eq!(
        got,
        json!({"model": "gpt-4o", "messages": [
            {"role": "system", "content": "You help Dana of Acme. Be short."},
            {"role": "user", "content": "Hello"}
        ]})
    );
}

#[test]
fn prefix_and_suffix_join_the_first_and_last_user_messages() {
    let lib = library();
    let chat = inject_fixture("chat.json");
    let got = placed(&lib, &strs(&support(&["--as", "prefix", "--into", &chat])));
    assert_eq!(
        got[1]["content"],
        "You help Dana of Acme. Be short.\n\nWhere is order A-1001?"
    );
    assert_eq!(got[3]["content"], "And A-1002?");
    assert_eq!(got[0]["content"], "You are the store's assistant.");

    let got = placed(&lib, &strs(&support(&["--as", "suffix", "--into", &chat])));
    assert_eq!(
        got[3]["content"],
        "And A-1002?\n\nYou help Dana of Acme. Be short."
    );
    assert_eq!(got[1]["content"], "Where is order A-1001?");

    // From stdin, and without --into: the prompt alone as a message.
    let text = std::fs::read_to_string(fixtures().join(&chat)).expect("fixture");
    let out = lib
        .command(&strs(&support(&["--as", "suffix", "--into", "-"])))
        .stdin(text)
        .run();
    out.expect_code(0);
    assert_eq!(out.json()[3]["content"], got[3]["content"]);
    let alone = placed(&lib, &strs(&support(&["--as", "system"])));
    assert_eq!(
        alone,
        json!([{"role": "system", "content": "You help Dana of Acme. Be short."}])
    );
}

#[test]
fn a_dotprompt_prompt_places_its_system_message_as_system_and_the_rest_as_asked() {
    let lib = library();
    let chat = inject_fixture("chat.json");
    let got = placed(
        &lib,
        &[
            "prompt",
            "render",
            "reply",
            "--var",
            "ticket=late parcel",
            "--as",
            "prefix",
            "--into",
            &chat,
        ],
    );
    assert_eq!(
        got[0]["content"],
        "Never share an order's card number. Keep a calm tone.\n\nYou are the store's assistant."
    );
    assert_eq!(
        got[1]["content"],
        "Ticket: late parcel\n\nWhere is order A-1001?"
    );
    // Without --as, the rendered text as before.
    let out = lib.ok(&["prompt", "render", "reply", "--var", "ticket=late parcel"]);
    assert!(
        out.stdout.contains("Keep a calm tone.") && out.stdout.contains("Ticket: late parcel"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_messages_file_that_is_not_one_is_refused_where_it_goes_wrong() {
    let lib = library();
    let bad = inject_fixture("no-role.json");
    let out = lib.run(&strs(&support(&["--as", "prefix", "--into", &bad])));
    out.expect_code(2);
    assert!(
        out.stderr.contains("no-role.json:3:3") && out.stderr.contains("no `role`"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    let out = lib.run(&["prompt", "render", "support-system", "--into", &bad]);
    out.expect_code(2);
    assert!(out.stderr.contains("--as"), "{}", out.stderr);
}

/// `run --library-prompt` over the bundled example: `ARGS` follow the pack.
fn run_with(lib: &Lib, args: &[&str]) -> crate::util::Outcome {
    example_config()
        .args(["run", "examples/assistant.pack.json"])
        .args(["--var", "customer_name=Dana", "--var", "company=Acme"])
        .args(args)
        .args(["--library", lib.path(), "--format", "json"])
        .run()
}

#[track_caller]
fn audit(lib: &Lib) -> Vec<Json> {
    let all = lib.json(&["prompt", "audit"]);
    all.as_array().expect("a list").clone()
}

#[test]
fn run_plays_the_library_prompt_and_records_it_in_the_report_and_the_audit_log() {
    let lib = library();
    let out = run_with(
        &lib,
        &[
            "--message",
            "Where is order A-1001?",
            "--library-prompt",
            "support-system",
        ],
    );
    out.expect_code(0);
    let report = out.json();
    assert_eq!(report["system_prompt"], "You help Dana of Acme. Be short.");
    let used = &report["library_prompt"];
    assert_eq!(used["id"], "support-system");
    assert_eq!(used["version"], 1);
    let hash = used["content_hash"].as_str().expect("a hash");
    assert!(hash.starts_with("sha256:"), "{hash}");
    let records = audit(&lib);
    assert_eq!(records.len(), 1, "{records:?}");
    let record = &records[0];
    assert_eq!(record["prompt_id"], "support-system");
    assert_eq!(record["purpose"], "run");
    assert_eq!(record["content_hash"], hash);
    assert_eq!(record["success"], true);
    assert_eq!(record["variables"]["customer_name"], "Dana");
    let checks = &record["checks"];
    assert!(
        checks["total"].as_u64().is_some() && checks["passed"] == checks["total"],
        "{checks}"
    );
}

#[test]
fn a_suite_plays_the_library_prompt_in_every_scenario() {
    let lib = library();
    let junit = lib.file("suite.xml");
    let out = run_with(
        &lib,
        &[
            "--library-prompt",
            "support-system@1",
            "--filter",
            "store-hours",
            "--junit",
            &junit,
        ],
    );
    out.expect_code(0);
    let report = out.json();
    assert_eq!(report["library_prompt"]["id"], "support-system");
    assert_eq!(report["library_prompt"]["version"], 1);
    let hash = report["library_prompt"]["content_hash"]
        .as_str()
        .expect("a hash");
    let xml = std::fs::read_to_string(&junit).expect("the JUnit report");
    assert!(
        xml.contains(r#"<property name="library_prompt.id" value="support-system"/>"#)
            && xml.contains(&format!(
                r#"<property name="library_prompt.content_hash" value="{hash}"/>"#
            )),
        "{xml}"
    );
    let trial = &report["scenarios"][0]["trials"][0];
    assert_eq!(trial["system_prompt"], "You help Dana of Acme. Be short.");
    let records = audit(&lib);
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["purpose"], "run");
    assert_eq!(records[0]["success"], true);
    let total = records[0]["checks"]["total"].as_u64().expect("a count");
    assert!(total > 0, "{records:?}");
}

#[test]
fn an_unknown_library_prompt_or_version_stops_the_run_before_it_starts() {
    let lib = library();
    for (wanted, said) in [
        ("nope", "no prompt `nope` in the library"),
        (
            "support-system@9",
            "prompt `support-system` has no version 9",
        ),
        ("support-system@x", "--library-prompt"),
    ] {
        let out = run_with(&lib, &["--message", "hi", "--library-prompt", wanted]);
        out.expect_code(2);
        assert!(out.stderr.contains(said), "{wanted}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{}", out.stdout);
    }
    assert!(audit(&lib).is_empty());
}
