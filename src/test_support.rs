//! What the unit tests next to the hooks, tools and session share: the repository's
//! fixtures, hooks loaded from a config written on the spot, and process probes.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::config::{self, Hook};
use crate::conversation::{ProviderRequest, message};

/// The repository root, where the bundled examples are.
pub(crate) fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The fixtures the integration tests use too.
pub(crate) fn fixtures() -> PathBuf {
    repo_root().join("tests/fixtures")
}

/// The hooks of a config written into `dir` as `runtimeconfig.yaml`, with `hooks_yaml`
/// under `spec.hooks`.
pub(crate) fn load_hooks(dir: &Path, hooks_yaml: &str) -> Vec<Hook> {
    let path = dir.join("runtimeconfig.yaml");
    let text = format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  hooks:\n{hooks_yaml}"
    );
    std::fs::write(&path, text).expect("write config");
    config::load(&path, true)
        .expect("loads")
        .value
        .hooks
        .into_values()
        .collect()
}

/// A provider request for the mock: one user message, `hello`, in round 1.
pub(crate) fn provider_request() -> ProviderRequest {
    ProviderRequest {
        provider_id: "mock".into(),
        model: "mock-model".into(),
        messages: vec![message("user", "hello")].into(),
        system_prompt: "Be kind.".into(),
        round: 1,
    }
}

/// Whether process `pid` still runs (a zombie waiting to be reaped does not count).
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X')),
        Err(_) => false,
    }
}

/// Whether process `pid` is gone, or goes within a few seconds: a process killed by
/// its group is reaped asynchronously, and nothing lets a test wait on a process that
/// is not its own child. A leaked process outlives the wait and fails the test.
pub(crate) fn gone(pid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(pid) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// The pid a fixture wrote to `path`.
#[track_caller]
pub(crate) fn pid_in(path: &Path) -> i32 {
    let text = std::fs::read_to_string(path).expect("the fixture wrote its pid");
    text.trim().parse().expect("a pid")
}
