use std::path::{Path, PathBuf};

/// Which config a command uses, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigSource {
    /// `-c FILE` or `$PROMPTEXEC_CONFIG`.
    Given(PathBuf),
    /// `./runtimeconfig.yaml`, found in the current directory.
    Found(PathBuf),
    /// Nothing given and nothing found: the empty config.
    None,
}

pub(super) const DEFAULT_CONFIG_NAME: &str = "runtimeconfig.yaml";

/// The config named on the command line or in the environment (clap merges the two),
/// else `runtimeconfig.yaml` in `cwd` when present, else none.
pub fn discover(given: Option<&Path>, cwd: &Path) -> ConfigSource {
    if let Some(path) = given {
        return ConfigSource::Given(path.to_path_buf());
    }
    let default = cwd.join(DEFAULT_CONFIG_NAME);
    if default.is_file() {
        ConfigSource::Found(PathBuf::from(DEFAULT_CONFIG_NAME))
    } else {
        ConfigSource::None
    }
}
