//! Test projects: fixture folders copied where a test may write, and the parts of
//! a suite's JSON report tests read.

use std::path::Path;

use serde_json::Value as Json;

/// Copies folder `from` into `to` (made if missing), with every subfolder.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("folder");
    for entry in std::fs::read_dir(from).expect("fixture folder") {
        let path = entry.expect("entry").path();
        let target = to.join(path.file_name().expect("a name"));
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, target).expect("copy");
        }
    }
}

/// The assertions of scenario `id` in a suite's JSON report, each field read as text
/// by `fields`.
pub fn scenario_assertions<const N: usize>(
    report: &Json,
    id: &str,
    fields: [&str; N],
) -> Vec<[String; N]> {
    let scenario = report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no scenario {id} in {report}"));
    scenario["assertions"]
        .as_array()
        .expect("assertions")
        .iter()
        .map(|a| fields.map(|key| a[key].as_str().unwrap_or_default().to_string()))
        .collect()
}
