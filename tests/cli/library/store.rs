//! Storing prompts: add, list, search, show, history, render, lock, rm and rate.

use serde_json::{Value as Json, json};

use super::{Lib, Table, greeting_vars, ids, library_fixture};
use crate::util::promptexec;

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
        Table::parse(&table).header,
        ["id", "version", "title", "tags", "rating", "locked"]
    );
    let ids_shown: Vec<String> = Table::parse(&table).firsts();
    assert_eq!(ids_shown, ["greeting", "summarize", "translate"]);
    assert_eq!(
        Table::parse(&table).row("greeting"),
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
        Table::parse(&table).header.last().map(String::as_str),
        Some("relevance")
    );
    let rows: Vec<String> = Table::parse(&table).firsts();
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
    missing.stderr_has("prompt `greeting` has no version 3");
    let unknown = lib.run(&["prompt", "show", "nope"]);
    assert_eq!(unknown.code, 2);
    unknown.stderr_has("no prompt `nope` in the library");
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
    assert_eq!(Table::parse(&table).header, ["version", "hash", "by", "at"]);
    let rows = Table::parse(&table).rows;
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
    let added = promptexec()
        .args(&["prompt", "add", &library_fixture("summarize.json")])
        .envs(&env)
        .run();
    added.expect_code(0);
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
    assert_eq!(Table::parse(&table).row("greeting")[5], "yes");
    assert!(
        lib.ok(&["prompt", "show", "greeting"])
            .stdout
            .starts_with("greeting v1 [locked]\n")
    );

    let unlock_hint = "prompt `greeting` is locked; `promptexec prompt unlock greeting` first";
    let add = lib.run(&["prompt", "add", &library_fixture("greeting_v2.json")]);
    add.expect_code(1);
    assert!(add.stderr.contains(unlock_hint), "{}", add.stderr);
    assert_eq!(add.stdout, "");
    let rm = lib.run(&["prompt", "rm", "greeting"]);
    rm.expect_code(1);
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
    unknown.stderr_has("no prompt `nope`");
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
        "rated `greeting` version 1: 4; average 4.00 of 1 rating(s)\n"
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
    assert_eq!(Table::parse(&table).row("greeting")[4], "3.83 (3)");
    assert_eq!(Table::parse(&table).row("summarize")[4], "-");
    let listed = lib.json(&["prompt", "list"]);
    assert_eq!(listed[0]["ratings"], 3);
    assert_eq!(listed[1]["rating"], Json::Null);

    for score in ["5.5", "-1"] {
        let bad = promptexec()
            .args(&[
                "prompt",
                "rate",
                "--library",
                lib.path(),
                "greeting",
                "--",
                score,
            ])
            .run();
        assert_eq!(bad.code, 2, "{score}: {}", bad.stderr);
        bad.stderr_has("from 0 to 5");
    }
    assert_eq!(lib.json(&["prompt", "show", "greeting"])["ratings"], 3);
}
