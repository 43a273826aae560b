//! `--shard K/N|auto`: the slice of a suite this machine plays, given or taken from the
//! CI engine's parallel-job variables.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, ValueEnum};

use crate::cli::UsageError;
use crate::suite::{Shard, Slice, Timings};

#[derive(Debug, Clone, Args)]
pub(crate) struct ShardArgs {
    /// Only the K-th of N slices of the suite (dealt as --shard-by says); `auto`
    /// takes K and N from the CI engine (GitLab, CircleCI, Buildkite, or a Kubernetes
    /// Indexed Job with --shard-total)
    #[arg(long = "shard", value_name = "K/N|auto")]
    given: Option<ShardChoice>,

    /// With `--shard auto` in a Kubernetes Indexed Job: how many shards there are
    /// [default: $PROMPTEXEC_SHARD_TOTAL]
    #[arg(long, value_name = "N", requires = "given", value_parser = clap::value_parser!(u64).range(1..))]
    shard_total: Option<u64>,

    /// How the shards are dealt: `id`, round-robin in scenario id order; `timings`,
    /// balanced by the scenario times of an earlier report (--timings) [default: id]
    #[arg(long, value_enum, value_name = "id|timings", requires = "given")]
    shard_by: Option<ShardBy>,

    /// With `--shard-by timings`: an earlier JSON report of the suite (`run PACK
    /// --json FILE`, or `report merge`) whose scenario times balance the shards
    #[arg(long, value_name = "REPORT")]
    timings: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ShardBy {
    Id,
    Timings,
}

#[derive(Debug, Clone, Copy)]
enum ShardChoice {
    Given(Shard),
    Auto,
}

/// Text that is neither `K/N` nor `auto`.
#[derive(Debug, Clone, thiserror::Error)]
#[error("`{0}` is not K/N with 1 <= K <= N (for example 2/3), nor `auto`")]
pub(crate) struct BadShardChoice(String);

impl std::str::FromStr for ShardChoice {
    type Err = BadShardChoice;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "auto" => Ok(ShardChoice::Auto),
            _ => text
                .parse()
                .map(ShardChoice::Given)
                .map_err(|_| BadShardChoice(text.to_string())),
        }
    }
}

