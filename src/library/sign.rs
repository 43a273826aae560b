//! Identities and integrity for shared prompts: Ed25519 keys named by `did:key`, detached
//! base58btc signatures, and the canonical JSON that signatures and content hashes cover.

use std::fmt;
use std::fs::{File, Permissions};
use std::io::{self, Write as _};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use serde_json::Value as Json;
use sha2::{Digest, Sha256};
use tempfile::NamedTempFile;

/// Multicodec varint for `ed25519-pub`; it is what makes ed25519 dids start `z6Mk`.
const ED25519_PUB_MULTICODEC: [u8; 2] = [0xed, 0x01];
/// `did:key:` plus the multibase prefix for base58btc.
const DID_KEY_PREFIX: &str = "did:key:z";
const SEED_LEN: usize = 32;

#[derive(Debug, thiserror::Error)]
pub enum SignError {
    #[error("cannot gather randomness for a new key")]
    Random(#[source] getrandom::Error),
    #[error(
        "key file {} already exists; refusing to overwrite it",
        path.display()
    )]
    KeyExists { path: PathBuf },
    #[error("cannot write key file {}", path.display())]
    WriteKey {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "key file {} does not exist (create one with `promptexec prompt keygen`)",
        path.display()
    )]
    KeyMissing { path: PathBuf },
    #[error("cannot read key file {}", path.display())]
    ReadKey {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("invalid key file {}", path.display())]
    BadKeyFile {
        path: PathBuf,
        #[source]
        source: Box<SignError>,
    },
    #[error("key seed is not hex")]
    SeedNotHex,
    #[error("key seed must be 32 bytes (64 hex digits), got {0} bytes")]
    SeedLength(usize),
    #[error("`{0}` is not a did:key (expected `did:key:z...`)")]
    NotDidKey(String),
    #[error("`{0}` is not an ed25519 did:key")]
    NotEd25519(String),
    #[error("`{0}` holds an invalid ed25519 public key")]
    BadPublicKey(String),
    #[error("signature is not base58btc")]
    SignatureEncoding,
    #[error("signature must be 64 bytes, got {0}")]
    SignatureLength(usize),
    #[error("signature does not match the signed content and key")]
    BadSignature,
}

/// An Ed25519 signing key; the seed never leaves it except through [`KeyPair::seed_hex`].
#[derive(Clone)]
pub struct KeyPair {
    signing: SigningKey,
}

impl fmt::Debug for KeyPair {
    // Show the identity only, so a stray `{:?}` cannot leak the seed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyPair").field("did", &self.did()).finish()
    }
}

impl KeyPair {
    pub fn generate() -> Result<KeyPair, SignError> {
        let mut seed = [0u8; SEED_LEN];
        getrandom::fill(&mut seed).map_err(SignError::Random)?;
        Ok(KeyPair::from_seed(&seed))
    }

    /// Accepts the 64 hex digits written by [`write_key_files`] (surrounding whitespace ignored).
    pub fn from_seed_hex(text: &str) -> Result<KeyPair, SignError> {
        let bytes = hex::decode(text.trim()).map_err(|_| SignError::SeedNotHex)?;
        let seed: [u8; SEED_LEN] = bytes
            .as_slice()
            .try_into()
            .map_err(|_| SignError::SeedLength(bytes.len()))?;
        Ok(KeyPair::from_seed(&seed))
    }

    fn from_seed(seed: &[u8; SEED_LEN]) -> KeyPair {
        KeyPair {
            signing: SigningKey::from_bytes(seed),
        }
    }

    pub fn seed_hex(&self) -> String {
        hex::encode(self.signing.to_bytes())
    }

    pub fn did(&self) -> String {
        let mut bytes = ED25519_PUB_MULTICODEC.to_vec();
        bytes.extend_from_slice(self.signing.verifying_key().as_bytes());
        format!("{DID_KEY_PREFIX}{}", bs58::encode(bytes).into_string())
    }

