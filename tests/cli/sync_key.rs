//! `prompt sync-receive --key`: a sync packet is taken only by the receiver it names.

use crate::util::{Outcome, promptexec};

/// A directory holding a sender's and two receivers' keys, and a library per receiver.
struct Parties {
    dir: tempfile::TempDir,
}

impl Parties {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// Makes a key file `NAME.key` and returns its did.
    #[track_caller]
    fn keygen(&self, name: &str) -> String {
        let out = promptexec()
            .args(&[
                "prompt",
                "keygen",
                "--out",
                &self.path(&format!("{name}.key")),
            ])
            .run();
        out.expect_code(0);
        out.stdout.trim().to_string()
    }

    /// Runs a `prompt` command against `NAME.db`.
    #[track_caller]
    fn prompt(&self, library: &str, args: &[&str]) -> Outcome {
        let db = self.path(&format!("{library}.db"));
        let mut all = vec!["prompt"];
        all.extend_from_slice(args);
        all.extend(["--library", &db]);
        promptexec().args(&all).run()
    }
}

#[test]
fn a_packet_sent_to_b_is_refused_with_a_key_and_accepted_with_b_key() {
    let parties = Parties::new();
    let sender = parties.keygen("sender");
    let a = parties.keygen("a");
    let b = parties.keygen("b");
    let added = parties.prompt(
        "sender",
        &["add", "library/greeting.json", "--agent", "alice"],
    );
    added.expect_code(0);
    let packet = parties.path("packet.json");
    let sent = parties.prompt(
        "sender",
        &[
            "sync-send",
            "greeting",
            "--sign-key",
            &parties.path("sender.key"),
            "--target",
            &b,
            "-o",
            &packet,
        ],
    );
    sent.expect_code(0);

    let receive = |library: &str, key: &str| {
        parties.prompt(
            library,
            &[
                "sync-receive",
                &packet,
                "--trust",
                &sender,
                "--key",
                &parties.path(key),
            ],
        )
    };
    let refused = receive("a", "a.key");
    refused
        .expect_code(1)
        .stderr_has(&format!(
            "sync packet is addressed to {b}, not to this receiver {a}"
        ))
        .stdout_empty();
    let listed = parties.prompt("a", &["list", "--format", "json"]);
    assert_eq!(
        listed.stdout.trim(),
        "[]",
        "nothing stored: {}",
        listed.stderr
    );

    let accepted = receive("b", "b.key");
    accepted.expect_code(0);
    assert_eq!(
        accepted.stdout,
        format!("received `greeting` from {sender} as version 1\n")
    );
}

#[test]
fn sync_receive_needs_the_receiver_key() {
    let parties = Parties::new();
    let out = parties.prompt(
        "a",
        &["sync-receive", "packet.json", "--trust", "did:key:x"],
    );
    out.expect_code(2);
    out.stderr_has("--key <FILE>");
    let missing = parties.prompt(
        "a",
        &[
            "sync-receive",
            "packet.json",
            "--trust",
            "did:key:x",
            "--key",
            &parties.path("nope.key"),
        ],
    );
    // Names the key file.
    missing.expect_code(2).stderr_has("nope.key");
}
