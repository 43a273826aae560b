//! Which scenarios a run plays: `--filter` by id or label, then `--shard K/N`, dealt
//! round-robin in id order or balanced by an earlier run's timings.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use super::{Scenario, Shard};

/// How long each scenario took in an earlier run, in milliseconds, by id.
pub(crate) type Timings = BTreeMap<String, u64>;

/// The slice of a suite one machine plays: the K-th of N shards, dealt round-robin
/// in id order, or, with timings, so that the shards take about as long.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Slice {
    pub shard: Shard,
    pub timings: Option<Arc<Timings>>,
}

impl fmt::Display for Slice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.shard.fmt(f)
    }
}

/// Whether `--filter` picks the scenario: a `KEY=VALUE` filter matches a label
/// exactly; any other text is a part of the scenario's id.
pub(crate) fn matches(scenario: &Scenario, filter: &str) -> bool {
    if let Some((key, value)) = filter.split_once('=')
        && scenario.labels.get(key).is_some_and(|v| v == value)
    {
        return true;
    }
    scenario.id.contains(filter)
}

/// The scenarios a run plays, in id order: those any filter picks (all, without
/// filters), then the slice's share of them ([`dealt`]).
pub(crate) fn select(
    mut scenarios: Vec<Scenario>,
    filters: &[String],
    slice: Option<&Slice>,
) -> Vec<Scenario> {
    scenarios.retain(|s| filters.is_empty() || filters.iter().any(|f| matches(s, f)));
    scenarios.sort_by(|a, b| a.id.cmp(&b.id).then_with(|| a.path.cmp(&b.path)));
    match slice {
        None => scenarios,
        Some(slice) => dealt(scenarios, |s| &s.id, slice),
    }
}

/// The items (in id order) that fall to `slice`. Round-robin, the N shards are each
/// within one item of the others' size; by timings, each item goes, longest first
/// (ties by id), to the shard with the least time so far (ties to the first), an
/// item the timings do not know weighing their mean. Either way the deal depends
/// on nothing but the ids and the timings, so the N machines of a suite agree and
/// cover it exactly once.
pub(crate) fn dealt<T>(items: Vec<T>, id: impl Fn(&T) -> &str, slice: &Slice) -> Vec<T> {
    let count = slice.shard.count;
    let owners: Vec<usize> = match &slice.timings {
        None => (0..items.len()).map(|i| i % count).collect(),
        Some(timings) => {
            let ids: Vec<&str> = items.iter().map(&id).collect();
            balanced(&ids, timings, count)
        }
    };
    items
        .into_iter()
        .zip(owners)
        .filter(|(_, owner)| *owner == slice.shard.index - 1)
        .map(|(item, _)| item)
        .collect()
}

/// The shard (from 0) each id goes to when the shards are balanced by `timings`.
fn balanced(ids: &[&str], timings: &Timings, count: usize) -> Vec<usize> {
    let known: Vec<u64> = ids
        .iter()
        .filter_map(|id| timings.get(*id).copied())
        .collect();
    let mean = match known.len() {
        0 => 1,
        n => known.iter().sum::<u64>() / n as u64,
    };
    let weight = |i: usize| timings.get(ids[i]).copied().unwrap_or(mean);
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_by(|&a, &b| weight(b).cmp(&weight(a)).then_with(|| ids[a].cmp(ids[b])));
    let mut loads = vec![0u64; count];
    let mut owners = vec![0; ids.len()];
    for i in order {
        let lightest = (0..count).min_by_key(|&k| (loads[k], k)).unwrap_or(0);
        loads[lightest] += weight(i);
        owners[i] = lightest;
    }
    owners
}

