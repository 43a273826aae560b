//! `--shard auto` plays the slice the CI engine's parallel-job variables name, the
//! same slice `--shard K/N` names.

use crate::suite::{ids, suite};
use crate::util::Invocation;

const ENGINE_VARS: [&str; 7] = [
    "CI_NODE_INDEX",
    "CI_NODE_TOTAL",
    "CIRCLE_NODE_INDEX",
    "CIRCLE_NODE_TOTAL",
    "BUILDKITE_PARALLEL_JOB",
    "BUILDKITE_PARALLEL_JOB_COUNT",
    "JOB_COMPLETION_INDEX",
];

/// The suite with no engine's variables but those given.
fn suite_with(vars: &[(&str, &str)]) -> Invocation {
    let mut invocation = suite().args(["--format", "json"]);
    for name in ENGINE_VARS.iter().chain(&["PROMPTEXEC_SHARD_TOTAL"]) {
        invocation = invocation.env_remove(name);
    }
    invocation.envs(vars)
}

#[test]
fn auto_takes_the_slice_each_engine_names() {
    let given = suite_with(&[]).args(["--shard", "2/3"]).run();
    let expected = ids(&given.json());
    assert!(!expected.is_empty());
    for vars in [
        &[("CI_NODE_INDEX", "2"), ("CI_NODE_TOTAL", "3")][..],
        &[("CIRCLE_NODE_INDEX", "1"), ("CIRCLE_NODE_TOTAL", "3")][..],
        &[
            ("BUILDKITE_PARALLEL_JOB", "1"),
            ("BUILDKITE_PARALLEL_JOB_COUNT", "3"),
        ][..],
        &[
            ("JOB_COMPLETION_INDEX", "1"),
            ("PROMPTEXEC_SHARD_TOTAL", "3"),
        ][..],
    ] {
        let out = suite_with(vars).args(["--shard", "auto"]).run();
        assert_eq!(ids(&out.json()), expected, "{vars:?}");
        assert_eq!(out.json()["shard"], "2/3", "{vars:?}");
    }
    let kubernetes = suite_with(&[("JOB_COMPLETION_INDEX", "1")])
        .args(["--shard", "auto", "--shard-total", "3"])
        .run();
    assert_eq!(ids(&kubernetes.json()), expected);
}

#[test]
fn auto_without_an_engine_is_bad_input_naming_what_it_looked_for() {
    suite_with(&[])
        .args(["--shard", "auto"])
        .run()
        .expect_code(2)
        .stderr_has("--shard auto: no CI engine's parallel job is in the environment (looked for CI_NODE_INDEX/CI_NODE_TOTAL");
    suite_with(&[])
        .args(["--shard", "sometimes"])
        .run()
        .expect_code(2)
        .stderr_has("`sometimes` is not K/N with 1 <= K <= N (for example 2/3), nor `auto`");
}
