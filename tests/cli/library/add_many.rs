//! `prompt add FILE|DIR...`: many templates in one command, stored together or not
//! at all.

use serde_json::json;

use super::{Lib, ids, library_fixture};

/// Writes a template with `id` and `tags` at `path` (directories made as needed).
fn write_template(path: &str, id: &str, tags: &[&str]) {
    let path = std::path::Path::new(path);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("directory");
    let template = json!({"id": id, "title": format!("Title of {id}"),
                          "template": "Say {{what}}", "slots": ["what"], "tags": tags});
    std::fs::write(path, template.to_string()).expect("template written");
}

#[test]
fn a_directory_adds_its_templates_and_those_below_in_name_order() {
    let lib = Lib::new();
    let dir = lib.file("templates");
    write_template(&format!("{dir}/b.json"), "bee", &["insect"]);
    write_template(&format!("{dir}/a.json"), "ant", &["insect", "small"]);
    write_template(&format!("{dir}/deeper/c.JSON"), "cat", &["pet"]);
    write_template(&format!("{dir}/.hidden/d.json"), "dog", &["pet"]);
    std::fs::write(format!("{dir}/notes.txt"), "not a template").expect("notes");

    let out = lib.ok(&["prompt", "add", &dir, "--agent", "alice"]);
    assert_eq!(
        out.stdout,
        "added `ant` version 1\nadded `bee` version 1\nadded `cat` version 1\n"
    );
    assert_eq!(lib.listed(&[]), ["ant", "bee", "cat"]);
    assert_eq!(lib.listed(&["--tag", "INSECT"]), ["ant", "bee"]);
    assert_eq!(lib.listed(&["--tag", "pet"]), ["cat"]);

    // A file and a directory together, as JSON: the list in the order added. `cat`
    // is changed (a new tag), so it gets a version; unchanged it would not.
    write_template(&format!("{dir}/deeper/c.JSON"), "cat", &["pet", "indoor"]);
    let added = lib.json(&[
        "prompt",
        "add",
        &library_fixture("greeting.json"),
        &format!("{dir}/deeper"),
    ]);
    assert_eq!(ids(&added), ["greeting", "cat"]);
    assert_eq!(added[1]["version"], 2);
    assert_eq!(added[1]["unchanged"], false);
    assert_eq!(added[1]["tags"], json!(["pet", "indoor"]));
    // The search index holds every prompt added.
    let mut found = ids(&lib.json(&["prompt", "search", "title"]));
    found.sort();
    assert_eq!(found, ["ant", "bee", "cat"]);
}

#[test]
fn one_bad_template_adds_nothing_and_names_its_file_line_and_column() {
    let lib = Lib::new();
    let dir = lib.file("templates");
    write_template(&format!("{dir}/a.json"), "ant", &[]);
    // The fixtures' `library` directory holds good templates and `undeclared.json`.
    let out = lib.run(&["prompt", "add", &dir, "library"]);
    out.expect_code(2);
    out.stderr_has(
        "library/undeclared.json:4:42: placeholder `{{audience}}` is not listed in `slots`",
    );
    assert_eq!(out.stdout, "");
    assert!(lib.listed(&[]).is_empty());

    let missing = lib.run(&["prompt", "add", &dir, "no-such.json"]);
    missing.expect_code(2);
    missing.stderr_has("no-such.json");
    assert!(lib.listed(&[]).is_empty());

    let empty = lib.file("empty");
    std::fs::create_dir(&empty).expect("empty directory");
    let out = lib.run(&["prompt", "add", &empty]);
    out.expect_code(2);
    out.stderr_has("the directory holds no template file (*.json, *.prompt)");
}

#[test]
fn a_locked_prompt_in_the_set_refuses_them_all() {
    let lib = Lib::new();
    lib.add("greeting.json", "alice");
    lib.ok(&["prompt", "lock", "greeting"]);
    let out = lib.run(&[
        "prompt",
        "add",
        &library_fixture("summarize.json"),
        &library_fixture("greeting_v2.json"),
    ]);
    assert_ne!(out.code, 0, "{}", out.report());
    out.stderr_has("prompt `greeting` is locked");
    assert_eq!(lib.listed(&[]), ["greeting"]);
}

#[test]
fn prompt_add_without_a_file_is_a_usage_error() {
    let lib = Lib::new();
    let out = lib.run(&["prompt", "add"]);
    out.expect_code(2);
    out.stderr_has("FILE|DIR");
}
