//! Keys and signed bundles: keygen, export, verify and import, all or nothing.

use std::os::unix::fs::PermissionsExt;
use std::time::SystemTime;

use promptexec::library::{KeyPair, make_bundle};
use serde_json::{Value as Json, json};

use super::{Lib, ids, keygen, library_fixture};
use crate::util::promptexec;

#[test]
fn keygen_prints_a_did_key_writes_a_private_key_file_and_never_overwrites_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let key = dir.path().join("me.key");
    let key_arg = key.display().to_string();
    let made = promptexec()
        .args(&["prompt", "keygen", "--out", &key_arg])
        .run();
    made.expect_code(0);
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

    let again = promptexec()
        .args(&["prompt", "keygen", "--out", &key_arg])
        .run();
    again.expect_code(2);
    again.stderr_has("already exists; refusing to overwrite it");
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
    let verified = promptexec().args(&["prompt", "verify", &ex.bundle]).run();
    verified.expect_code(0);
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
    let trusted = promptexec()
        .args(&[
            "prompt", "verify", &ex.bundle, "--trust", &ex.did, "--format", "json",
        ])
        .run();
    trusted.expect_code(0);
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
            let verified = promptexec().args(&["prompt", "verify", &bundle]).run();
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
    // Bob's own summarize, not the bundle's: importing it would be a change.
    let mut own: Json = serde_json::from_str(
        &std::fs::read_to_string(crate::util::fixtures().join(library_fixture("summarize.json")))
            .expect("reads the fixture"),
    )
    .expect("JSON");
    own["title"] = json!("Bob's summary");
    let own_file = other.file("summarize.json");
    std::fs::write(&own_file, own.to_string()).expect("writes bob's template");
    other.ok(&["prompt", "add", &own_file, "--agent", "bob"]);
    other.ok(&["prompt", "lock", "summarize"]);
    let out = other.run(&["prompt", "import", &ex.bundle, "--trust", &ex.did]);
    out.expect_code(1);
    out.stderr_has("prompt `summarize` is locked");
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
fn a_signed_bundle_carrying_an_invalid_template_imports_nothing_and_names_it() {
    let lib = Lib::new();
    let key = KeyPair::generate().expect("a key");
    let good = json!({"id": "good", "title": "Good", "template": "Hi {{who}}", "slots": ["who"]});
    let bad = json!({"id": "bad", "title": "Bad", "template": "Hi {{whom}}", "slots": ["who"]});
    let bundle = make_bundle(
        &key,
        &[("good".into(), 1, good), ("bad".into(), 1, bad)],
        SystemTime::now(),
    )
    .expect("each id once");
    let path = lib.file("bundle.json");
    std::fs::write(&path, bundle.to_string()).expect("writes the bundle");
    let out = lib.run(&["prompt", "import", &path, "--trust", &key.did()]);
    out.expect_code(2);
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

#[test]
fn a_prompt_named_twice_makes_no_bundle_and_each_prompt_travels_as_its_prompt_file() {
    let ex = exported();
    let key = ex.lib.file("signer.key");
    let twice = ex.lib.file("twice.json");
    let out = ex.lib.run(&[
        "prompt",
        "export",
        "greeting",
        "greeting",
        "--sign-key",
        &key,
        "-o",
        &twice,
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("prompt `greeting` is in the bundle twice; a bundle holds each prompt once"),
        "{}",
        out.stderr
    );
    assert!(!std::path::Path::new(&twice).exists());
    let bundle: Json =
        serde_json::from_str(&std::fs::read_to_string(&ex.bundle).expect("bundle")).expect("JSON");
    let file = bundle["prompt_files"][0].as_str().expect("a .prompt file");
    assert!(file.starts_with("---\nname: greeting\n"), "{file}");
    assert!(
        file.ends_with("---\nGreet {{name}} in a {{tone}} tone and confirm account {{account}}."),
        "{file}"
    );
}
