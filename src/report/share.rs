//! What the sharing commands show (`prompt verify|import|sync-receive`): each answer
//! as a record, written as JSON or as text.

use serde::Serialize;
use serde_json::json;

use crate::library::BundleInfo;

use super::library::Answer;

/// One sharing command's answer.
#[derive(Debug, Clone)]
pub(crate) enum ShareAnswer<'a> {
    /// `import`: the prompts stored, each with its new version.
    Imported(&'a [(String, u64)]),
    /// `sync-receive`: the prompt stored, and who sent it.
    Received {
        id: &'a str,
        version: u64,
        source: &'a str,
    },
    /// `verify`: the bundle's signer and contents, and whether the signer was among
    /// those trusted.
    Verified { info: &'a BundleInfo, trusted: bool },
}

/// A prompt of a bundle, as `verify` lists it.
#[derive(Serialize)]
struct Entry<'a> {
    id: &'a str,
    version: u64,
    owner: &'a str,
    content_hash: &'a str,
}

impl Answer for ShareAnswer<'_> {
    fn json(&self) -> String {
        let doc = match self {
            ShareAnswer::Imported(stored) => json!(
                stored
                    .iter()
                    .map(|(id, v)| json!({"id": id, "version": v}))
                    .collect::<Vec<_>>()
            ),
            ShareAnswer::Received {
                id,
                version,
                source,
            } => json!({"id": id, "version": version, "source": source}),
            ShareAnswer::Verified { info, trusted } => {
                let prompts: Vec<Entry<'_>> = info
                    .entries
                    .iter()
                    .map(|e| Entry {
                        id: &e.id,
                        version: e.version,
                        owner: &e.owner,
                        content_hash: &e.content_hash,
                    })
                    .collect();
                json!({
                    "signer": info.signer,
                    "created_at": info.created_at,
                    "trusted": trusted,
                    "prompts": prompts,
                })
            }
        };
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    }

    fn human(&self) -> String {
        match self {
            ShareAnswer::Imported(stored) => {
                let names: Vec<String> =
                    stored.iter().map(|(id, v)| format!("{id} v{v}")).collect();
                format!("imported {} prompt(s): {}", stored.len(), names.join(", "))
            }
            ShareAnswer::Received {
                id,
                version,
                source,
            } => format!("received `{id}` from {source} as version {version}"),
            ShareAnswer::Verified { info, trusted } => {
                let names: Vec<String> = info
                    .entries
                    .iter()
                    .map(|e| format!("{} v{}", e.id, e.version))
                    .collect();
                format!(
                    "the bundle is intact: signed by {}{} at {}; {}",
                    info.signer,
                    if *trusted { " (trusted)" } else { "" },
                    info.created_at,
                    names.join(", ")
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::ManifestEntry;
    use serde_json::Value as Json;

    #[test]
    fn a_verified_bundle_names_its_signer_and_prompts() {
        let info = BundleInfo {
            signer: "did:key:z6Mk".into(),
            created_at: "2026-11-28T10:00:00Z".into(),
            entries: vec![ManifestEntry {
                id: "order-status".into(),
                version: 3,
                owner: "team:support".into(),
                content_hash: "9f2c".into(),
                prompt_file_hash: None,
            }],
        };
        let answer = ShareAnswer::Verified {
            info: &info,
            trusted: true,
        };
        insta::assert_snapshot!(answer.human(), @"the bundle is intact: signed by did:key:z6Mk (trusted) at 2026-11-28T10:00:00Z; order-status v3");
        insta::assert_snapshot!("share_verify_json", answer.json());
    }

    #[test]
    fn imports_and_receipts_read_as_one_line() {
        let stored = [("a".to_string(), 2), ("b".to_string(), 1)];
        let imported = ShareAnswer::Imported(&stored);
        assert_eq!(imported.human(), "imported 2 prompt(s): a v2, b v1");
        assert_eq!(
            serde_json::from_str::<Json>(&imported.json()).expect("JSON"),
            json!([{"id": "a", "version": 2}, {"id": "b", "version": 1}])
        );
        let received = ShareAnswer::Received {
            id: "a",
            version: 4,
            source: "did:key:z6Mk",
        };
        assert_eq!(
            received.human(),
            "received `a` from did:key:z6Mk as version 4"
        );
        assert_eq!(
            received.json(),
            "{\n  \"id\": \"a\",\n  \"version\": 4,\n  \"source\": \"did:key:z6Mk\"\n}"
        );
    }
}
