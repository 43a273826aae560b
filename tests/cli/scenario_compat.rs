//! Scenario files as PromptArena writes them: the assertion's `message` inside its
//! params, params a check does not read (a warning, fatal only under --strict),
//! tool-policy limits of 0 (unset), several providers (--provider chooses), and a
//! pack played with no config at all (the bare mock).

use std::path::PathBuf;

use crate::util::{Invocation, fixtures, promptexec, run_all};

fn compat_dir() -> PathBuf {
    fixtures().join("scenario_compat")
}

/// `run` of the fixture pack with the fixture config, and more arguments.
fn run(extra: &[&str]) -> Invocation {
    promptexec()
        .in_dir(compat_dir())
        .args(["-c", "compat.yaml", "run", "compat.pack.json"])
        .args(extra)
}

#[test]
fn a_message_in_params_is_the_assertion_s_and_an_unknown_param_only_warns() {
    let outs = run_all(vec![
        run(&["scenarios/message.scenario.yaml", "--format", "json"]),
        run(&["scenarios/message.scenario.yaml", "--strict"]),
    ]);
    let lenient = &outs[0];
    lenient.expect_code(0);
    let warnings: Vec<&str> = lenient
        .stderr
        .lines()
        .filter(|l| l.contains("warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", lenient.stderr);
    assert!(
        warnings[0].starts_with("scenarios/message.scenario.yaml:18:13: warning:")
            && warnings[0].contains("`colour`"),
        "{}",
        lenient.stderr
    );
    lenient.stderr_lacks("`message`");
    let report = lenient.json_report();
    let assertion = &report["scenarios"][0]["assertions"][0];
    assert_eq!(assertion["message"], "greets the user", "{assertion:#}");
    assert_eq!(assertion["outcome"], "passed", "{assertion:#}");
    let strict = &outs[1];
    strict.expect_code(2);
    strict.stderr_has("scenarios/message.scenario.yaml:18:13: warning:");
    strict.stderr_has("--strict: 1 warning counts as an error");
    strict.stderr_lacks("PASS");
}

#[test]
fn an_unknown_param_close_to_a_known_one_says_which_was_meant() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let text = std::fs::read_to_string(compat_dir().join("scenarios/message.scenario.yaml"))
        .expect("the fixture");
    let typo = text.replace("colour: blue", "patern: Hello");
    assert_ne!(typo, text);
    promptexec()
        .in_dir(dir.path())
        .file("typo.scenario.yaml", typo)
        .arg("-c")
        .arg(compat_dir().join("compat.yaml"))
        .arg("run")
        .arg(compat_dir().join("compat.pack.json"))
        .arg("typo.scenario.yaml")
        .run()
        .expect_code(0)
        .stderr_has("typo.scenario.yaml:18:13: warning: /spec/turns/0/assertions/0/params: `content_includes` takes no param `patern`; did you mean `patterns`?")
        .stderr_has("PASS  message");
}

#[test]
fn tool_policy_limits_of_zero_are_unset() {
    let out = run(&["scenarios/zeros.scenario.yaml"]).run();
    out.expect_code(0);
    out.stderr_has("PASS  zeros");
    out.stderr_lacks("warning");
    // Below zero is still refused.
    let dir = tempfile::tempdir().expect("a temp dir");
    let text = std::fs::read_to_string(compat_dir().join("scenarios/zeros.scenario.yaml"))
        .expect("the fixture");
    let negative = text.replace("max_total_tool_calls: 0", "max_total_tool_calls: -1");
    assert_ne!(negative, text);
    promptexec()
        .in_dir(dir.path())
        .file("neg.scenario.yaml", negative)
        .arg("-c")
        .arg(compat_dir().join("compat.yaml"))
        .arg("run")
        .arg(compat_dir().join("compat.pack.json"))
        .arg("neg.scenario.yaml")
        .run()
        .expect_code(2)
        .stderr_has("neg.scenario.yaml:12:27: /spec/tool_policy/max_total_tool_calls: expected a non-negative integer, found -1");
}

#[test]
fn provider_overrides_a_list_of_several_and_without_it_the_first_plays() {
    let outs = run_all(vec![
        run(&["scenarios/providers.scenario.yaml", "--provider", "mock"])
            .env_remove("PROMPTEXEC_COMPAT_UNSET_KEY"),
        run(&["scenarios/providers.scenario.yaml"]).env_remove("PROMPTEXEC_COMPAT_UNSET_KEY"),
    ]);
    let chosen = &outs[0];
    chosen.expect_code(0);
    chosen.stderr_has("PASS  providers");
    chosen.stderr_lacks("warning");
    // Without --provider the first listed plays (here one that cannot be called),
    // and the others are said not to.
    let first = &outs[1];
    first.expect_code(2);
    first.stderr_has("scenarios/providers.scenario.yaml:9:21: warning: /spec/providers: PromptArena plays the scenario against each provider listed; promptexec plays one, the first (`live`): choose another with --provider");
    first.stderr_has(
        "compat.yaml:11:7: provider `live`: credential_env `PROMPTEXEC_COMPAT_UNSET_KEY` is not set",
    );
}

#[test]
fn a_pack_with_no_config_plays_the_bare_mock() {
    let bare = compat_dir().join("bare");
    assert!(!bare.join("runtimeconfig.yaml").exists());
    let outs = run_all(vec![
        promptexec()
            .in_dir(&bare)
            .args(["run", "bare.pack.json", "--message", "Anyone there?"]),
        promptexec().in_dir(&bare).args(["run", "bare.pack.json"]),
        promptexec()
            .in_dir(&bare)
            .args(["list", "bare.pack.json", "--format", "json"]),
    ]);
    let conversation = &outs[0];
    conversation.expect_code(0);
    conversation.stderr_has("assistant: Mock response");
    conversation.stderr_lacks("no config");
    let suite = &outs[1];
    suite.expect_code(0);
    suite.stderr_has("PASS  bare");
    suite.stderr_has("1 passed; exit 0");
    let list = &outs[2];
    list.expect_code(0);
    assert_eq!(list.json()["scenarios"][0]["id"], "bare");
}
