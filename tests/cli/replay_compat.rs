//! Recordings as PromptKit and PromptArena write them: a session recording whose keys
//! are in lower case (as PromptArena's own example is) replays, and a RuntimeConfig
//! provider of `type: replay` replays its recording with no `--replay` flag.

use std::path::{Path, PathBuf};

use crate::util::{Invocation, fixtures, promptexec};

const CLOSEST: &str = "Which planet is closest to the Sun?";
const MOONS: &str = "And which one has the most moons?";
const MERCURY: &str =
    "Mercury is the closest planet to the Sun, about 58 million kilometres away on average.";
const SATURN: &str =
    "Saturn has the most known moons: astronomers have confirmed well over a hundred.";

fn here() -> PathBuf {
    fixtures().join("replay_compat")
}

/// A config in `dir/conf` whose one provider replays `recording`, written as it is
/// given (relative to `dir/conf`), with `extra` lines of `additional_config`.
fn replay_config(dir: &Path, recording: &str, extra: &str) -> PathBuf {
    let conf = dir.join("conf");
    std::fs::create_dir_all(&conf).expect("conf folder");
    let path = conf.join("replay.runtimeconfig.yaml");
    let text = format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: RuntimeConfig
metadata:
  name: planets-replay
spec:
  providers:
    - id: planets-session
      type: replay
      model: recorded-session
      additional_config:
        recording: {recording}
        timing: instant
{extra}"
    );
    std::fs::write(&path, text).expect("config written");
    path
}

/// A folder holding the recording in `recordings/` and a config in `conf/` that names
/// it relative to itself; promptexec is started from a third folder, `elsewhere/`.
fn project(extra: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join("recordings")).expect("recordings folder");
    std::fs::create_dir_all(dir.path().join("elsewhere")).expect("working folder");
    std::fs::copy(
        here().join("planets.recording.json"),
        dir.path().join("recordings/planets.recording.json"),
    )
    .expect("copied");
    let config = replay_config(dir.path(), "../recordings/planets.recording.json", extra);
    (dir, config)
}

/// `promptexec -c CONFIG run planets.pack.json`, started from a folder of the project
/// that is not the config's, so relative paths must be resolved against the config.
fn run_planets(dir: &Path, config: &Path) -> Invocation {
    promptexec()
        .in_dir(dir.join("elsewhere"))
        .arg("-c")
        .arg(config)
        .arg("run")
        .arg(here().join("planets.pack.json"))
}

#[test]
fn a_lower_case_recording_replays_and_its_answers_are_what_the_user_sees() {
    let out = promptexec()
        .in_dir(here())
        .args([
            "run",
            "planets.pack.json",
            "--replay",
            "planets.recording.json",
            "--message",
            CLOSEST,
            "--message",
            MOONS,
        ])
        .run();
    out.expect_code(0)
        .stderr_has(&format!("assistant: {MERCURY}"))
        .stderr_has(&format!("assistant: {SATURN}"))
        .stderr_lacks("missing field");
}

#[test]
fn a_replay_provider_replays_a_suite_with_no_replay_flag() {
    let (dir, config) = project("        match: turn\n");
    let out = run_planets(dir.path(), &config)
        .arg(here().join("planets.scenario.yaml"))
        .args(["--format", "json"])
        .run();
    out.expect_code(0);
    let report = out.json_report();
    assert_eq!(report["summary"]["passed"], 1, "{report:#}");
    assert_eq!(report["summary"]["model"]["calls"], 2, "{report:#}");
}

#[test]
fn a_replay_provider_plays_one_conversation_with_its_answers_shown() {
    let (dir, config) = project("");
    run_planets(dir.path(), &config)
        .args(["--message", CLOSEST, "--message", MOONS])
        .run()
        .expect_code(0)
        .stderr_has(&format!("assistant: {MERCURY}"))
        .stderr_has(&format!("assistant: {SATURN}"));
}

