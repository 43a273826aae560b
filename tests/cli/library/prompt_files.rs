//! `.prompt` files: added, rendered, and the library kept as a folder of them under
//! version control (`export-dir`, `import-dir`, `status`).

use std::path::Path;

use super::{Lib, library_fixture};

/// The two `.prompt` fixtures (a foreign dotprompt file and a plain partial), added.
fn with_prompt_files() -> Lib {
    let lib = Lib::new();
    lib.ok(&["prompt", "add", &library_fixture("prompt_files")]);
    lib
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn a_foreign_dotprompt_file_is_added_and_renders_with_defaults_and_partials() {
    let lib = with_prompt_files();
    let orders =
        r#"{"customer": "Dana", "orders": [{"id": "A-1002", "late": true}, {"id": "B-7"}]}"#;
    std::fs::write(lib.file("vars.json"), orders).expect("vars");
    let out = lib.ok(&[
        "prompt",
        "render",
        "order-status",
        "--vars-file",
        &lib.file("vars.json"),
    ]);
    assert_eq!(
        out.stdout,
        "\nYou are the support assistant. Speak in a friendly tone.\nOpen orders of Dana:\n- A-1002 (late)\n- B-7\n-- Acme Outfitters support\nWhere is my order?\n"
    );
    let out = lib.ok(&[
        "prompt",
        "render",
        "order-status",
        "--var",
        "customer=Lee",
        "--var",
        "tone=dry",
    ]);
    assert!(
        out.stdout
            .contains("Speak in a dry tone.\nLee has no open order.\n"),
        "{}",
        out.stdout
    );
    // The schema is enforced: the customer is required.
    let out = lib.run(&["prompt", "render", "order-status"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains(r#""customer" is a required property"#),
        "{}",
        out.stderr
    );
}

#[test]
fn template_errors_in_a_prompt_file_are_placed_in_the_file() {
    let lib = Lib::new();
    let file = lib.file("broken.prompt");
    std::fs::write(
        &file,
        "---\nname: broken\ninput:\n  schema: {name: string}\n---\nHi {{nmae}}!\n{{#each items}}\n",
    )
    .expect("write");
    let out = lib.run(&["prompt", "add", &file]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("broken.prompt:7:1: template: `{{#each}}` is never closed"),
        "{}",
        out.stderr
    );
    std::fs::write(
        &file,
        "---\nname: broken\ninput:\n  schema: {name: string}\n---\nHi {{nmae}}!\n",
    )
    .expect("write");
    let out = lib.run(&["prompt", "add", &file]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("broken.prompt:6:6: `nmae` is not declared in `input.schema` or `slots`; did you mean `name`?"),
        "{}",
        out.stderr
    );
    std::fs::write(&file, "---\nname: broken\ninput: [1\n---\nHi\n").expect("write");
    let out = lib.run(&["prompt", "add", &file]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("broken.prompt:3:"), "{}", out.stderr);
    // A front matter never closed is refused, not read as the template.
    std::fs::write(&file, "---\nname: broken\nHi {{name}}\n").expect("write");
    let out = lib.run(&["prompt", "add", &file]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains(
            "broken.prompt:1:1: the front matter opened by `---` is never closed by a `---` line"
        ),
        "{}",
        out.stderr
    );
    assert!(lib.listed(&[]).is_empty());
}

#[test]
fn export_edit_one_file_import_gives_exactly_one_new_version() {
    let lib = with_prompt_files();
    lib.ok(&["prompt", "add", &library_fixture("greeting.json")]);
    let dir = lib.file("prompts");
    let out = lib.ok(&["prompt", "export-dir", &dir]);
    assert!(
        out.stdout.ends_with("3 written, 0 unchanged\n"),
        "{}",
        out.stdout
    );
    // The bytes are the library's: a second export writes nothing, and the plain
    // JSON prompt went out with its PromptKind fields in the front matter.
    let again = lib.ok(&["prompt", "export-dir", &dir]);
    assert_eq!(again.stdout, "0 written, 3 unchanged\n");
    let goal = read(&format!("{dir}/greeting.prompt"));
    assert!(goal.starts_with("---\nname: greeting\n"), "{goal}");
    assert!(goal.contains("\npromptkind.format: plain\n---\n"), "{goal}");
    let foreign = read(&format!(
        "{}/prompt_files/order-status.prompt",
        crate::util::fixtures().join("library").display()
    ));
    let exported = read(&format!("{dir}/order-status.prompt"));
    assert!(
        exported.ends_with(foreign.split("\n---\n").nth(1).expect("a body")),
        "{exported}"
    );

    let status = lib.json(&["prompt", "status", &dir]);
    assert!(
        status["prompts"]
            .as_array()
            .expect("prompts")
            .iter()
            .all(|p| p["state"] == "unchanged"),
        "{status}"
    );
    let file = format!("{dir}/order-status.prompt");
    std::fs::write(
        &file,
        exported.replace("Where is my order?", "Where is my parcel?"),
    )
    .expect("edit");

    let check = lib.run(&["prompt", "import-dir", &dir, "--check"]);
    assert_eq!(check.code, 1, "{}", check.stderr);
    assert_eq!(
        check.stdout,
        "would be changed  order-status (version 1 -> 2)\n1 would change, 2 unchanged\n"
    );
    let imported = lib.ok(&["prompt", "import-dir", &dir]);
    assert_eq!(
        imported.stdout,
        "changed  order-status (version 1 -> 2)\n1 imported, 2 unchanged\n"
    );
    let versions = |id: &str| {
        lib.json(&["prompt", "history", id])
            .as_array()
            .expect("versions")
            .len()
    };
    assert_eq!(
        (
            versions("order-status"),
            versions("signature"),
            versions("greeting")
        ),
        (2, 1, 1)
    );
    // Importing the same folder again changes nothing.
    let again = lib.ok(&["prompt", "import-dir", &dir]);
    assert_eq!(again.stdout, "nothing to import; 3 unchanged\n");
    assert_eq!(versions("order-status"), 2);
}

#[test]
fn status_names_new_modified_and_deleted_prompts() {
    let lib = with_prompt_files();
    let dir = lib.file("prompts");
    lib.ok(&["prompt", "export-dir", &dir]);
    std::fs::remove_file(format!("{dir}/signature.prompt")).expect("remove");
    std::fs::write(
        format!("{dir}/welcome.prompt"),
        "---\nname: welcome\n---\nWelcome, {{name}}!\n",
    )
    .expect("new");
    let file = format!("{dir}/order-status.prompt");
    let text = read(&file).replace("friendly", "warm");
    std::fs::write(&file, text).expect("edit");
    let out = lib.ok(&["prompt", "status", &dir]);
    assert_eq!(
        out.stdout,
        "modified:  order-status.prompt (order-status, library version 1)\nnew:       welcome.prompt (welcome)\ndeleted:   signature (library version 1, no file)\n0 unchanged\n"
    );
}

#[test]
fn a_folder_with_one_bad_file_or_a_repeated_id_imports_nothing() {
    let lib = Lib::new();
    let dir = lib.file("prompts");
    std::fs::create_dir_all(&dir).expect("dir");
    let write =
        |name: &str, text: &str| std::fs::write(Path::new(&dir).join(name), text).expect("write");
    write("a.prompt", "---\nname: a\n---\nA\n");
    write("b.prompt", "---\nname: b\n---\n{{#if x}}B\n");
    let out = lib.run(&["prompt", "import-dir", &dir]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("b.prompt:4:1"), "{}", out.stderr);
    write("b.prompt", "---\nname: a\n---\nB\n");
    let out = lib.run(&["prompt", "import-dir", &dir]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("prompt `a` is also in"),
        "{}",
        out.stderr
    );
    assert!(lib.listed(&[]).is_empty());
}

#[test]
fn a_prompt_file_rendered_on_its_own_takes_its_partials_from_beside_it() {
    let lib = Lib::new();
    let dir = lib.file("prompts");
    std::fs::create_dir_all(&dir).expect("dir");
    let write =
        |name: &str, text: &str| std::fs::write(Path::new(&dir).join(name), text).expect("write");
    write(
        "main.prompt",
        "---\nname: main\n---\n[{{> sign}}] [{{> note}}]\n",
    );
    write("sign.prompt", "---\nname: sign\n---\nfrom the file\n");
    // dotprompt names a partial's file with a leading underscore; that one wins.
    write(
        "_sign.prompt",
        "---\nname: sign\n---\nfrom the partial file",
    );
    write(
        "note.prompt",
        "---\nname: note\npromptkind.format: plain\n---\na plain note",
    );
    let out = lib.ok(&["prompt", "render", "--file", &format!("{dir}/main.prompt")]);
    assert_eq!(out.stdout, "[from the partial file] [a plain note]\n");
    std::fs::remove_file(Path::new(&dir).join("note.prompt")).expect("remove");
    let out = lib.run(&["prompt", "render", "--file", &format!("{dir}/main.prompt")]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("main.prompt:4:15: no partial `note`"),
        "{}",
        out.stderr
    );
}
