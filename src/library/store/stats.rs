//! What the library knows about each prompt version: its uses (by purpose and per
//! day), the checks of the runs that used it, its success rate, its ratings, and the
//! rank score those make; and listings sorted by rank or by recency.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, SystemTime};

use rusqlite::params_from_iter;
use serde::Serialize;

use super::audit::AuditRecord;
use super::prompts::{LISTED, PROMPT_COLUMNS, StoredPrompt, stored_prompt, tagged, tags_param};
use super::rank::{Evidence, better, rank_score};
use super::{Library, Result};

/// How many days `per_day` covers at most.
pub const USAGE_DAYS: u64 = 14;

/// The purposes whose checks count towards a version's pass rate.
const CHECKED_PURPOSES: [&str; 2] = ["run", "chain"];

/// One prompt version's evidence and rank.
#[derive(Debug, Clone, Serialize)]
pub struct VersionStats {
    pub id: String,
    pub version: u64,
    /// Every recorded use.
    pub uses: u64,
    /// Uses by purpose (`render`, `run`, `chain`; `-` for records without one).
    pub uses_by_purpose: BTreeMap<String, u64>,
    /// Uses per day (UTC), oldest first: the last [`USAGE_DAYS`] days up to today,
    /// or fewer, from the day of the first use. Empty without uses.
    pub per_day: Vec<DayUses>,
    /// Checks (assertions and evals) passed and checked in runs and chains.
    pub checks_passed: u64,
    pub checks_total: u64,
    pub pass_rate: Option<f64>,
    /// Uses that succeeded, of those whose outcome was recorded.
    pub successes: u64,
    pub outcomes: u64,
    pub success_rate: Option<f64>,
    pub rating: Option<f64>,
    pub ratings: u64,
    /// From 0 to 1 (see the `rank` module); `None` without any evidence.
    pub score: Option<f64>,
    /// 1 for the best-scored version of its prompt; `None` without a score.
    pub rank: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DayUses {
    /// `YYYY-MM-DD`, UTC.
    pub day: String,
    pub uses: u64,
}

/// How `list` orders prompts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ListOrder {
    /// By id.
    #[default]
    Id,
    /// By the rank score of the latest version, best first; then by id.
    Rank,
    /// The most recently changed first; then by id.
    Recent,
}

impl VersionStats {
    fn new(id: &str, version: u64) -> Self {
        Self {
            id: id.to_string(),
            version,
            uses: 0,
            uses_by_purpose: BTreeMap::new(),
            per_day: Vec::new(),
            checks_passed: 0,
            checks_total: 0,
            pass_rate: None,
            successes: 0,
            outcomes: 0,
            success_rate: None,
            rating: None,
            ratings: 0,
            score: None,
            rank: None,
        }
    }

    fn count(&mut self, record: &AuditRecord) {
        self.uses += 1;
        let purpose = record.purpose.as_deref().unwrap_or("-");
        *self.uses_by_purpose.entry(purpose.to_string()).or_default() += 1;
        if let Some(checks) = record
            .checks
            .filter(|_| CHECKED_PURPOSES.contains(&purpose))
        {
            self.checks_passed += checks.passed;
            self.checks_total += checks.total;
        }
        if let Some(success) = record.success {
            self.outcomes += 1;
            self.successes += u64::from(success);
        }
    }

    /// The rates and the score from the counts.
    fn settle(&mut self) {
        let rate = |part: u64, whole: u64| (whole > 0).then(|| part as f64 / whole as f64);
        self.pass_rate = rate(self.checks_passed, self.checks_total);
        self.success_rate = rate(self.successes, self.outcomes);
        let evidence =
            |rate: Option<f64>, samples: u64| rate.map(|rate| Evidence { rate, samples });
        self.score = rank_score([
            evidence(self.rating.map(|r| r / 5.0), self.ratings),
            evidence(self.pass_rate, self.checks_total),
            evidence(self.success_rate, self.outcomes),
        ]);
    }
}