/// What a suite is, as shards name it: a SHA-256 over the id and file content of every scenario the filters pick, in id order, before any shard is
/// dealt. Shards of one suite agree on it on any machine; another filter, another
/// scenario or an edited file makes another suite.
pub(crate) fn identity<'a>(
    scenarios: impl IntoIterator<Item = &'a Scenario>,
    filters: &[String],
) -> String {
    let mut picked: Vec<&Scenario> = scenarios
        .into_iter()
        .filter(|s| filters.is_empty() || filters.iter().any(|f| matches(s, f)))
        .collect();
    picked.sort_by(|a, b| a.id.cmp(&b.id).then_with(|| a.path.cmp(&b.path)));
    let mut all = Vec::new();
    for scenario in picked {
        // An unreadable file hashes as empty: the run itself reports it.
        let content = std::fs::read(&scenario.path).unwrap_or_default();
        for part in [
            scenario.id.as_bytes(),
            crate::library::sha256_hex(&content).as_bytes(),
        ] {
            all.extend_from_slice(&(part.len() as u64).to_le_bytes());
            all.extend_from_slice(part);
        }
    }
    crate::library::sha256_hex(&all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Pos;

    fn scenario(id: &str, labels: &[(&str, &str)]) -> Scenario {
        Scenario {
            path: format!("{id}.scenario.yaml").into(),
            id: id.into(),
            task_type: "support".into(),
            task_type_pos: Pos::START,
            description: String::new(),
            labels: labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            variables: Default::default(),
            tool_policy: None,
            turns: Vec::new(),
            unplayed: Vec::new(),
            conversation_assertions: Vec::new(),
            trials: 1,
            providers: Vec::new(),
            streaming: None,
            pos: Pos::START,
        }
    }

    fn ids(scenarios: &[Scenario]) -> Vec<&str> {
        scenarios.iter().map(|s| s.id.as_str()).collect()
    }

    #[test]
    fn shards_cover_the_suite_once_whatever_the_input_order() {
        let all: Vec<Scenario> = ["e", "b", "a", "d", "c", "g", "f"]
            .iter()
            .map(|id| scenario(id, &[]))
            .collect();
        let mut union = Vec::new();
        for index in 1..=3 {
            let slice = select(all.clone(), &[], Some(&round_robin(index, 3)));
            assert!((2..=3).contains(&slice.len()), "{:?}", ids(&slice));
            union.extend(ids(&slice).into_iter().map(str::to_string));
        }
        union.sort();
        assert_eq!(union, ["a", "b", "c", "d", "e", "f", "g"]);
        let reversed: Vec<Scenario> = all.iter().rev().cloned().collect();
        let shard = round_robin(2, 3);
        assert_eq!(
            ids(&select(all.clone(), &[], Some(&shard))),
            ids(&select(reversed, &[], Some(&shard)))
        );
    }

    fn round_robin(index: usize, count: usize) -> Slice {
        Slice {
            shard: Shard { index, count },
            timings: None,
        }
    }

    fn by_timings(index: usize, count: usize, timings: &[(&str, u64)]) -> Slice {
        let timings = timings
            .iter()
            .map(|(id, ms)| (id.to_string(), *ms))
            .collect();
        Slice {
            shard: Shard { index, count },
            timings: Some(Arc::new(timings)),
        }
    }

    #[test]
    fn timings_balance_the_shards_longest_first() {
        let all: Vec<Scenario> = ["a", "b", "c", "d", "e"]
            .iter()
            .map(|id| scenario(id, &[]))
            .collect();
        // `a` alone takes as long as the rest together; `e` is unknown and weighs
        // the mean of the others (250).
        let timings = [("a", 600), ("b", 200), ("c", 100), ("d", 100)];
        let shard = |index| {
            ids(&select(
                all.clone(),
                &[],
                Some(&by_timings(index, 2, &timings)),
            ))
            .into_iter()
            .map(str::to_string)
            .collect::<Vec<_>>()
        };
        assert_eq!(shard(1), ["a"]);
        assert_eq!(shard(2), ["b", "c", "d", "e"]);
    }

    proptest::proptest! {
        #[test]
        fn timed_shards_cover_the_suite_once(
            times in proptest::collection::btree_map("[a-f]{1,3}", 0u64..5_000, 0..25),
            extra in proptest::collection::btree_set("[g-k]{1,2}", 0..5),
            count in 1usize..6,
        ) {
            let all: Vec<Scenario> = times
                .keys()
                .chain(&extra)
                .map(|id| scenario(id, &[]))
                .collect();
            let timings: Vec<(&str, u64)> = times.iter().map(|(id, ms)| (id.as_str(), *ms)).collect();
            let mut union: Vec<String> = Vec::new();
            for index in 1..=count {
                let slice = by_timings(index, count, &timings);
                union.extend(select(all.clone(), &[], Some(&slice)).into_iter().map(|s| s.id));
            }
            union.sort();
            let mut expected: Vec<String> = all.iter().map(|s| s.id.clone()).collect();
            expected.sort();
            proptest::prop_assert_eq!(union, expected);
        }
    }

    #[test]
    fn filters_pick_by_id_part_or_exact_label() {
        let all = vec![
            scenario("refund-denied", &[("area", "refunds")]),
            scenario("lookup", &[("area", "orders")]),
            scenario("refund-ok", &[]),
        ];
        let picked = |filters: &[&str]| {
            let filters: Vec<String> = filters.iter().map(|f| f.to_string()).collect();
            ids(&select(all.clone(), &filters, None))
                .into_iter()
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(picked(&["refund"]), ["refund-denied", "refund-ok"]);
        assert_eq!(picked(&["area=orders"]), ["lookup"]);
        assert_eq!(picked(&["area=order"]), Vec::<String>::new());
        assert_eq!(picked(&["lookup", "refund-ok"]), ["lookup", "refund-ok"]);
        assert_eq!(picked(&[]).len(), 3);
    }
}