/// The scenario times of a suite's JSON report: its `index` of `id` and
/// `duration_ms`.
fn read_timings(path: &Path) -> Result<Timings, UsageError> {
    let unusable =
        |why: String| UsageError::Unusable(format!("--timings {}: {why}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|err| unusable(err.to_string()))?;
    let report: serde_json::Value =
        serde_json::from_str(&text).map_err(|err| unusable(format!("not JSON: {err}")))?;
    let index = report["index"]
        .as_array()
        .ok_or_else(|| unusable("not a suite's JSON report (it has no `index`)".into()))?;
    Ok(index
        .iter()
        .filter_map(|entry| {
            let id = entry["id"].as_str()?;
            Some((id.to_string(), entry["duration_ms"].as_u64()?))
        })
        .collect())
}

/// Each engine's variables: its name, the index and total variables, and the number
/// its first job has.
const ENGINES: [(&str, &str, &str, usize); 3] = [
    ("GitLab", "CI_NODE_INDEX", "CI_NODE_TOTAL", 1),
    ("CircleCI", "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", 0),
    (
        "Buildkite",
        "BUILDKITE_PARALLEL_JOB",
        "BUILDKITE_PARALLEL_JOB_COUNT",
        0,
    ),
];
/// A Kubernetes Indexed Job's index (from 0); its total is not in the environment.
const KUBERNETES_INDEX: &str = "JOB_COMPLETION_INDEX";
const TOTAL_VAR: &str = "PROMPTEXEC_SHARD_TOTAL";

impl ShardArgs {
    /// Whether `--shard` was given at all.
    pub(crate) fn given(&self) -> bool {
        self.given.is_some()
    }

    /// The slice to play, `auto` read from the environment, balanced by the
    /// timings report when `--shard-by timings` asks.
    pub(crate) fn get(&self) -> Result<Option<Slice>, UsageError> {
        let shard = match self.given {
            None => return Ok(None),
            Some(ShardChoice::Given(shard)) => shard,
            Some(ShardChoice::Auto) => {
                let total = self.shard_total.map(|n| n as usize);
                from_env(|name| std::env::var(name).ok(), total)?
            }
        };
        let timings = match (self.shard_by, &self.timings) {
            (Some(ShardBy::Timings), Some(path)) => Some(Arc::new(read_timings(path)?)),
            (Some(ShardBy::Timings), None) => {
                return Err(UsageError::not_here(
                    "--shard-by timings",
                    "needs --timings REPORT, an earlier JSON report of the suite",
                ));
            }
            (_, Some(_)) => {
                return Err(UsageError::not_here(
                    "--timings",
                    "applies with --shard-by timings",
                ));
            }
            (_, None) => None,
        };
        Ok(Some(Slice { shard, timings }))
    }
}

/// The shard the CI engine runs this job as, by the first engine whose variables are
/// set; `total` stands in for a Kubernetes Indexed Job's count.
fn from_env(
    var: impl Fn(&str) -> Option<String>,
    total: Option<usize>,
) -> Result<Shard, UsageError> {
    let number = |name: &str| -> Result<Option<usize>, UsageError> {
        match var(name) {
            None => Ok(None),
            Some(text) => text.trim().parse().map(Some).map_err(|_| {
                UsageError::Unusable(format!("--shard auto: {name}={text} is not a whole number"))
            }),
        }
    };
    for (engine, index_var, total_var, first) in ENGINES {
        if let (Some(index), Some(count)) = (number(index_var)?, number(total_var)?) {
            return shard(index + 1 - first, count, || {
                format!("{engine}'s {index_var}={index} of {total_var}={count}")
            });
        }
    }
    if let Some(index) = number(KUBERNETES_INDEX)? {
        let count = match total {
            Some(count) => count,
            None => number(TOTAL_VAR)?.ok_or_else(|| {
                UsageError::Unusable(format!(
                    "--shard auto: {KUBERNETES_INDEX} is set, but not how many shards there are: give --shard-total N or set {TOTAL_VAR}"
                ))
            })?,
        };
        return shard(index + 1, count, || {
            format!("{KUBERNETES_INDEX}={index} of {count} shards")
        });
    }
    Err(UsageError::Unusable(format!(
        "--shard auto: no CI engine's parallel job is in the environment (looked for {}, and {KUBERNETES_INDEX} with --shard-total)",
        ENGINES
            .iter()
            .map(|(_, index, total, _)| format!("{index}/{total}"))
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

fn shard(index: usize, count: usize, what: impl Fn() -> String) -> Result<Shard, UsageError> {
    if index == 0 || index > count {
        return Err(UsageError::Unusable(format!(
            "--shard auto: {} is not a shard",
            what()
        )));
    }
    Ok(Shard { index, count })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn each_engine_numbers_its_jobs_its_own_way() {
        let of = |pairs: &[(&str, &str)], total| from_env(env(pairs), total).map(|s| s.to_string());
        assert_eq!(
            of(&[("CI_NODE_INDEX", "2"), ("CI_NODE_TOTAL", "3")], None).ok(),
            Some("2/3".into())
        );
        assert_eq!(
            of(
                &[("CIRCLE_NODE_INDEX", "0"), ("CIRCLE_NODE_TOTAL", "4")],
                None
            )
            .ok(),
            Some("1/4".into())
        );
        assert_eq!(
            of(
                &[
                    ("BUILDKITE_PARALLEL_JOB", "2"),
                    ("BUILDKITE_PARALLEL_JOB_COUNT", "3")
                ],
                None
            )
            .ok(),
            Some("3/3".into())
        );
        assert_eq!(
            of(&[("JOB_COMPLETION_INDEX", "1")], Some(5)).ok(),
            Some("2/5".into())
        );
        assert_eq!(
            of(
                &[
                    ("JOB_COMPLETION_INDEX", "1"),
                    ("PROMPTEXEC_SHARD_TOTAL", "2")
                ],
                None
            )
            .ok(),
            Some("2/2".into())
        );
    }

    #[test]
    fn what_cannot_be_a_shard_says_which_variables() {
        let why = |pairs: &[(&str, &str)]| {
            from_env(env(pairs), None)
                .expect_err("no shard")
                .to_string()
        };
        assert!(
            why(&[]).starts_with("--shard auto: no CI engine's parallel job"),
            "{}",
            why(&[])
        );
        assert_eq!(
            why(&[("CI_NODE_INDEX", "4"), ("CI_NODE_TOTAL", "3")]),
            "--shard auto: GitLab's CI_NODE_INDEX=4 of CI_NODE_TOTAL=3 is not a shard"
        );
        assert_eq!(
            why(&[("CIRCLE_NODE_INDEX", "x"), ("CIRCLE_NODE_TOTAL", "3")]),
            "--shard auto: CIRCLE_NODE_INDEX=x is not a whole number"
        );
        assert!(why(&[("JOB_COMPLETION_INDEX", "0")]).contains("give --shard-total N"));
    }
}
