//! Where a suite's scenario files are: the files and folders given, else the
//! `scenarios/` folder beside the pack; in folders, every `*.scenario.yaml`,
//! `*.scenario.yml` or `*.scenario.json`, at any depth, in path order.

use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The folder searched when no scenario is named: `scenarios/` beside the pack.
pub(crate) fn default_folder(pack: &Path) -> PathBuf {
    pack.parent().unwrap_or(Path::new("")).join("scenarios")
}

/// Whether a file name marks a scenario; judged on the name's bytes, so a name that
/// is not UTF-8 counts like any other.
pub(crate) fn is_scenario_file(path: &Path) -> bool {
    let name = path.file_name().unwrap_or_default().as_bytes();
    [".scenario.yaml", ".scenario.yml", ".scenario.json"]
        .iter()
        .any(|suffix| name.ends_with(suffix.as_bytes()))
}

/// Every scenario file under `paths` (a file named is taken as it is), each once,
/// in order; an error names the path that could not be read.
pub(crate) fn scenario_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, (PathBuf, io::Error)> {
    let mut found: Vec<PathBuf> = Vec::new();
    for path in paths {
        let more = if path.is_dir() {
            files_below(path, &is_scenario_file)?
        } else {
            // A named file that is missing is reported when it is read.
            vec![path.clone()]
        };
        for file in more {
            if !found.contains(&file) {
                found.push(file);
            }
        }
    }
    Ok(found)
}

/// The files under `dir` that `wanted` picks, depth first in name order, so the same
/// tree always gives the same list. Hidden entries are left out, and links to
/// folders are not followed, so a link cannot make the walk go round.
pub(crate) fn files_below(
    dir: &Path,
    wanted: &dyn Fn(&Path) -> bool,
) -> Result<Vec<PathBuf>, (PathBuf, io::Error)> {
    let mut found = Vec::new();
    walk(dir, wanted, &mut found)?;
    Ok(found)
}

fn walk(
    dir: &Path,
    wanted: &dyn Fn(&Path) -> bool,
    found: &mut Vec<PathBuf>,
) -> Result<(), (PathBuf, io::Error)> {
    let failed = |err| (dir.to_path_buf(), err);
    let mut entries = std::fs::read_dir(dir)
        .and_then(|entries| entries.collect::<Result<Vec<_>, _>>())
        .map_err(failed)?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        if entry.file_name().as_encoded_bytes().starts_with(b".") {
            continue;
        }
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            walk(&path, wanted, found)?;
        } else if wanted(&path) && path.is_file() {
            found.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_give_their_scenario_files_once_in_name_order() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        for name in [
            "b.scenario.yaml",
            "a.scenario.json",
            "sub/c.scenario.yml",
            "notes.yaml",
            ".hidden/d.scenario.yaml",
        ] {
            let path = root.join(name);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("dir");
            std::fs::write(&path, "x").expect("write");
        }
        std::os::unix::fs::symlink(root, root.join("sub/loop")).expect("a link to a folder");
        let named = root.join("b.scenario.yaml");
        let files = scenario_files(&[root.to_path_buf(), named]).expect("readable");
        let names: Vec<_> = files
            .iter()
            .map(|f| f.strip_prefix(root).expect("inside").display().to_string())
            .collect();
        assert_eq!(
            names,
            ["a.scenario.json", "b.scenario.yaml", "sub/c.scenario.yml"]
        );
    }
}
