//! The templates of one `prompt add`: each FILE as named, and every `.json` and `.prompt` file
//! under each DIR (subdirectories too, hidden entries left out, in name order), all
//! checked before any is stored so that one bad file stops them all.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use crate::doc::{Diagnostic, Diagnostics, Rejected};

use super::parallel::map_in_parallel;
use super::template_file::load_template_file;

/// What a directory contributes: files with these extensions (any case).
const TEMPLATE_EXTENSIONS: &[&str] = &["json", "prompt"];

/// Every template of a `prompt add`, checked, in the order given.
#[derive(Debug, Default)]
pub struct TemplateSet {
    /// Each template's JSON, as it will be stored.
    pub templates: Vec<Json>,
    /// Warnings of every file.
    pub warnings: Diagnostics,
}

/// Reads and checks the templates `paths` name. Any error in any file rejects the
/// whole set, with the errors of every file.
pub fn load_template_set(paths: &[PathBuf]) -> Result<TemplateSet, Rejected> {
    let mut errors = Diagnostics::default();
    let files = template_files(paths, &mut errors);
    // Checking is the bulk of the work and each file stands alone.
    let checked = map_in_parallel(&files, |f| check(f));
    let mut set = TemplateSet::default();
    for file in checked {
        match file {
            Ok((json, warnings)) => {
                set.templates.push(json);
                set.warnings.extend(warnings);
            }
            Err(problems) => errors.extend(problems),
        }
    }
    if errors.has_errors() {
        errors.extend(set.warnings);
        return Err(Rejected(errors));
    }
    Ok(set)
}

/// The template files (`*.json`, `*.prompt`) under `dir` at any depth, as `prompt add
/// DIR` finds them; a folder that cannot be read is an error.
pub fn template_files_in(dir: &Path) -> Result<Vec<PathBuf>, Rejected> {
    let (mut files, mut errors) = (Vec::new(), Diagnostics::default());
    walk(dir, &mut files, &mut errors, is_template_file);
    match errors.has_errors() {
        true => Err(Rejected(errors)),
        false => Ok(files),
    }
}

/// One file checked: its JSON and warnings, or its problems.
type Checked = Result<(Json, Diagnostics), Diagnostics>;

fn check(file: &Path) -> Checked {
    let loaded = load_template_file(file).map_err(|Rejected(problems)| problems)?;
    Ok((loaded.value.library_json().clone(), loaded.warnings))
}

/// The files `paths` stand for: a directory by its template files, anything else as
/// named (reading it says what is wrong with it). A directory that cannot be read or
/// holds no template is an error in `errors`.
fn template_files(paths: &[PathBuf], errors: &mut Diagnostics) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let before = files.len();
            walk(path, &mut files, errors, is_template_file);
            if files.len() == before {
                errors.push(Diagnostic::whole_file(
                    path,
                    "the directory holds no template file (*.json, *.prompt)",
                ));
            }
        } else {
            files.push(path.clone());
        }
    }
    files
}

/// Collects the files under `dir` that `wanted` picks, depth first in name order,
/// leaving out hidden entries. Symbolic links to directories are not followed, so a
/// link cannot make the walk go round.
pub(super) fn walk(
    dir: &Path,
    files: &mut Vec<PathBuf>,
    errors: &mut Diagnostics,
    wanted: fn(&Path) -> bool,
) {
    let unreadable = |errors: &mut Diagnostics, e: std::io::Error| {
        errors.push(Diagnostic::whole_file(
            dir,
            format!("cannot read directory: {e}"),
        ));
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => return unreadable(errors, e),
    };
    let mut entries = match entries.collect::<Result<Vec<_>, _>>() {
        Ok(entries) => entries,
        Err(e) => return unreadable(errors, e),
    };
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let path = entry.path();
        if entry.file_name().as_encoded_bytes().starts_with(b".") {
            continue;
        }
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            walk(&path, files, errors, wanted);
        } else if wanted(&path) {
            files.push(path);
        }
    }
}

fn is_template_file(path: &Path) -> bool {
    path.extension().is_some_and(|ext| {
        TEMPLATE_EXTENSIONS
            .iter()
            .any(|known| ext.eq_ignore_ascii_case(known))
    }) && path.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("dir");
        }
        std::fs::write(path, text).expect("write");
    }

    #[test]
    fn a_directory_gives_its_json_files_in_name_order_subdirectories_too() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        for name in [
            "b.json",
            "a.JSON",
            "sub/c.json",
            "notes.txt",
            ".hidden/d.json",
            ".e.json",
        ] {
            write(&root.join(name), "{}");
        }
        let mut errors = Diagnostics::default();
        let files = template_files(&[root.to_path_buf()], &mut errors);
        assert!(!errors.has_errors());
        let names: Vec<_> = files
            .iter()
            .map(|f| f.strip_prefix(root).expect("under root").to_path_buf())
            .collect();
        let expected: Vec<PathBuf> = ["a.JSON", "b.json", "sub/c.json"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(names, expected);
    }

    #[test]
    fn a_directory_without_templates_is_an_error() {
        let dir = tempfile::tempdir().expect("temp dir");
        write(&dir.path().join("readme.md"), "x");
        let mut errors = Diagnostics::default();
        assert!(template_files(&[dir.path().to_path_buf()], &mut errors).is_empty());
        assert_eq!(errors.error_count(), 1);
    }
}