    /// Signs `bytes`; the 64-byte signature comes back base58btc without a multibase prefix.
    pub fn sign(&self, bytes: &[u8]) -> String {
        let signature: Signature = self.signing.sign(bytes);
        bs58::encode(signature.to_bytes()).into_string()
    }
}

/// Writes the seed to `path` (mode 0600) and the did to `path.pub`; returns the `.pub` path.
///
/// Both files are written whole to temporary files beside them (the secret one
/// private from its creation), synced, and only then renamed into place, the key
/// without replacing an existing one: a failed write (a full disk) leaves neither
/// file behind, so trying again works.
pub fn write_key_files(path: &Path, key: &KeyPair) -> Result<PathBuf, SignError> {
    let exists = || SignError::KeyExists {
        path: path.to_path_buf(),
    };
    let write_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SignError::WriteKey { path, source }
    };
    if path.symlink_metadata().is_ok() {
        return Err(exists());
    }
    let public = pub_path(path);
    let secret = staged(path, &key.seed_hex(), 0o600).map_err(write_err(path))?;
    let shared = staged(&public, &key.did(), 0o666).map_err(write_err(&public))?;
    secret
        .persist_noclobber(path)
        .map_err(|e| match e.error.kind() {
            io::ErrorKind::AlreadyExists => exists(),
            _ => write_err(path)(e.error),
        })?;
    if let Err(e) = shared.persist(&public) {
        // The pair goes in whole or not at all; the key was ours a moment ago.
        let _ = std::fs::remove_file(path);
        return Err(write_err(&public)(e.error));
    }
    // Best effort: the renames are durable once the folder is; a failure here
    // leaves complete files either way.
    let _ = File::open(folder_of(path)).and_then(|dir| dir.sync_all());
    Ok(public)
}

/// `text` and a newline in a synced temporary file beside `path`, created with `mode`
/// (less the umask) before anything is written to it; removed again when dropped.
fn staged(path: &Path, text: &str, mode: u32) -> io::Result<NamedTempFile> {
    let mut file = tempfile::Builder::new()
        .prefix(".promptexec-key")
        .permissions(Permissions::from_mode(mode))
        .tempfile_in(folder_of(path))?;
    // Through the plain file: its errors do not name the temporary path.
    writeln!(file.as_file_mut(), "{text}")?;
    file.as_file().sync_all()?;
    Ok(file)
}

fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

fn pub_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".pub");
    PathBuf::from(name)
}

pub fn read_key_file(path: &Path) -> Result<KeyPair, SignError> {
    let text = std::fs::read_to_string(path).map_err(|source| match source.kind() {
        io::ErrorKind::NotFound => SignError::KeyMissing {
            path: path.to_path_buf(),
        },
        _ => SignError::ReadKey {
            path: path.to_path_buf(),
            source,
        },
    })?;
    KeyPair::from_seed_hex(&text).map_err(|source| SignError::BadKeyFile {
        path: path.to_path_buf(),
        source: Box::new(source),
    })
}

/// Checks that `did` names an ed25519 key, e.g. for a `--trust` argument.
pub fn validate_did(did: &str) -> Result<(), SignError> {
    public_key(did).map(|_| ())
}

fn public_key(did: &str) -> Result<VerifyingKey, SignError> {
    let encoded = did
        .strip_prefix(DID_KEY_PREFIX)
        .ok_or_else(|| SignError::NotDidKey(did.to_string()))?;
    let bytes = bs58::decode(encoded)
        .into_vec()
        .map_err(|_| SignError::NotDidKey(did.to_string()))?;
    let key = bytes
        .strip_prefix(&ED25519_PUB_MULTICODEC)
        .ok_or_else(|| SignError::NotEd25519(did.to_string()))?;
    let key: &[u8; 32] = key
        .try_into()
        .map_err(|_| SignError::BadPublicKey(did.to_string()))?;
    VerifyingKey::from_bytes(key).map_err(|_| SignError::BadPublicKey(did.to_string()))
}

