//! The headless Chromium the page tests drive, through a node script over
//! playwright-core (installed by `.ci/run` into target/browser).

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value as Json;

use super::repo_root;

/// `node SCRIPT` from the repository root with playwright-core and Chromium named in
/// its environment, or `None` when the browser tests are to be skipped: outside CI
/// with `PROMPTEXEC_SKIP_BROWSER=1`. Without Chromium, node or the driver's modules
/// it panics, naming what to install.
pub fn browser_driver(script: &str) -> Option<Command> {
    let root = repo_root();
    let modules = root.join("target/browser/node_modules");
    let chromium = std::env::var_os("CHROMIUM")
        .map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from);
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let missing = if !chromium.is_file() {
        Some(format!(
            "no Chromium at {} (apt-get install chromium)",
            chromium.display()
        ))
    } else if !node {
        Some("no `node` on PATH (install Node.js 20 or later)".to_owned())
    } else if !modules.join("playwright-core").is_dir() {
        Some(format!(
            "no playwright-core in {} (bash .ci/run installs it: npm ci --prefix target/browser \
             with tests/fixtures/browser/package*.json)",
            modules.display()
        ))
    } else {
        None
    };
    if let Some(why) = missing {
        if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
            panic!("{why}; CI must run the browser tests");
        }
        if std::env::var("PROMPTEXEC_SKIP_BROWSER").as_deref() == Ok("1") {
            eprintln!("skipped: {why} (PROMPTEXEC_SKIP_BROWSER=1)");
            return None;
        }
        panic!("{why}; or set PROMPTEXEC_SKIP_BROWSER=1 to skip the browser tests");
    }
    let mut command = Command::new("node");
    command
        .current_dir(&root)
        .arg(root.join(script))
        .env("PROMPTEXEC_BROWSER_MODULES", modules)
        .env("CHROMIUM", chromium);
    Some(command)
}

/// Runs a driver to its end; the JSON document it prints.
pub fn driver_json(driver: &mut Command) -> Json {
    let out = driver.output().expect("node runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the driver failed: {stderr}");
    serde_json::from_slice(&out.stdout).expect("the driver prints JSON")
}
