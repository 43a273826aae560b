//! What `prompt stats` shows: each prompt version's uses, usage over time, pass and
//! success rates, rating, rank score and rank.

use serde_json::json;

use crate::library::{DayUses, VersionStats};

use super::super::table;
use super::Answer;

/// `prompt stats`: the versions, by prompt then version.
#[derive(Debug, Clone)]
pub(crate) struct StatsAnswer<'a>(pub &'a [VersionStats]);

impl Answer for StatsAnswer<'_> {
    fn json(&self) -> String {
        serde_json::to_string_pretty(&json!(self.0)).unwrap_or_default()
    }

    fn human(&self) -> String {
        if self.0.is_empty() {
            return "the library holds no prompt".into();
        }
        let mut table = table(&[
            "prompt",
            "version",
            "uses",
            "per day",
            "pass rate",
            "success",
            "rating",
            "score",
            "rank",
        ]);
        for v in self.0 {
            table.add_row(vec![
                v.id.clone(),
                v.version.to_string(),
                uses(v),
                sparkline(&v.per_day),
                rate(v.pass_rate, v.checks_total, "check"),
                rate(v.success_rate, v.outcomes, "use"),
                v.rating
                    .map_or_else(|| "-".into(), |r| format!("{r:.2} ({})", v.ratings)),
                v.score.map_or_else(|| "-".into(), |s| format!("{s:.3}")),
                v.rank.map_or_else(|| "-".into(), |r| r.to_string()),
            ]);
        }
        let window = self
            .0
            .iter()
            .flat_map(|v| v.per_day.iter())
            .map(|d| d.day.as_str());
        let (first, last) = (window.clone().min(), window.max());
        let mut text = table.to_string();
        if let (Some(first), Some(last)) = (first, last) {
            text.push_str(&format!(
                "\nper day: uses from {first} to {last} (UTC), one mark a day, · for none"
            ));
        }
        text
    }
}

/// The number of uses, and how many were of each purpose.
fn uses(v: &VersionStats) -> String {
    if v.uses == 0 {
        return "0".into();
    }
    let by: Vec<String> = v
        .uses_by_purpose
        .iter()
        .map(|(purpose, n)| format!("{purpose} {n}"))
        .collect();
    format!("{} ({})", v.uses, by.join(", "))
}

/// A rate as a percentage of its samples.
fn rate(rate: Option<f64>, samples: u64, what: &str) -> String {
    rate.map_or_else(
        || "-".into(),
        |r| format!("{:.0}% of {samples} {what}(s)", r * 100.0),
    )
}

/// Uses per day as one mark a day, the highest day a full block; `·` for none.
fn sparkline(days: &[DayUses]) -> String {
    const MARKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let most = days.iter().map(|d| d.uses).max().unwrap_or(0);
    if most == 0 {
        return "-".into();
    }
    days.iter()
        .map(|d| match d.uses {
            0 => '·',
            n => MARKS[((n * 8).div_ceil(most) as usize).clamp(1, 8) - 1],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn day(day: &str, uses: u64) -> DayUses {
        DayUses {
            day: day.into(),
            uses,
        }
    }

    fn version(version: u64, score: Option<f64>) -> VersionStats {
        VersionStats {
            id: "greeting".into(),
            version,
            uses: 5,
            uses_by_purpose: BTreeMap::from([("render".into(), 1), ("run".into(), 4)]),
            per_day: vec![
                day("2026-11-26", 4),
                day("2026-11-27", 0),
                day("2026-11-28", 1),
            ],
            checks_passed: 7,
            checks_total: 8,
            pass_rate: Some(0.875),
            successes: 3,
            outcomes: 4,
            success_rate: Some(0.75),
            rating: Some(4.5),
            ratings: 2,
            score,
            rank: score.map(|_| 1),
        }
    }

    #[test]
    fn each_version_is_a_row_and_json_holds_every_field() {
        let stats = [version(1, Some(0.4321)), version(2, None)];
        let answer = StatsAnswer(&stats);
        insta::assert_snapshot!("library_stats_human", answer.human());
        let json: serde_json::Value = serde_json::from_str(&answer.json()).expect("JSON");
        assert_eq!(json[0]["uses_by_purpose"], json!({"render": 1, "run": 4}));
        assert_eq!(
            json[0]["per_day"][0],
            json!({"day": "2026-11-26", "uses": 4})
        );
        assert_eq!(json[0]["score"], 0.4321);
        assert_eq!(json[1]["rank"], serde_json::Value::Null);
        assert_eq!(StatsAnswer(&[]).human(), "the library holds no prompt");
    }

    #[test]
    fn a_sparkline_scales_to_the_busiest_day() {
        let days = [day("a", 0), day("b", 1), day("c", 8), day("d", 4)];
        assert_eq!(sparkline(&days), "·▁█▄");
        assert_eq!(sparkline(&[day("a", 0)]), "-");
        assert_eq!(sparkline(&[]), "-");
    }
}
