//! Signed bundles of prompt templates, and PromptKind sync packets: pure builders and
//! checkers, so nothing received is trusted before its signature and signer are.

use std::time::{Duration, SystemTime};

use serde_json::{Map, Value as Json, json};

use super::sign::{KeyPair, SignError, canonical_json, content_hash, sha256_hex, verify};

pub const BUNDLE_FORMAT: &str = "promptexec-bundle/1";

#[derive(Debug, thiserror::Error)]
pub enum ShareError {
    #[error("not a promptexec bundle: {0}")]
    NotBundle(String),
    #[error("unsupported bundle format `{0}` (expected `{BUNDLE_FORMAT}`)")]
    WrongFormat(String),
    #[error("{what} signature does not verify")]
    BadSignature {
        what: &'static str,
        #[source]
        source: SignError,
    },
    #[error("{what} signer {signer} is not trusted (trust it with --trust DID)")]
    NoTrust { what: &'static str, signer: String },
    #[error("{what} signer {signer} is not among the trusted keys")]
    Untrusted { what: &'static str, signer: String },
    #[error("bundle manifest is malformed: {0}")]
    BadManifest(String),
    #[error("bundle manifest lists {manifest} prompts but the bundle holds {prompts}")]
    CountMismatch { manifest: usize, prompts: usize },
    #[error("bundle prompt #{index} has id `{found}` but the manifest says `{expected}`")]
    IdMismatch {
        index: usize,
        expected: String,
        found: String,
    },
    #[error("prompt `{id}` does not match its signed content hash (altered after signing)")]
    HashMismatch { id: String },
    #[error("malformed sync packet: {0}")]
    BadPacket(String),
    #[error("sync packet promptId `{prompt_id}` differs from its promptJSON id `{json_id}`")]
    PromptIdMismatch { prompt_id: String, json_id: String },
    #[error("sync packet timestamp `{0}` is not an RFC 3339 time")]
    BadTimestamp(String),
    #[error("sync packet is addressed to {target}, not to this receiver {receiver}")]
    WrongReceiver { target: String, receiver: String },
    #[error("sync packet is {age} old, beyond the {window} window")]
    TooOld { age: String, window: String },
    #[error("sync packet is {ahead} in the future, beyond the {window} window")]
    FromFuture { ahead: String, window: String },
}

/// One signed line of a bundle manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestEntry {
    pub id: String,
    pub version: u64,
    pub owner: String,
    pub content_hash: String,
}

/// What `verify` shows without `--trust`: authentic content from an unvetted signer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleInfo {
    pub signer: String,
    pub created_at: String,
    pub entries: Vec<ManifestEntry>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct VerifiedPacket {
    pub prompt_id: String,
    pub version: String,
    pub template: Json,
    pub source: String,
    /// Lowercase SHA-256 hex of the whole canonical packet, for refusing replays.
    pub digest: String,
}

fn rfc3339(now: SystemTime) -> String {
    humantime::format_rfc3339_seconds(now).to_string()
}

/// Builds a bundle signed by `key`; each `id` must equal its template's `id`.
pub fn make_bundle(key: &KeyPair, prompts: &[(String, u64, Json)], now: SystemTime) -> Json {
    let entries: Vec<Json> = prompts
        .iter()
        .map(|(id, version, template)| {
            let owner = template.get("owner").and_then(Json::as_str).unwrap_or("");
            json!({
                "id": id,
                "version": version,
                "owner": owner,
                "content_hash": content_hash(template),
            })
        })
        .collect();
    let manifest = json!({
        "signer": key.did(),
        "created_at": rfc3339(now),
        "prompts": entries,
    });
    let signature = key.sign(canonical_json(&manifest).as_bytes());
    let templates: Vec<Json> = prompts.iter().map(|(_, _, t)| t.clone()).collect();
    json!({
        "format": BUNDLE_FORMAT,
        "manifest": manifest,
        "prompts": templates,
        "signature": signature,
    })
}

/// Checks signature, trust and every prompt's hash; returns `(id, version, template)`.
pub fn open_bundle(
    bundle: &Json,
    trusted: &[String],
) -> Result<Vec<(String, u64, Json)>, ShareError> {
    let (signer, manifest) = verified_manifest(bundle)?;
    check_trust("bundle", &signer, trusted)?;
    let info = manifest_info(signer, manifest)?;
    let templates = matched_prompts(bundle, &info.entries)?;
    Ok(info
        .entries
        .into_iter()
        .zip(templates)
        .map(|(entry, template)| (entry.id, entry.version, template.clone()))
        .collect())
}

/// Like [`open_bundle`] but without the trust check, for showing who signed what.
pub fn inspect_bundle(bundle: &Json) -> Result<BundleInfo, ShareError> {
    let (signer, manifest) = verified_manifest(bundle)?;
    let info = manifest_info(signer, manifest)?;
    matched_prompts(bundle, &info.entries)?;
    Ok(info)
}

/// Returns the signer and the manifest once the signature over it verifies; nothing in
/// the manifest is interpreted before that.
fn verified_manifest(bundle: &Json) -> Result<(String, &Json), ShareError> {
    let not_bundle = |why: &str| ShareError::NotBundle(why.to_string());
    let object = bundle
        .as_object()
        .ok_or_else(|| not_bundle("not a JSON object"))?;
    match object.get("format") {
        Some(Json::String(format)) if format == BUNDLE_FORMAT => {}
        Some(Json::String(format)) => return Err(ShareError::WrongFormat(format.clone())),
        _ => return Err(not_bundle("no `format` string")),
    }
    let manifest = object
        .get("manifest")
        .filter(|m| m.is_object())
        .ok_or_else(|| not_bundle("no `manifest` object"))?;
    let signature = object
        .get("signature")
        .and_then(Json::as_str)
        .ok_or_else(|| not_bundle("no `signature` string"))?;
    let signer = manifest
        .get("signer")
        .and_then(Json::as_str)
        .ok_or_else(|| not_bundle("manifest has no `signer` string"))?;
    verify(signer, canonical_json(manifest).as_bytes(), signature).map_err(|source| {
        ShareError::BadSignature {
            what: "bundle",
            source,
        }
    })?;
    Ok((signer.to_string(), manifest))
}

fn check_trust(what: &'static str, signer: &str, trusted: &[String]) -> Result<(), ShareError> {
    if trusted.iter().any(|t| t == signer) {
        return Ok(());
    }
    let signer = signer.to_string();
    Err(if trusted.is_empty() {
        ShareError::NoTrust { what, signer }
    } else {
        ShareError::Untrusted { what, signer }
    })
}

fn manifest_info(signer: String, manifest: &Json) -> Result<BundleInfo, ShareError> {
    let bad = |why: String| ShareError::BadManifest(why);
    let created_at = manifest
        .get("created_at")
        .and_then(Json::as_str)
        .ok_or_else(|| bad("no `created_at` string".into()))?;
    let entries = manifest
        .get("prompts")
        .and_then(Json::as_array)
        .ok_or_else(|| bad("no `prompts` array".into()))?
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            manifest_entry(entry).ok_or_else(|| {
                bad(format!(
                    "entry #{i} needs id, version, owner and content_hash"
                ))
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(BundleInfo {
        signer,
        created_at: created_at.to_string(),
        entries,
    })
}

fn manifest_entry(entry: &Json) -> Option<ManifestEntry> {
    let text = |key: &str| entry.get(key).and_then(Json::as_str).map(str::to_string);
    Some(ManifestEntry {
        id: text("id")?,
        version: entry.get("version")?.as_u64()?,
        owner: text("owner")?,
        content_hash: text("content_hash")?,
    })
}

/// Pairs each signed manifest entry with its template, checking id and content hash.
fn matched_prompts<'a>(
    bundle: &'a Json,
    entries: &[ManifestEntry],
) -> Result<Vec<&'a Json>, ShareError> {
    let prompts = bundle
        .get("prompts")
        .and_then(Json::as_array)
        .ok_or_else(|| ShareError::NotBundle("no `prompts` array".to_string()))?;
    if prompts.len() != entries.len() {
        return Err(ShareError::CountMismatch {
            manifest: entries.len(),
            prompts: prompts.len(),
        });
    }
    for (index, (entry, prompt)) in entries.iter().zip(prompts).enumerate() {
        let found = prompt.get("id").and_then(Json::as_str).unwrap_or("");
        if found != entry.id {
            return Err(ShareError::IdMismatch {
                index,
                expected: entry.id.clone(),
                found: found.to_string(),
            });
        }
        if content_hash(prompt) != entry.content_hash {
            return Err(ShareError::HashMismatch {
                id: entry.id.clone(),
            });
        }
    }
    Ok(prompts.iter().collect())
}

/// Builds a PromptKind `PromptSyncPacket` signed by `key` (the `source`).
pub fn make_packet(
    key: &KeyPair,
    template: &Json,
    version: &str,
    target: &str,
    now: SystemTime,
) -> Json {
    let prompt_id = template.get("id").and_then(Json::as_str).unwrap_or("");
    let mut packet = json!({
        "promptId": prompt_id,
        "version": version,
        "promptJSON": template,
        "signature": "",
        "timestamp": rfc3339(now),
        "source": key.did(),
        "target": target,
    });
    if let Some(object) = packet.as_object() {
        let signature = key.sign(signed_packet_bytes(object).as_bytes());
        packet["signature"] = Json::String(signature);
    }
    packet
}

/// What a packet's signature covers: the canonical packet without its `signature`.
fn signed_packet_bytes(packet: &Map<String, Json>) -> String {
    let mut unsigned = packet.clone();
    unsigned.remove("signature");
    canonical_json(&Json::Object(unsigned))
}

/// Who may accept a packet, from whom, and when.
#[derive(Debug, Clone, Copy)]
pub struct Receiving<'a> {
    /// The receiver's own did: a packet's `target` must name it.
    pub receiver: &'a str,
    pub trusted: &'a [String],
    pub now: SystemTime,
    pub window: Duration,
}

