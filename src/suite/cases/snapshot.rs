//! Snapshots of tool results: one pretty JSON file per case, beside the case file
//! under `__snapshots__/<case file stem>/<case name slug>.json`, so they are
//! reviewed and committed with the cases. Written atomically: a reader sees the old
//! snapshot or the new one, never half of one. Both parts are made plain file names
//! ([`file_name_part`], [`slug`]), so a case file named `...yaml` keeps its snapshots
//! inside `__snapshots__` like any other.

use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use super::file_name::{bounded, file_name_part};
use super::judge::Stored;

/// The directory beside a case file that holds its snapshots.
pub(crate) const SNAPSHOT_DIR: &str = "__snapshots__";

/// A case name as a file name: letters and digits lowercased, every run of anything
/// else one `-`, cut to a bounded length ([`bounded`]).
pub(crate) fn slug(name: &str) -> String {
    let mut slug = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_alphanumeric() {
            slug.extend(c.to_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    while slug.ends_with('-') {
        slug.pop();
    }
    if slug.is_empty() {
        slug.push_str("case");
    }
    bounded(slug, name.as_bytes())
}

/// Where the snapshot of case `case_name` of `case_file` is kept: always two plain
/// components below the `__snapshots__` beside the file.
pub(crate) fn snapshot_path(case_file: &Path, case_name: &str) -> PathBuf {
    let dir = case_file.parent().unwrap_or(Path::new(""));
    let stem = file_name_part(case_file.file_stem().unwrap_or_default());
    dir.join(SNAPSHOT_DIR)
        .join(stem)
        .join(format!("{}.json", slug(case_name)))
}

/// The snapshot stored at `path`, if any.
pub(crate) fn read(path: &Path) -> Stored {
    match std::fs::read_to_string(path) {
        Ok(text) => match serde_json::from_str(&text) {
            Ok(value) => Stored::Found(value),
            Err(err) => Stored::Unreadable(format!("not JSON: {err}")),
        },
        Err(err) if err.kind() == io::ErrorKind::NotFound => Stored::Missing,
        Err(err) => Stored::Unreadable(format!("cannot read it: {err}")),
    }
}

/// Stores `value` at `path` as pretty JSON, creating its directory.
pub(crate) fn write(path: &Path, value: &Json) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    crate::atomic_file::write_atomic_with(path, |out| {
        serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::other)?;
        out.write_all(b"\n")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_become_short_lowercase_file_names() {
        assert_eq!(
            slug("lookup finds a delayed order"),
            "lookup-finds-a-delayed-order"
        );
        assert_eq!(
            slug("  PII guard: denies card #4111!  "),
            "pii-guard-denies-card-4111"
        );
        assert_eq!(slug("Größe über alles"), "größe-über-alles");
        assert_eq!(slug("?!"), "case");
        assert!(slug(&"word ".repeat(100)).len() <= super::super::file_name::MAX_PART);
    }

    #[test]
    fn snapshots_live_beside_the_case_file_under_its_stem() {
        assert_eq!(
            snapshot_path(Path::new("cases/orders.cases.yaml"), "Finds A-1002"),
            Path::new("cases/__snapshots__/orders.cases/finds-a-1002.json")
        );
        assert_eq!(
            snapshot_path(Path::new("orders.cases.json"), "x"),
            Path::new("__snapshots__/orders.cases/x.json")
        );
    }

    #[test]
    fn a_case_file_named_with_dots_keeps_its_snapshots_in_the_folder() {
        use std::path::Component;
        for name in [
            "cases/...yaml",
            "cases/..yaml",
            "cases/.cases.yaml",
            "cases/..",
        ] {
            let path = snapshot_path(Path::new(name), "x");
            let below = path
                .strip_prefix("cases/__snapshots__")
                .unwrap_or_else(|_| panic!("{name}: {}", path.display()));
            let parts: Vec<_> = below.components().collect();
            assert_eq!(parts.len(), 2, "{name}: {}", path.display());
            assert!(
                parts.iter().all(
                    |c| matches!(c, Component::Normal(n) if !n.to_string_lossy().starts_with('.'))
                ),
                "{name}: {}",
                path.display()
            );
        }
        assert_eq!(
            snapshot_path(Path::new("...yaml"), "x"),
            Path::new("__snapshots__/_./x.json")
        );
    }

    #[test]
    fn a_written_snapshot_reads_back_and_a_missing_one_is_missing() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("__snapshots__/a/b.json");
        assert_eq!(read(&path), Stored::Missing);
        let value = json!({"order_id": "A-1002", "total": 149.0});
        write(&path, &value).expect("written");
        assert_eq!(read(&path), Stored::Found(value));
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(text.starts_with("{\n  \"order_id\""), "pretty: {text}");
        std::fs::write(&path, "{").expect("write");
        assert!(matches!(read(&path), Stored::Unreadable(why) if why.starts_with("not JSON")));
    }
}
