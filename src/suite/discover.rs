//! Where a suite's scenario files are: the files and folders given, else the
//! `scenarios/` folder beside the pack; in folders, every `*.scenario.yaml`,
//! `*.scenario.yml` or `*.scenario.json`, at any depth, in path order.

use std::io;
use std::path::{Path, PathBuf};

/// The folder searched when no scenario is named: `scenarios/` beside the pack.
pub fn default_folder(pack: &Path) -> PathBuf {
    pack.parent().unwrap_or(Path::new("")).join("scenarios")
}

/// Whether a file name marks a scenario.
pub fn is_scenario_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    [".scenario.yaml", ".scenario.yml", ".scenario.json"]
        .iter()
        .any(|suffix| name.ends_with(suffix))
}

/// Every scenario file under `paths` (a file named is taken as it is), each once,
/// in order; an error names the path that could not be read. Links to folders are
/// not followed, so a link loop cannot trap the search.
pub fn scenario_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, (PathBuf, io::Error)> {
    let mut found: Vec<PathBuf> = Vec::new();
    for path in paths {
        let mut more = Vec::new();
        if path.is_dir() {
            walk(path, &mut more)?;
            more.sort();
        } else {
            // A named file that is missing is reported when it is read.
            more.push(path.clone());
        }
        for file in more {
            if !found.contains(&file) {
                found.push(file);
            }
        }
    }
    Ok(found)
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), (PathBuf, io::Error)> {
    let failed = |err| (dir.to_path_buf(), err);
    for entry in std::fs::read_dir(dir).map_err(failed)? {
        let entry = entry.map_err(failed)?;
        let path = entry.path();
        let kind = entry.file_type().map_err(failed)?;
        if kind.is_dir() {
            walk(&path, found)?;
        } else if is_scenario_file(&path) && path.is_file() {
            found.push(path);
        }
    }
    Ok(())
}