impl Library {
    /// Every version of one prompt (of every prompt in the library if `None`), by id
    /// then version, with its uses, checks, ratings and rank; `now` ends the window of
    /// uses per day.
    pub fn stats(&self, id: Option<&str>, now: SystemTime) -> Result<Vec<VersionStats>> {
        if let Some(id) = id {
            self.get(id, None)?;
        }
        let mut versions: Vec<VersionStats> = self
            .conn
            .prepare(
                "SELECT v.prompt_id, v.version FROM versions v JOIN prompts p ON p.id = v.prompt_id
                 WHERE p.removed = 0 AND (?1 IS NULL OR p.id = ?1) ORDER BY v.prompt_id, v.version",
            )?
            .query_map([id], |row| {
                Ok(VersionStats::new(&row.get::<_, String>(0)?, row.get(1)?))
            })?
            .collect::<std::result::Result<_, _>>()?;
        let at: HashMap<(String, u64), usize> = versions
            .iter()
            .enumerate()
            .map(|(i, v)| ((v.id.clone(), v.version), i))
            .collect();
        let mut days: Vec<Vec<String>> = vec![Vec::new(); versions.len()];
        for record in self.uses_of(id)? {
            if let Some(&i) = at.get(&(record.prompt_id.clone(), record.version)) {
                versions[i].count(&record);
                days[i].push(record.at.chars().take(10).collect());
            }
        }
        let mut ratings = self.conn.prepare(
            "SELECT prompt_id, version, AVG(score), COUNT(*) FROM ratings
             WHERE ?1 IS NULL OR prompt_id = ?1 GROUP BY prompt_id, version",
        )?;
        let rows = ratings.query_map([id], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, u64>(1)?,
                row.get::<_, f64>(2)?,
                row.get::<_, u64>(3)?,
            ))
        })?;
        for row in rows {
            let (prompt, version, mean, count) = row?;
            if let Some(&i) = at.get(&(prompt, version)) {
                versions[i].rating = Some(mean);
                versions[i].ratings = count;
            }
        }
        let today = day_of(now);
        for (v, days) in versions.iter_mut().zip(days) {
            v.per_day = per_day(&days, now, &today);
            v.settle();
        }
        rank_within_prompts(&mut versions);
        Ok(versions)
    }

    /// The latest version of every prompt carrying all of `tags`, with its rank score,
    /// best first (those without a score last); equal scores by id.
    pub fn list_ranked(&self, tags: &[String]) -> Result<Vec<(StoredPrompt, Option<f64>)>> {
        let scores = self.scores()?;
        let mut ranked: Vec<(StoredPrompt, Option<f64>)> = self
            .list_in(tags, ListOrder::Id)?
            .into_iter()
            .map(|p| {
                let score = scores.get(&(p.id.clone(), p.version)).copied().flatten();
                (p, score)
            })
            .collect();
        // Stable: equal scores keep the order by id.
        ranked.sort_by(|a, b| better(a.1, b.1));
        Ok(ranked)
    }

    /// The latest version of every prompt carrying all of `tags`, in `order`.
    pub fn list_in(&self, tags: &[String], order: ListOrder) -> Result<Vec<StoredPrompt>> {
        if order == ListOrder::Rank {
            return Ok(self
                .list_ranked(tags)?
                .into_iter()
                .map(|(p, _)| p)
                .collect());
        }
        let sql = format!(
            "SELECT {PROMPT_COLUMNS} FROM {LISTED} {} ORDER BY {}",
            tagged(tags),
            if order == ListOrder::Recent {
                "v.created_at DESC, p.id"
            } else {
                "p.id"
            }
        );
        let params = (!tags.is_empty()).then(|| tags_param(tags));
        let prompts = self
            .conn
            .prepare(&sql)?
            .query_map(params_from_iter(params), stored_prompt)?
            .collect::<std::result::Result<_, _>>()?;
        Ok(prompts)
    }

    /// The rank score of every version of every prompt.
    fn scores(&self) -> Result<HashMap<(String, u64), Option<f64>>> {
        Ok(self
            .stats(None, SystemTime::now())?
            .into_iter()
            .map(|v| ((v.id, v.version), v.score))
            .collect())
    }
}

/// Numbers each prompt's scored versions 1, 2, … best first; equal scores rank the
/// newer version first.
fn rank_within_prompts(versions: &mut [VersionStats]) {
    let mut order: Vec<usize> = (0..versions.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&versions[a], &versions[b]);
        a.id.cmp(&b.id)
            .then(better(a.score, b.score))
            .then(b.version.cmp(&a.version))
    });
    let mut position = 0;
    let mut prompt: Option<&str> = None;
    let mut ranks = vec![None; versions.len()];
    for &i in &order {
        let v = &versions[i];
        if prompt != Some(v.id.as_str()) {
            prompt = Some(&v.id);
            position = 0;
        }
        if v.score.is_some() {
            position += 1;
            ranks[i] = Some(position);
        }
    }
    for (v, rank) in versions.iter_mut().zip(ranks) {
        v.rank = rank;
    }
}

