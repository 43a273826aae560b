//! `--output FILE` writes where the user pointed, as the shell's `>` would: through
//! symlinks, into devices and FIFOs, with the umask's mode for new files.

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;

use crate::util::{Outcome, promptexec};

const REPORT_START: &str = "{\n  \"eval_id\": \"contains\"";

/// A one-eval report written to `target`.
#[track_caller]
fn eval_to(target: &Path) -> Outcome {
    promptexec()
        .args(&[
            "eval",
            "contains",
            "--content",
            "Thank you",
            "--params",
            r#"{"patterns": ["thank"]}"#,
            "--output",
            &target.display().to_string(),
        ])
        .run()
}

/// The same, with the given umask (set by a shell in front of the binary).
#[track_caller]
fn eval_under_umask(umask: &str, target: &Path) -> Outcome {
    promptexec()
        .after_shell(&format!("umask {umask}"))
        .args(["eval", "contains", "--content", "hi", "--params"])
        .arg(r#"{"patterns": ["hi"]}"#)
        .arg("--output")
        .arg(target)
        .run()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).expect("stat").permissions().mode() & 0o777
}

#[test]
fn output_to_dev_null_leaves_it_a_character_device() {
    let out = eval_to(Path::new("/dev/null"));
    out.expect_code(0).stdout_empty();
    let meta = std::fs::symlink_metadata("/dev/null").expect("/dev/null");
    assert!(meta.file_type().is_char_device(), "{meta:?}");
    assert_eq!(std::fs::read("/dev/null").expect("reads"), b"");
}

#[test]
fn output_through_a_symlink_writes_the_target_and_keeps_the_link() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("reports")).expect("mkdir");
    let target = dir.path().join("reports/latest.json");
    std::fs::write(&target, "old").expect("write");
    let link = dir.path().join("report.json");
    std::os::unix::fs::symlink("reports/latest.json", &link).expect("link");

    let out = eval_to(&link);
    out.expect_code(0);
    let meta = std::fs::symlink_metadata(&link).expect("the link");
    assert!(meta.file_type().is_symlink(), "the link is still a link");
    let written = std::fs::read_to_string(&target).expect("the target");
    assert!(written.starts_with(REPORT_START), "{written}");
    let leftovers = std::fs::read_dir(dir.path().join("reports")).expect("list");
    assert_eq!(leftovers.count(), 1, "no temporary file beside the target");
}

#[test]
fn a_dangling_symlink_creates_its_target() {
    let dir = tempfile::tempdir().expect("temp dir");
    let link = dir.path().join("report.json");
    std::os::unix::fs::symlink("new.json", &link).expect("link");
    let out = eval_to(&link);
    out.expect_code(0);
    assert!(std::fs::symlink_metadata(&link).expect("link").is_symlink());
    let written = std::fs::read_to_string(dir.path().join("new.json")).expect("target");
    assert!(written.starts_with(REPORT_START), "{written}");
}

#[test]
fn a_new_file_gets_the_umask_mode() {
    let dir = tempfile::tempdir().expect("temp dir");
    let open = dir.path().join("open.json");
    eval_under_umask("022", &open).expect_code(0);
    assert_eq!(mode(&open), 0o644);
    let private = dir.path().join("private.json");
    eval_under_umask("077", &private).expect_code(0);
    assert_eq!(mode(&private), 0o600);
}

#[test]
fn an_existing_file_keeps_its_mode() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("report.json");
    std::fs::write(&path, "old").expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    eval_under_umask("022", &path).expect_code(0);
    assert_eq!(mode(&path), 0o640);
    let written = std::fs::read_to_string(&path).expect("read");
    assert!(written.starts_with(REPORT_START), "{written}");
}

#[test]
fn a_private_key_is_0600_whatever_the_umask() {
    let dir = tempfile::tempdir().expect("temp dir");
    let key = dir.path().join("me.key");
    let keygen = promptexec()
        .after_shell("umask 000")
        .args(["prompt", "keygen", "--out"])
        .arg(&key)
        .run();
    keygen.expect_code(0);
    assert_eq!(mode(&key), 0o600);
}

#[test]
fn a_fifo_receives_the_report() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).expect("reads the fifo"))
    };
    let out = eval_to(&fifo);
    out.expect_code(0);
    let received = reader.join().expect("reader thread");
    assert!(received.starts_with(REPORT_START), "{received}");
    let meta = std::fs::symlink_metadata(&fifo).expect("the fifo");
    assert!(meta.file_type().is_fifo(), "still a FIFO");
}
