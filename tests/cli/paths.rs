//! Where promptexec's files land: snapshots, recordings and transcripts named after
//! a case file or a scenario id stay inside their folder whatever the name; a key
//! file is written whole or not at all; paths that are not UTF-8 are opened as given.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::util::{Outcome, fixtures, promptexec};

fn paths_fixture(name: &str) -> PathBuf {
    fixtures().join("paths").join(name)
}

/// Every file below `dir`, relative to it, in name order.
fn files_below(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in std::fs::read_dir(&current).expect("a readable folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path.strip_prefix(dir).expect("below the folder");
                found.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    found.sort();
    found
}

#[test]
fn a_case_file_named_dot_dot_dot_yaml_keeps_its_snapshot_inside_snapshots() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cases = std::fs::read_to_string(paths_fixture("victim.cases.yaml")).expect("fixture");
    std::fs::write(dir.path().join("...yaml"), cases).expect("the case file");
    // Where `__snapshots__/../victim.json` would land.
    let victim = dir.path().join("victim.json");
    std::fs::write(&victim, "precious\n").expect("the victim");

    let out = promptexec()
        .in_dir(dir.path())
        .arg("-c")
        .arg(paths_fixture("paths.yaml"))
        .args(["test", "...yaml", "--update-snapshots"])
        .run();
    out.expect_code(0)
        .stderr_has("snapshot written to __snapshots__/_./victim.json");
    assert_eq!(
        std::fs::read_to_string(&victim).expect("the victim"),
        "precious\n"
    );
    assert_eq!(
        files_below(dir.path()),
        ["...yaml", "__snapshots__/_./victim.json", "victim.json"]
    );
    let stored = std::fs::read_to_string(dir.path().join("__snapshots__/_./victim.json"))
        .expect("the snapshot");
    assert!(stored.contains(r#""text": "hi""#), "{stored}");

    // The snapshot is found again where it was written.
    promptexec()
        .in_dir(dir.path())
        .arg("-c")
        .arg(paths_fixture("paths.yaml"))
        .args(["test", "...yaml"])
        .run()
        .expect_code(0)
        .stderr_has("PASS  ...yaml: victim");
}

/// `run` of the path fixtures' suite (scenario ids `../x` and `..`) in `dir`.
fn suite_in(dir: &Path, flags: &[&str]) -> Outcome {
    promptexec()
        .in_dir(dir)
        .arg("-c")
        .arg(paths_fixture("paths.yaml"))
        .arg("run")
        .arg(paths_fixture("paths.pack.json"))
        .arg(paths_fixture("scenarios"))
        .args(flags)
        .run()
}

#[test]
fn scenario_ids_that_climb_out_or_run_long_write_their_files_inside_their_folders() {
    let dir = tempfile::tempdir().expect("temp dir");
    let victims = [
        "x.recording.json",
        "x.jsonl",
        "rec/x.recording.json",
        "tr/x.jsonl",
    ];
    for name in victims {
        let path = dir.path().join("out").join(name);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("folders");
        std::fs::write(&path, "precious\n").expect("a victim");
    }
    suite_in(
        dir.path(),
        &["--record-dir", "out/rec/in", "--transcript", "out/tr/in"],
    )
    .expect_code(0)
    .stderr_has("3 passed");
    for name in victims {
        let path = dir.path().join("out").join(name);
        assert_eq!(
            std::fs::read_to_string(&path).expect("a victim"),
            "precious\n",
            "{name}"
        );
    }
    // An id of 305 characters: its first 183 and 16 hex digits of its SHA-256.
    let long = format!("long-{}-fcf15a5d14b284b2", "a".repeat(178));
    assert_eq!(
        files_below(&dir.path().join("out")),
        [
            "rec/in/_..recording.json".to_string(),
            "rec/in/_._x.recording.json".to_string(),
            format!("rec/in/{long}.recording.json"),
            "rec/x.recording.json".to_string(),
            "tr/in/_..jsonl".to_string(),
            "tr/in/_._x.jsonl".to_string(),
            format!("tr/in/{long}.jsonl"),
            "tr/x.jsonl".to_string(),
            "x.jsonl".to_string(),
            "x.recording.json".to_string(),
        ]
    );

    // --replay-dir looks them up by the same names.
    suite_in(dir.path(), &["--replay-dir", "out/rec/in"])
        .expect_code(0)
        .stderr_has("3 passed");
}

/// A folder named by the single byte 0xFF (not UTF-8) inside `dir`, created.
fn not_utf8_folder(dir: &Path) -> PathBuf {
    let folder = dir.join(OsStr::from_bytes(b"\xff"));
    std::fs::create_dir(&folder).expect("a folder named 0xFF");
    assert!(folder.to_str().is_none(), "the name is not UTF-8");
    folder
}

#[test]
fn a_bundle_at_a_path_that_is_not_utf8_exports_verifies_and_imports() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = not_utf8_folder(dir.path());
    let key = folder.join("signer.key");
    let bundle = folder.join("bundle.json");
    let source = dir.path().join("source.db");
    let target = folder.join("target.db");

    let made = promptexec()
        .arg("prompt")
        .arg("keygen")
        .arg("--out")
        .arg(&key)
        .run();
    made.expect_code(0);
    let did = made.stdout.trim_end().to_string();
    promptexec()
        .args(["prompt", "add", "library/greeting.json", "--library"])
        .arg(&source)
        .run()
        .expect_code(0);
    promptexec()
        .args(["prompt", "export", "greeting", "--sign-key"])
        .arg(&key)
        .arg("-o")
        .arg(&bundle)
        .arg("--library")
        .arg(&source)
        .run()
        .expect_code(0);
    assert!(bundle.is_file(), "the bundle is written");

    promptexec()
        .args(["prompt", "verify"])
        .arg(&bundle)
        .args(["--trust", &did])
        .run()
        .expect_code(0)
        .stdout_has("the bundle is intact");
    let imported = promptexec()
        .args(["prompt", "import"])
        .arg(&bundle)
        .args(["--trust", &did, "--format", "json", "--library"])
        .arg(&target)
        .run();
    imported.expect_code(0);
    assert_eq!(
        imported.json(),
        serde_json::json!([{"id": "greeting", "version": 1}])
    );
    assert!(target.is_file(), "the library is created in the folder");
}

#[test]
fn a_config_and_a_pack_at_paths_that_are_not_utf8_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = not_utf8_folder(dir.path());
    for name in ["paths.mock.yaml", "paths.pack.json"] {
        std::fs::copy(paths_fixture(name), folder.join(name)).expect("a copy");
    }
    std::fs::write(
        folder.join("paths.yaml"),
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  providers:\n    - id: mock\n      type: mock\n      additional_config:\n        mock_config: paths.mock.yaml\n",
    )
    .expect("the config");
    let transcript = folder.join("run.jsonl");
    let messages = folder.join("messages.txt");
    std::fs::write(&messages, "hi\n").expect("the messages");
    promptexec()
        .arg("-c")
        .arg(folder.join("paths.yaml"))
        .arg("run")
        .arg(folder.join("paths.pack.json"))
        .arg("--messages-from")
        .arg(&messages)
        .arg("--transcript")
        .arg(&transcript)
        .run()
        .expect_code(0)
        .stderr_has("assistant: Done.");
    assert!(transcript.is_file(), "the transcript is written");

    // The transcript is read back by its raw path.
    promptexec()
        .arg("-c")
        .arg(folder.join("paths.yaml"))
        .args(["eval", "--pack"])
        .arg(folder.join("paths.pack.json"))
        .arg("--transcript")
        .arg(&transcript)
        .run()
        .expect_code(0)
        .stderr_has("over ");

    // A scenario file whose own name is not UTF-8 is found in its folder.
    let scenarios = folder.join("scenarios");
    std::fs::create_dir(&scenarios).expect("a scenarios folder");
    let name = OsStr::from_bytes(b"\xFE.scenario.yaml");
    std::fs::copy(
        paths_fixture("scenarios/escape.scenario.yaml"),
        scenarios.join(name),
    )
    .expect("a scenario");
    promptexec()
        .arg("-c")
        .arg(folder.join("paths.yaml"))
        .arg("run")
        .arg(folder.join("paths.pack.json"))
        .arg(&scenarios)
        .run()
        .expect_code(0)
        .stderr_has("1 passed");
}

#[test]
fn a_key_write_that_fails_leaves_no_key_file_and_a_retry_succeeds() {
    let dir = tempfile::tempdir().expect("temp dir");
    let key = dir.path().join("me.key");
    // No file may grow past 0 bytes: a full disk. With SIGXFSZ ignored, the write
    // fails with EFBIG rather than killing the process.
    let failed = promptexec()
        .after_shell("trap '' XFSZ; ulimit -f 0")
        .arg("prompt")
        .arg("keygen")
        .arg("--out")
        .arg(&key)
        .run();
    failed
        .expect_code(2)
        .stderr_has("cannot write")
        .stderr_has("File too large")
        .stdout_empty();
    assert_eq!(
        files_below(dir.path()),
        Vec::<String>::new(),
        "nothing left"
    );

    let made = promptexec()
        .arg("prompt")
        .arg("keygen")
        .arg("--out")
        .arg(&key)
        .run();
    made.expect_code(0);
    assert!(made.stdout.starts_with("did:key:z6Mk"), "{}", made.stdout);
    assert_eq!(files_below(dir.path()), ["me.key", "me.key.pub"]);
}