/// The UTC day (`YYYY-MM-DD`) of a time.
fn day_of(time: SystemTime) -> String {
    humantime::format_rfc3339_seconds(time)
        .to_string()
        .chars()
        .take(10)
        .collect()
}

/// Uses per day from the days of the uses: the last [`USAGE_DAYS`] days up to
/// `today`, starting no earlier than the first use.
fn per_day(days: &[String], now: SystemTime, today: &str) -> Vec<DayUses> {
    let Some(first) = days.iter().min() else {
        return Vec::new();
    };
    let mut window: Vec<DayUses> = (0..USAGE_DAYS)
        .rev()
        .map(|back| {
            let day = now
                .checked_sub(Duration::from_secs(back * 86_400))
                .map_or_else(|| today.to_string(), day_of);
            DayUses { day, uses: 0 }
        })
        .filter(|d| d.day >= *first)
        .collect();
    for day in days {
        if let Some(slot) = window.iter_mut().find(|d| d.day == *day) {
            slot.uses += 1;
        }
    }
    window
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::audit::PromptUse;
    use super::super::tests::library;
    use super::*;

    fn template(id: &str, text: &str) -> serde_json::Value {
        json!({"id": id, "title": "T", "template": text})
    }

    fn use_of(
        lib: &mut Library,
        id: &str,
        version: u64,
        purpose: &str,
        ok: bool,
        checks: (u64, u64),
    ) {
        lib.record_use(&PromptUse {
            who: "me",
            prompt_id: id,
            version,
            content_hash: String::new(),
            variables: json!({}),
            purpose,
            success: Some(ok),
            checks: Some(checks),
        })
        .expect("recorded");
    }

    #[test]
    fn uses_checks_ratings_and_rank_per_version() {
        let (_dir, mut lib) = library();
        lib.add(&template("p", "one"), "me").expect("add");
        lib.add(&template("p", "two"), "me").expect("add");
        lib.add(&template("p", "three"), "me").expect("add");
        lib.add(&template("q", "other"), "me").expect("add");
        for _ in 0..8 {
            use_of(&mut lib, "p", 1, "run", true, (4, 4));
        }
        use_of(&mut lib, "p", 2, "run", false, (1, 4));
        // A render's checks do not count: only runs and chains are checked.
        use_of(&mut lib, "p", 2, "render", true, (9, 9));
        lib.rate("p", Some(2), 5.0, None, "me").expect("rate");
        lib.rate("p", Some(2), 4.0, None, "me").expect("rate");
        let stats = lib.stats(Some("p"), SystemTime::now()).expect("stats");
        assert_eq!(stats.len(), 3);
        let (one, two, three) = (&stats[0], &stats[1], &stats[2]);
        assert_eq!((one.uses, one.checks_passed, one.checks_total), (8, 32, 32));
        assert_eq!(one.success_rate, Some(1.0));
        assert_eq!(
            two.uses_by_purpose,
            BTreeMap::from([("render".into(), 1), ("run".into(), 1)])
        );
        assert_eq!((two.checks_passed, two.checks_total), (1, 4));
        assert_eq!((two.successes, two.outcomes), (1, 2));
        assert_eq!((two.rating, two.ratings), (Some(4.5), 2));
        assert_eq!(three.score, None);
        assert_eq!((one.rank, two.rank, three.rank), (Some(1), Some(2), None));
        let today = day_of(SystemTime::now());
        assert_eq!(
            one.per_day,
            [DayUses {
                day: today,
                uses: 8
            }]
        );
        assert!(three.per_day.is_empty());
        assert!(matches!(
            lib.stats(Some("nope"), SystemTime::now()),
            Err(super::super::LibraryError::NotFound(_))
        ));
        assert_eq!(lib.stats(None, SystemTime::now()).expect("all").len(), 4);
    }

    #[test]
    fn the_usage_window_is_the_last_fourteen_days_from_the_first_use() {
        let now = humantime::parse_rfc3339("2026-11-28T12:00:00Z").expect("time");
        let days: Vec<String> = ["2026-11-01", "2026-11-20", "2026-11-28", "2026-11-28"]
            .map(String::from)
            .into();
        let window = per_day(&days, now, "2026-11-28");
        assert_eq!(window.len(), 14);
        assert_eq!(window[0].day, "2026-11-15");
        assert_eq!(
            window[5],
            DayUses {
                day: "2026-11-20".into(),
                uses: 1
            }
        );
        assert_eq!(window[13].uses, 2);
        let recent = per_day(&days[2..], now, "2026-11-28");
        assert_eq!(
            recent,
            [DayUses {
                day: "2026-11-28".into(),
                uses: 2
            }]
        );
    }
}
