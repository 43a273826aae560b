//! Loaders never panic, whatever the file holds: arbitrary text, and the bundled
//! examples with bytes cut out or changed.

use std::path::Path;

use proptest::prelude::*;

use crate::test_support::repo_root;

fn example(name: &str) -> String {
    std::fs::read_to_string(repo_root().join(name)).expect("example file")
}

/// Writes `text` to a file and runs every loader that could read it.
fn load_everything(text: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("input");
    std::fs::write(&path, text).expect("write");
    let _ = crate::config::load(&path, true);
    let _ = crate::pack::load(&path);
    let _ = crate::library::load_template_file(&path);
    let _ = crate::provider::load_mock(&path);
    if let Ok(loaded) = crate::pack::load(&path) {
        for prompt in loaded.value.prompts.values() {
            let _ = crate::pack::render_prompt(&loaded.value, prompt, &Default::default());
        }
    }
}

/// The text with `len` bytes from `at` replaced by `with`, kept on char boundaries.
fn mutate(text: &str, at: usize, len: usize, with: &str) -> String {
    let mut start = at.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + len).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    format!("{}{with}{}", &text[..start], &text[end..])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        load_everything(&text);
    }

    #[test]
    fn damaged_examples_never_panic(
        at in 0usize..4000,
        len in 0usize..20,
        with in prop::sample::select(vec!["", "{", "}", "[", "\"", ":", ",", "~", "null", "\n  - x", "\t", "{{", "é"]),
        which in prop::sample::select(vec!["runtimeconfig.example.yaml", "examples/assistant.pack.json", "examples/mock-responses.yaml"]),
    ) {
        load_everything(&mutate(&example(which), at, len, with));
    }
}

#[test]
fn the_examples_load_cleanly() {
    let root = repo_root();
    assert!(crate::config::load(&root.join("runtimeconfig.example.yaml"), true).is_ok());
    assert!(crate::pack::load(&root.join("examples/assistant.pack.json")).is_ok());
    assert!(
        crate::provider::load_mock(Path::new(&root.join("examples/mock-responses.yaml"))).is_ok()
    );
}
