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

/// Every scenario file under `paths` (a file named is taken as it is), in order.
pub fn scenario_files(paths: &[PathBuf]) -> io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut inside = Vec::new();
            walk(path, &mut inside)?;
            inside.sort();
            found.extend(inside);
        } else {
            // A named file that is missing is reported when it is read.
            found.push(path.clone());
        }
    }
    Ok(found)
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, found)?;
        } else if is_scenario_file(&path) {
            found.push(path);
        }
    }
    Ok(())
}