/// Verifies a signature made by [`KeyPair::sign`] against the key named by `did`.
pub fn verify(did: &str, bytes: &[u8], signature: &str) -> Result<(), SignError> {
    let key = public_key(did)?;
    let raw = bs58::decode(signature)
        .into_vec()
        .map_err(|_| SignError::SignatureEncoding)?;
    let raw: [u8; 64] = raw
        .as_slice()
        .try_into()
        .map_err(|_| SignError::SignatureLength(raw.len()))?;
    // Strict: rejects small-order keys and malleable signatures that plain verify allows.
    key.verify_strict(bytes, &Signature::from_bytes(&raw))
        .map_err(|_| SignError::BadSignature)
}

/// The RFC 8785 (JCS) canonical form of `value`: compact, object keys sorted by UTF-16
/// code units at every depth, numbers written as ECMAScript does. Signatures and hashes
/// cover these bytes, so any JCS implementation can reproduce them.
pub fn canonical_json(value: &Json) -> String {
    // JCS refuses only non-finite numbers and non-string keys, which a `Value` cannot
    // hold; the plain text is a fallback that is never taken.
    serde_jcs::to_string(value).unwrap_or_else(|_| value.to_string())
}

/// `sha256:` + lowercase hex of SHA-256 over the canonical JSON of `value`.
pub fn content_hash(value: &Json) -> String {
    format!("sha256:{}", sha256_hex(canonical_json(value).as_bytes()))
}