#[test]
fn a_replay_provider_matches_by_content_when_its_config_says_so() {
    let scenario = here().join("moons-first.scenario.yaml");
    let run = |extra: &str| {
        let (dir, config) = project(extra);
        run_planets(dir.path(), &config).arg(&scenario).run()
    };
    // Asked in the other order, each question still finds its recorded answer.
    run("        match: content\n")
        .expect_code(0)
        .stderr_has("PASS  moons-first");
    // By turn (the default), the first call is compared with the first recorded one.
    run("")
        .expect_code(3)
        .stderr_has("call 1 (turn 1, round 1) does not match the recorded call 1");
}

#[test]
fn the_replay_flags_win_over_a_replay_provider() {
    let dir = tempfile::tempdir().expect("temp dir");
    // The provider's recording does not exist: the flags' recordings play instead.
    let config = replay_config(dir.path(), "gone.recording.json", "");
    promptexec()
        .in_dir(here())
        .arg("-c")
        .arg(&config)
        .args([
            "run",
            "planets.pack.json",
            "--replay",
            "planets.recording.json",
            "--message",
            CLOSEST,
            "--message",
            MOONS,
        ])
        .run()
        .expect_code(0)
        .stderr_has(&format!("assistant: {SATURN}"));
    let recordings = dir.path().join("recordings");
    std::fs::create_dir_all(&recordings).expect("recordings folder");
    std::fs::copy(
        here().join("planets.recording.json"),
        recordings.join("planets-replay.recording.json"),
    )
    .expect("copied");
    promptexec()
        .in_dir(here())
        .arg("-c")
        .arg(&config)
        .args(["run", "planets.pack.json", "planets.scenario.yaml"])
        .arg("--replay-dir")
        .arg(&recordings)
        .run()
        .expect_code(0)
        .stderr_has("PASS  planets-replay");
}

#[test]
fn a_replay_provider_naming_a_missing_file_exits_2_naming_it_where_the_config_does() {
    let (dir, _) = project("");
    let config = replay_config(dir.path(), "../recordings/gone.recording.json", "");
    let gone = dir.path().join("conf/../recordings/gone.recording.json");
    run_planets(dir.path(), &config)
        .args(["--message", CLOSEST])
        .run()
        .expect_code(2)
        .stderr_has(&format!(
            "{}:11:20: provider `planets-session`: cannot read the recording `{}`",
            config.display(),
            gone.display()
        ));
    promptexec()
        .in_dir(dir.path().join("elsewhere"))
        .arg("-c")
        .arg(&config)
        .arg("validate")
        .run()
        .expect_code(2)
        .stderr_has(&format!(
            "{}:11:20: spec.providers[0].additional_config.recording: file `{}` does not exist",
            config.display(),
            gone.display()
        ));
}

#[test]
fn a_malformed_recording_or_a_replay_provider_without_one_exits_2_at_the_place() {
    let (dir, config) = project("");
    let recording = dir.path().join("recordings/planets.recording.json");
    std::fs::write(
        &recording,
        "{\n  \"events\": [\n    {\"type\": \"message.created\", \"data\": {\"role\": 7}}\n  ]\n}\n",
    )
    .expect("written");
    run_planets(dir.path(), &config)
        .args(["--message", CLOSEST])
        .run()
        .expect_code(2)
        .stderr_has(&format!(
            "{}:3:50: events[0].data.role: invalid type: integer `7`, expected a string",
            dir.path()
                .join("conf/../recordings/planets.recording.json")
                .display()
        ));
    let config = dir.path().join("conf/none.runtimeconfig.yaml");
    std::fs::write(
        &config,
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  providers:\n    - type: replay\n      additional_config: {recordng: x.json}\n",
    )
    .expect("written");
    run_planets(dir.path(), &config)
        .args(["--message", CLOSEST])
        .run()
        .expect_code(2)
        .stderr_has(&format!(
            "{}:6:26: spec.providers[0].additional_config: a `replay` provider needs `recording`, the session recording it answers from; did you mean `recordng`?",
            config.display()
        ));
}
