//! Bundles: a manifest of prompts (id, version, owner, content hash) signed by one key,
//! with the prompts it lists.

use std::time::SystemTime;

use serde_json::{Value as Json, json};

use super::super::prompt_file::to_prompt_file;
use super::super::sign::{KeyPair, canonical_json, content_hash, sha256_hex, verify};
use super::{BUNDLE_FORMAT, ShareError, check_trust, rfc3339};

/// One signed line of a bundle manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestEntry {
    pub id: String,
    pub version: u64,
    pub owner: String,
    pub content_hash: String,
    /// The signed hash of the prompt's `.prompt` file (bundles made before files
    /// travelled with them have none).
    pub prompt_file_hash: Option<String>,
}

/// What `verify` shows without `--trust`: authentic content from an unvetted signer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleInfo {
    pub signer: String,
    pub created_at: String,
    pub entries: Vec<ManifestEntry>,
}

/// Builds a bundle signed by `key`; each `id` must equal its template's `id`, and no
/// id may come twice. Each prompt travels as library JSON and as its `.prompt` file,
/// both covered by the signature.
pub fn make_bundle(
    key: &KeyPair,
    prompts: &[(String, u64, Json)],
    now: SystemTime,
) -> Result<Json, ShareError> {
    refuse_duplicates(prompts.iter().map(|(id, _, _)| id.as_str()))?;
    let files: Vec<String> = prompts.iter().map(|(_, _, t)| to_prompt_file(t)).collect();
    let entries: Vec<Json> = prompts
        .iter()
        .zip(&files)
        .map(|((id, version, template), file)| {
            let owner = template.get("owner").and_then(Json::as_str).unwrap_or("");
            json!({
                "id": id,
                "version": version,
                "owner": owner,
                "content_hash": content_hash(template),
                "prompt_file_hash": format!("sha256:{}", sha256_hex(file.as_bytes())),
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
    Ok(json!({
        "format": BUNDLE_FORMAT,
        "manifest": manifest,
        "prompts": templates,
        "prompt_files": files,
        "signature": signature,
    }))
}

/// The first id that comes twice, as an error.
fn refuse_duplicates<'a>(ids: impl Iterator<Item = &'a str>) -> Result<(), ShareError> {
    let mut seen = std::collections::HashSet::new();
    for id in ids {
        if !seen.insert(id) {
            return Err(ShareError::DuplicateId { id: id.to_string() });
        }
    }
    Ok(())
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
    let entries: Vec<ManifestEntry> = entries;
    refuse_duplicates(entries.iter().map(|e| e.id.as_str()))?;
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
        prompt_file_hash: text("prompt_file_hash"),
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
        check_prompt_file(bundle, index, entry)?;
    }
    Ok(prompts.iter().collect())
}

/// A signed `.prompt` file must be there and hash as signed. (Whether its template
/// is valid is checked with the prompt's JSON, when it is imported.)
fn check_prompt_file(bundle: &Json, index: usize, entry: &ManifestEntry) -> Result<(), ShareError> {
    let Some(signed) = &entry.prompt_file_hash else {
        return Ok(());
    };
    let mismatch = || ShareError::PromptFileMismatch {
        id: entry.id.clone(),
    };
    let text = bundle["prompt_files"][index]
        .as_str()
        .ok_or_else(mismatch)?;
    if format!("sha256:{}", sha256_hex(text.as_bytes())) != *signed {
        return Err(mismatch());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::{key, t0, template};
    use super::*;

    fn bundle() -> (KeyPair, Json) {
        let k = key(1);
        let prompts = vec![
            ("greet".to_string(), 3, template("greet")),
            ("bye".to_string(), 1, template("bye")),
        ];
        let b = make_bundle(&k, &prompts, t0()).expect("ids differ");
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
    fn each_prompt_travels_as_its_prompt_file_too() {
        let (k, b) = bundle();
        let file = b["prompt_files"][0].as_str().expect("a .prompt file");
        assert!(file.starts_with("---\nname: greet\n"), "{file}");
        assert!(file.ends_with("---\nHello {{name}}"), "{file}");
        let (_, mut altered) = bundle();
        altered["prompt_files"][1] = json!(file.replace("greet", "bye").replace("Hello", "Bye"));
        let err = open_bundle(&altered, &[k.did()]).expect_err("refused");
        assert!(
            matches!(&err, ShareError::PromptFileMismatch { id } if id == "bye"),
            "{err}"
        );
    }

    #[test]
    fn an_id_twice_is_refused_when_made_and_when_opened() {
        let k = key(1);
        let twice = vec![
            ("greet".to_string(), 1, template("greet")),
            ("greet".to_string(), 2, template("greet")),
        ];
        let err = make_bundle(&k, &twice, t0()).expect_err("refused");
        assert_eq!(
            err.to_string(),
            "prompt `greet` is in the bundle twice; a bundle holds each prompt once"
        );
        // A bundle signed with a repeated id by another tool is refused as well.
        let (k, mut b) = bundle();
        b["manifest"]["prompts"][1] = b["manifest"]["prompts"][0].clone();
        b["prompts"][1] = b["prompts"][0].clone();
        b["prompt_files"][1] = b["prompt_files"][0].clone();
        b["signature"] = json!(k.sign(canonical_json(&b["manifest"]).as_bytes()));
        assert!(
            matches!(open_bundle(&b, &[k.did()]), Err(ShareError::DuplicateId { id }) if id == "greet")
        );
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
}
