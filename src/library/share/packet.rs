//! PromptKind sync packets: one prompt, signed by its source and addressed to one
//! receiver, accepted only while fresh.

use std::time::{Duration, SystemTime};

use serde_json::{Map, Value as Json, json};

use super::super::sign::{KeyPair, canonical_json, sha256_hex, verify};
use super::{ShareError, check_trust, rfc3339};

#[derive(Debug, Clone, PartialEq)]
pub struct VerifiedPacket {
    pub prompt_id: String,
    pub version: String,
    pub template: Json,
    pub source: String,
    /// Lowercase SHA-256 hex of the whole canonical packet, for refusing replays.
    pub digest: String,
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
    use super::super::tests::{key, t0, template};
    use super::*;

    const FIVE_MINUTES: Duration = Duration::from_secs(300);

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
        let keys: Vec<String> = p.as_object().expect("object").keys().cloned().collect();
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