/// Lowercase hex of SHA-256 over `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::os::unix::fs::PermissionsExt;

    fn key(byte: u8) -> KeyPair {
        KeyPair::from_seed(&[byte; SEED_LEN])
    }

    #[test]
    fn did_has_ed25519_shape_and_round_trips() {
        let k = KeyPair::generate().expect("random key");
        let did = k.did();
        assert!(did.starts_with("did:key:z6Mk"), "{did}");
        let key = public_key(&did).expect("did decodes");
        assert_eq!(key, k.signing.verifying_key());
        let again = KeyPair::from_seed_hex(&k.seed_hex()).expect("seed parses");
        assert_eq!(again.did(), did);
    }

    #[test]
    fn rejects_non_ed25519_dids() {
        assert!(matches!(
            validate_did("did:web:example.com"),
            Err(SignError::NotDidKey(_))
        ));
        // A secp256k1 did:key (multicodec 0xe7 0x01).
        let mut bytes = vec![0xe7, 0x01];
        bytes.extend_from_slice(&[2u8; 33]);
        let did = format!("did:key:z{}", bs58::encode(bytes).into_string());
        assert!(matches!(validate_did(&did), Err(SignError::NotEd25519(_))));
        let short = format!("did:key:z{}", bs58::encode([0xed, 0x01, 1]).into_string());
        assert!(matches!(
            validate_did(&short),
            Err(SignError::BadPublicKey(_))
        ));
    }

    #[test]
    fn signatures_verify_only_for_the_same_bytes_and_key() {
        let k = key(1);
        let sig = k.sign(b"hello world");
        verify(&k.did(), b"hello world", &sig).expect("verifies");
        assert!(matches!(
            verify(&k.did(), b"hello worle", &sig),
            Err(SignError::BadSignature)
        ));
        assert!(matches!(
            verify(&key(2).did(), b"hello world", &sig),
            Err(SignError::BadSignature)
        ));
        assert!(matches!(
            verify(&k.did(), b"hello world", "0OIl"),
            Err(SignError::SignatureEncoding)
        ));
        assert!(matches!(
            verify(&k.did(), b"hello world", "abc"),
            Err(SignError::SignatureLength(_))
        ));
    }

    #[test]
    fn canonical_json_sorts_keys_at_every_depth() {
        let value = json!({"b": 1, "a": {"z": [ {"y": 1, "x": "\"q\""} ], "c": null}});
        assert_eq!(
            canonical_json(&value),
            r#"{"a":{"c":null,"z":[{"x":"\"q\"","y":1}]},"b":1}"#
        );
        let same = json!({"a": {"c": null, "z": [ {"x": "\"q\"", "y": 1} ]}, "b": 1});
        assert_eq!(content_hash(&value), content_hash(&same));
        assert!(content_hash(&value).starts_with("sha256:"));
        assert_eq!(content_hash(&value).len(), "sha256:".len() + 64);
    }

    #[test]
    fn canonical_json_follows_rfc_8785() {
        // The key-sorting example of RFC 8785 §3.2.3: by UTF-16 code units, so the
        // emoji (a surrogate pair) sorts before U+FB33, unlike in UTF-8 byte order.
        let keys = json!({
            "\u{20ac}": "Euro Sign", "\r": "Carriage Return", "\u{fb33}": "Hebrew Letter Dalet With Dagesh",
            "1": "One", "\u{1f600}": "Emoji: Grinning Face", "\u{80}": "Control", "\u{f6}": "Latin Small Letter O With Diaeresis",
        });
        let order: Vec<String> =
            serde_json::from_str::<serde_json::Map<String, Json>>(&canonical_json(&keys))
                .expect("canonical JSON parses")
                .values()
                .map(|v| v.as_str().unwrap_or_default().to_string())
                .collect();
        assert_eq!(
            order,
            [
                "Carriage Return",
                "One",
                "Control",
                "Latin Small Letter O With Diaeresis",
                "Euro Sign",
                "Emoji: Grinning Face",
                "Hebrew Letter Dalet With Dagesh"
            ]
        );
        // Numbers as ECMAScript writes them (RFC 8785 §3.2.2.3).
        let numbers: Json =
            serde_json::from_str("[1.0, -0.0, 1e21, 1e-7, 0.000001, 333333333.33333329, 4.5]")
                .expect("numbers parse");
        assert_eq!(
            canonical_json(&numbers),
            "[1,0,1e+21,1e-7,0.000001,333333333.3333333,4.5]"
        );
        // Control characters are escaped, everything else is written as is.
        assert_eq!(
            canonical_json(&json!("\u{1}\n\u{e9}\u{2028}/")),
            "\"\\u0001\\n\u{e9}\u{2028}/\""
        );
    }

    #[test]
    fn sha256_matches_known_vector() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn key_files_are_private_and_never_overwritten() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("me.key");
        let k = key(7);
        let public = write_key_files(&path, &k).expect("writes");
        assert_eq!(public, dir.path().join("me.key.pub"));
        let mode = std::fs::metadata(&path).expect("stat").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let did = std::fs::read_to_string(&public).expect("reads .pub");
        assert_eq!(did, format!("{}\n", k.did()));
        assert!(matches!(
            write_key_files(&path, &key(8)),
            Err(SignError::KeyExists { .. })
        ));
        assert_eq!(read_key_file(&path).expect("reads").did(), k.did());
    }

    #[test]
    fn a_pair_that_cannot_be_completed_leaves_no_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("me.key");
        // A folder where the public key goes: the rename onto it fails.
        std::fs::create_dir(dir.path().join("me.key.pub")).expect("mkdir");
        let err = write_key_files(&path, &key(7)).expect_err("cannot write .pub");
        assert!(matches!(err, SignError::WriteKey { .. }), "{err:?}");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, ["me.key.pub"]);
        std::fs::remove_dir(dir.path().join("me.key.pub")).expect("rmdir");
        write_key_files(&path, &key(7)).expect("a retry works");
        assert_eq!(read_key_file(&path).expect("reads").did(), key(7).did());
    }

    #[test]
    fn bad_key_files_say_why() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("k");
        assert!(matches!(
            read_key_file(&path),
            Err(SignError::KeyMissing { .. })
        ));
        std::fs::write(&path, "not hex\n").expect("write");
        let err = read_key_file(&path).expect_err("not hex");
        assert!(
            matches!(&err, SignError::BadKeyFile { source, .. } if matches!(**source, SignError::SeedNotHex))
        );
        std::fs::write(&path, "abcd\n").expect("write");
        let err = read_key_file(&path).expect_err("short");
        assert!(
            matches!(&err, SignError::BadKeyFile { source, .. } if matches!(**source, SignError::SeedLength(2)))
        );
    }
}
