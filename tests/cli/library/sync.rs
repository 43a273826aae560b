//! Sync packets: accepted once, inside their time window, from a trusted key.

use std::time::{Duration, SystemTime};

use promptexec::library::{KeyPair, make_packet};
use serde_json::Value as Json;

use super::{Lib, keygen};
use crate::util::fixtures;

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
    // The same arguments twice: the second receipt is the replay.
    let receive: [&str; 7] = [
        "prompt",
        "sync-receive",
        &packet,
        "--trust",
        &did,
        "--key",
        &receiver_key,
    ];
    let first = receiver.ok(&receive);
    assert_eq!(
        first.stdout,
        format!("received `greeting` from {did} as version 1\n")
    );
    let replay = receiver.run(&receive);
    replay.expect_code(1);
    replay.stderr_has("this sync packet was received before");
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
    out.expect_code(1);
    out.stderr_has("old, beyond the 5m window");
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