/// Checks shape, signature, receiver, trust, promptId and freshness (`now` ± `window`).
pub fn check_packet(packet: &Json, receiving: Receiving<'_>) -> Result<VerifiedPacket, ShareError> {
    let Receiving {
        receiver,
        trusted,
        now,
        window,
    } = receiving;
    let object = packet
        .as_object()
        .ok_or_else(|| ShareError::BadPacket("not a JSON object".to_string()))?;
    let field = |name: &str| packet_str(object, name);
    let (prompt_id, version, signature) =
        (field("promptId")?, field("version")?, field("signature")?);
    let (timestamp, source) = (field("timestamp")?, field("source")?);
    let target = field("target")?;
    let template = object
        .get("promptJSON")
        .filter(|t| t.is_object())
        .ok_or_else(|| ShareError::BadPacket("`promptJSON` must be an object".to_string()))?;

    verify(source, signed_packet_bytes(object).as_bytes(), signature).map_err(|source| {
        ShareError::BadSignature {
            what: "sync packet",
            source,
        }
    })?;
    // Checked only once signed: a packet meant for someone else is not ours to store.
    if target != receiver {
        return Err(ShareError::WrongReceiver {
            target: target.to_string(),
            receiver: receiver.to_string(),
        });
    }
    check_trust("sync packet", source, trusted)?;
    let json_id = template.get("id").and_then(Json::as_str).unwrap_or("");
    if json_id != prompt_id {
        return Err(ShareError::PromptIdMismatch {
            prompt_id: prompt_id.to_string(),
            json_id: json_id.to_string(),
        });
    }
    check_fresh(timestamp, now, window)?;
    Ok(VerifiedPacket {
        prompt_id: prompt_id.to_string(),
        version: version.to_string(),
        template: template.clone(),
        source: source.to_string(),
        digest: sha256_hex(canonical_json(packet).as_bytes()),
    })
}

