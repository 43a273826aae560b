//! A pack is given the same way everywhere: as a positional argument. Where a command
//! has other positionals (extension names, scenario files, an eval type, a library
//! prompt id), the one that names a pack file is the pack; `--pack PACK` still works,
//! hidden from help.

use std::path::{Path, PathBuf};

use crate::cli::UsageError;

/// Whether `text` names a pack file: a `.json` file that is not a scenario, case or
/// recording file.
pub(crate) fn is_pack_path(text: impl AsRef<Path>) -> bool {
    let Some(name) = text.as_ref().file_name() else {
        return false;
    };
    let name = name.to_string_lossy().to_ascii_lowercase();
    name.ends_with(".json")
        && ![".scenario.json", ".cases.json", ".recording.json"]
            .iter()
            .any(|other| name.ends_with(other))
}

/// The pack of `--pack` and of the positionals that name one: at most one may be given.
pub(crate) fn settle(flag: &mut Option<PathBuf>, found: Vec<PathBuf>) -> Result<(), UsageError> {
    let mut given: Vec<PathBuf> = flag.take().into_iter().chain(found).collect();
    if given.len() > 1 {
        let second = given.swap_remove(1);
        return Err(UsageError::conflict(
            "PACK",
            format!(
                "`{}` and `{}` are both packs; give one",
                given[0].display(),
                second.display()
            ),
        ));
    }
    *flag = given.pop();
    Ok(())
}

/// Takes the pack files out of `positionals`.
pub(crate) fn take_packs<T: AsRef<Path>>(positionals: &mut Vec<T>) -> Vec<PathBuf> {
    let (packs, rest): (Vec<T>, Vec<T>) = positionals.drain(..).partition(|p| is_pack_path(p));
    *positionals = rest;
    packs.iter().map(|p| p.as_ref().to_path_buf()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_file_is_a_pack_but_not_a_scenario_case_or_recording() {
        assert!(is_pack_path("examples/assistant.pack.json"));
        assert!(is_pack_path("greeter.JSON"));
        assert!(!is_pack_path("a.scenario.json"));
        assert!(!is_pack_path("smoke.cases.json"));
        assert!(!is_pack_path("run.recording.json"));
        assert!(!is_pack_path("lookup_order"));
        assert!(!is_pack_path("scenarios/"));
    }

    #[test]
    fn the_pack_comes_out_of_the_positionals_and_two_conflict() {
        let mut names = vec!["echo".to_string(), "p.pack.json".to_string()];
        let mut pack = None;
        settle(&mut pack, take_packs(&mut names)).expect("one pack");
        assert_eq!(names, ["echo"]);
        assert_eq!(pack, Some(PathBuf::from("p.pack.json")));
        let mut again = vec!["q.json".to_string()];
        let err = settle(&mut pack, take_packs(&mut again)).expect_err("two packs");
        assert_eq!(
            err.to_string(),
            "PACK: `p.pack.json` and `q.json` are both packs; give one"
        );
    }
}
