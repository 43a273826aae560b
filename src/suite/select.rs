//! Which scenarios a run plays: `--filter` by id or label, then `--shard K/N`.

use super::{Scenario, Shard};

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
/// filters), then the shard's slice of them. Slices are dealt in id order, so the
/// N shards of a suite cover it exactly once, each within one scenario of the
/// others' size, on any machine.
pub(crate) fn select(
    mut scenarios: Vec<Scenario>,
    filters: &[String],
    shard: Option<Shard>,
) -> Vec<Scenario> {
    scenarios.retain(|s| filters.is_empty() || filters.iter().any(|f| matches(s, f)));
    scenarios.sort_by(|a, b| a.id.cmp(&b.id).then_with(|| a.path.cmp(&b.path)));
    match shard {
        None => scenarios,
        Some(shard) => scenarios
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % shard.count == shard.index - 1)
            .map(|(_, s)| s)
            .collect(),
    }
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
            let slice = select(all.clone(), &[], Some(Shard { index, count: 3 }));
            assert!((2..=3).contains(&slice.len()), "{:?}", ids(&slice));
            union.extend(ids(&slice).into_iter().map(str::to_string));
        }
        union.sort();
        assert_eq!(union, ["a", "b", "c", "d", "e", "f", "g"]);
        let reversed: Vec<Scenario> = all.iter().rev().cloned().collect();
        let shard = Some(Shard { index: 2, count: 3 });
        assert_eq!(
            ids(&select(all.clone(), &[], shard)),
            ids(&select(reversed, &[], shard))
        );
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