fn packet_str<'a>(packet: &'a Map<String, Json>, name: &str) -> Result<&'a str, ShareError> {
    match packet.get(name) {
        Some(Json::String(text)) => Ok(text),
        Some(_) => Err(ShareError::BadPacket(format!("`{name}` must be a string"))),
        None => Err(ShareError::BadPacket(format!("missing `{name}`"))),
    }
}

/// Bounds replay exposure: the store remembers digests only for packets inside the window.
fn check_fresh(timestamp: &str, now: SystemTime, window: Duration) -> Result<(), ShareError> {
    let at = humantime::parse_rfc3339_weak(timestamp)
        .map_err(|_| ShareError::BadTimestamp(timestamp.to_string()))?;
    let show = |d: Duration| humantime::format_duration(d).to_string();
    match now.duration_since(at) {
        Ok(age) if age > window => Err(ShareError::TooOld {
            age: show(age),
            window: show(window),
        }),
        Ok(_) => Ok(()),
        Err(future) if future.duration() > window => Err(ShareError::FromFuture {
            ahead: show(future.duration()),
            window: show(window),
        }),
        Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIVE_MINUTES: Duration = Duration::from_secs(300);

    fn key(byte: u8) -> KeyPair {
        KeyPair::from_seed_hex(&format!("{byte:02x}").repeat(32)).expect("seed")
    }

    fn t0() -> SystemTime {
        humantime::parse_rfc3339("2025-06-01T12:00:00Z").expect("time")
    }

    fn template(id: &str) -> Json {
        json!({
            "id": id, "title": "Greeting", "template": "Hello {{name}}", "slots": ["name"],
            "tags": ["demo"], "owner": "alice", "auditable": true, "version": "1",
            "metadata": {"b": 2, "a": 1},
        })
    }

    fn bundle() -> (KeyPair, Json) {
        let k = key(1);
        let prompts = vec![
            ("greet".to_string(), 3, template("greet")),
            ("bye".to_string(), 1, template("bye")),
        ];
        let b = make_bundle(&k, &prompts, t0());
        (k, b)
    }

    #[test]
    fn bundle_round_trips() {
        let (k, b) = bundle();
        assert_eq!(b["format"], BUNDLE_FORMAT);
        assert_eq!(b["manifest"]["created_at"], "2025-06-01T12:00:00Z");
        // A JSON text round trip (reordered keys included) must not break it.
        let text = serde_json::to_string_pretty(&b).expect("serializes");
        let reread: Json = serde_json::from_str(&text).expect("parses");
        let opened = open_bundle(&reread, &[k.did()]).expect("opens");
        assert_eq!(opened.len(), 2);
        assert_eq!(opened[0], ("greet".to_string(), 3, template("greet")));
        let info = inspect_bundle(&b).expect("inspects");
        assert_eq!(info.signer, k.did());
        assert_eq!(info.entries[1].id, "bye");
        assert_eq!(info.entries[1].owner, "alice");
    }

    #[test]
    fn altered_manifest_byte_is_a_bad_signature() {
        let (k, mut b) = bundle();
        b["manifest"]["prompts"][0]["version"] = json!(4);
        assert!(matches!(
            open_bundle(&b, &[k.did()]),
            Err(ShareError::BadSignature { .. })
        ));
        let (k, mut b) = bundle();
        let hash = b["manifest"]["prompts"][1]["content_hash"]
            .as_str()
            .expect("hash")
            .to_string();
        let last = if hash.ends_with('0') { "1" } else { "0" };
        b["manifest"]["prompts"][1]["content_hash"] =
            json!(format!("{}{last}", &hash[..hash.len() - 1]));
        assert!(matches!(
            inspect_bundle(&b),
            Err(ShareError::BadSignature { .. })
        ));
        assert!(matches!(
            open_bundle(&b, &[k.did()]),
            Err(ShareError::BadSignature { .. })
        ));
    }

    #[test]
    fn prompt_altered_after_signing_is_named() {
        let (k, mut b) = bundle();
        b["prompts"][1]["template"] = json!("Goodbye {{name}}!");
        let err = open_bundle(&b, &[k.did()]).expect_err("refused");
        assert!(matches!(&err, ShareError::HashMismatch { id } if id == "bye"));
        assert!(err.to_string().contains("`bye`"), "{err}");
    }

    #[test]
    fn prompt_swaps_and_drops_are_refused() {
        let (k, mut b) = bundle();
        b["prompts"][1]["id"] = json!("other");
        assert!(matches!(
            open_bundle(&b, &[k.did()]),
            Err(ShareError::IdMismatch { index: 1, .. })
        ));
        let (k, mut b) = bundle();
        b["prompts"].as_array_mut().expect("array").pop();
        assert!(matches!(
            open_bundle(&b, &[k.did()]),
            Err(ShareError::CountMismatch {
                manifest: 2,
                prompts: 1
            })
        ));
    }

    #[test]
    fn untrusted_signer_is_refused() {
        let (_, b) = bundle();
        let err = open_bundle(&b, &[]).expect_err("no trust");
        assert!(matches!(err, ShareError::NoTrust { .. }));
        assert!(err.to_string().contains("--trust DID"), "{err}");
        assert!(matches!(
            open_bundle(&b, &[key(2).did()]),
            Err(ShareError::Untrusted { .. })
        ));
    }

    #[test]
    fn non_bundles_are_refused() {
        assert!(matches!(
            open_bundle(&json!([1]), &[]),
            Err(ShareError::NotBundle(_))
        ));
        let (k, mut b) = bundle();
        b["format"] = json!("promptexec-bundle/9");
        assert!(matches!(
            open_bundle(&b, &[k.did()]),
            Err(ShareError::WrongFormat(_))
        ));
    }

    /// The receiver every test packet is addressed to.
    static ME: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| key(4).did());

    fn me() -> String {
        ME.clone()
    }

    fn to_me(trusted: &[String], now: SystemTime) -> Receiving<'_> {
        Receiving {
            receiver: &ME,
            trusted,
            now,
            window: FIVE_MINUTES,
        }
    }

    #[test]
    fn a_packet_for_another_receiver_is_refused_naming_both() {
        let (k, p) = packet();
        let other = key(5).did();
        let err = check_packet(
            &p,
            Receiving {
                receiver: &other,
                trusted: &[k.did()],
                now: t0(),
                window: FIVE_MINUTES,
            },
        )
        .expect_err("not ours");
        assert!(matches!(err, ShareError::WrongReceiver { .. }));
        let text = err.to_string();
        assert!(text.contains(&me()) && text.contains(&other), "{text}");
    }

    fn packet() -> (KeyPair, Json) {
        let k = key(3);
        let p = make_packet(&k, &template("greet"), "2", &me(), t0());
        (k, p)
    }

    #[test]
    fn packet_round_trips() {
        let (k, p) = packet();
        let keys: Vec<&str> = p
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "promptId",
                "version",
                "promptJSON",
                "signature",
                "timestamp",
                "source",
                "target"
            ]
        );
        let checked = check_packet(&p, to_me(&[k.did()], t0())).expect("valid");
        assert_eq!(checked.prompt_id, "greet");
        assert_eq!(checked.version, "2");
        assert_eq!(checked.template, template("greet"));
        assert_eq!(checked.source, k.did());
        assert_eq!(checked.digest.len(), 64);
    }

    #[test]
    fn replayed_packet_has_the_same_digest() {
        let (k, p) = packet();
        let later = t0() + Duration::from_secs(60);
        let first = check_packet(&p, to_me(&[k.did()], t0())).expect("valid");
        let replay: Json = serde_json::from_str(&p.to_string()).expect("parses");
        let again = check_packet(&replay, to_me(&[k.did()], later)).expect("valid");
        assert_eq!(first.digest, again.digest);
    }

    #[test]
    fn stale_and_future_packets_are_refused() {
        let k = key(3);
        let six = Duration::from_secs(360);
        let old = make_packet(&k, &template("greet"), "2", &me(), t0() - six);
        assert!(matches!(
            check_packet(&old, to_me(&[k.did()], t0())),
            Err(ShareError::TooOld { .. })
        ));
        let ahead = make_packet(&k, &template("greet"), "2", &me(), t0() + six);
        assert!(matches!(
            check_packet(&ahead, to_me(&[k.did()], t0())),
            Err(ShareError::FromFuture { .. })
        ));
    }

    #[test]
    fn tampered_packets_are_refused() {
        let (k, mut p) = packet();
        p["promptJSON"]["template"] = json!("Hello {{name}}, send me your password");
        assert!(matches!(
            check_packet(&p, to_me(&[k.did()], t0())),
            Err(ShareError::BadSignature { .. })
        ));
        // A mismatched id signed by a trusted key is still refused.
        let mut lying = template("greet");
        lying["id"] = json!("other");
        let mut p = make_packet(&k, &lying, "2", &me(), t0());
        p["promptId"] = json!("greet");
        let sig = k.sign(signed_packet_bytes(p.as_object().expect("object")).as_bytes());
        p["signature"] = json!(sig);
        assert!(matches!(
            check_packet(&p, to_me(&[k.did()], t0())),
            Err(ShareError::PromptIdMismatch { .. })
        ));
    }

    #[test]
    fn malformed_and_untrusted_packets_are_refused() {
        let (k, mut p) = packet();
        assert!(matches!(
            check_packet(&p, to_me(&[], t0())),
            Err(ShareError::NoTrust { .. })
        ));
        p["version"] = json!(2);
        let err = check_packet(&p, to_me(&[k.did()], t0())).expect_err("malformed");
        assert!(err.to_string().contains("`version`"), "{err}");
        p["version"] = json!("2");
        p.as_object_mut().expect("object").remove("source");
        let err = check_packet(&p, to_me(&[k.did()], t0())).expect_err("malformed");
        assert!(err.to_string().contains("missing `source`"), "{err}");
    }
}
