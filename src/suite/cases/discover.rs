//! The case files a command line names: each file as given, and every
//! `*.cases.yaml`, `*.cases.yml` and `*.cases.json` under each directory
//! (subdirectories too, hidden entries left out), depth first in name order, so the
//! same tree always runs in the same order.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::doc::{Diagnostic, Diagnostics};
use crate::suite::files_below;

/// The endings that make a file in a directory a case file.
pub(crate) const CASE_FILE_ENDINGS: &[&str] = &[".cases.yaml", ".cases.yml", ".cases.json"];

/// The case files `paths` stand for, each once, in order. A path that does not
/// exist, or a directory without case files, is an error in `errors`.
pub(crate) fn case_files(paths: &[PathBuf], errors: &mut Diagnostics) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found = Vec::new();
            walk(path, &mut found, errors);
            if found.is_empty() {
                errors.push(Diagnostic::whole_file(
                    path,
                    format!(
                        "the directory holds no case file ({})",
                        CASE_FILE_ENDINGS
                            .iter()
                            .map(|end| format!("*{end}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
            files.extend(found);
        } else if path.exists() {
            files.push(path.clone());
        } else {
            errors.push(Diagnostic::whole_file(path, "no such file or directory"));
        }
    }
    let mut seen = std::collections::HashSet::new();
    files.retain(|file| seen.insert(file.clone()));
    files
}

/// Collects the case files under `dir`.
fn walk(dir: &Path, files: &mut Vec<PathBuf>, errors: &mut Diagnostics) {
    match files_below(dir, &is_case_file) {
        Ok(found) => files.extend(found),
        Err((place, err)) => errors.push(Diagnostic::whole_file(
            &place,
            format!("cannot read directory: {err}"),
        )),
    }
}

/// Judged on the name's bytes, so a name that is not UTF-8 counts like any other.
fn is_case_file(path: &Path) -> bool {
    let name = path.file_name().unwrap_or_default().as_bytes();
    CASE_FILE_ENDINGS
        .iter()
        .any(|end| name.ends_with(end.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_give_their_case_files_in_name_order() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        for name in [
            "b.cases.yaml",
            "a.cases.json",
            "sub/c.cases.yml",
            "notes.yaml",
            "d.pack.json",
            ".hidden/e.cases.yaml",
        ] {
            let path = root.join(name);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("dir");
            std::fs::write(&path, "cases: []").expect("write");
        }
        let mut errors = Diagnostics::default();
        let given = root.join("b.cases.yaml");
        let files = case_files(&[root.to_path_buf(), given], &mut errors);
        let names: Vec<_> = files
            .iter()
            .map(|f| f.strip_prefix(root).expect("inside").display().to_string())
            .collect();
        assert_eq!(names, ["a.cases.json", "b.cases.yaml", "sub/c.cases.yml"]);
        assert!(!errors.has_errors());
    }

    #[test]
    fn a_case_file_whose_name_is_not_utf8_is_found() {
        let dir = tempfile::tempdir().expect("temp dir");
        let name = std::ffi::OsStr::from_bytes(b"\xff.cases.yaml");
        std::fs::write(dir.path().join(name), "cases: []").expect("write");
        let mut errors = Diagnostics::default();
        let files = case_files(&[dir.path().to_path_buf()], &mut errors);
        assert_eq!(files, [dir.path().join(name)]);
        assert!(!errors.has_errors());
    }

    #[test]
    fn a_missing_path_and_an_empty_directory_are_errors() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut errors = Diagnostics::default();
        let files = case_files(
            &[dir.path().to_path_buf(), dir.path().join("nope.cases.yaml")],
            &mut errors,
        );
        assert!(files.is_empty());
        let messages: Vec<_> = errors.iter().map(|d| d.message.clone()).collect();
        assert_eq!(
            messages,
            [
                "the directory holds no case file (*.cases.yaml, *.cases.yml, *.cases.json)",
                "no such file or directory"
            ]
        );
    }
}
