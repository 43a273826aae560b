//! A suite's self-play turns given their speakers just before it plays: an Arena
//! project's `self_play` roles and personas are read, each scenario with self-play
//! turns they can play gets them as played turns, and its assertions are planned
//! again to judge them. When the suite's planner has attached them already, nothing
//! is left to do here.

use std::path::Path;

use crate::arena;
use crate::config::RuntimeConfig;
use crate::doc::Diagnostics;
use crate::provider::Answers;

use super::super::{ScenarioPlan, SuitePlan, plan_assertions};
use super::SelfPlay;

/// Self-play as an Arena project declares it (`spec.self_play` of the file at
/// `source`), its role providers looked up in `config`. A section with
/// `enabled: false` declares no role.
pub(crate) fn from_arena(
    source: &Path,
    section: &arena::SelfPlay,
    config: &RuntimeConfig,
) -> Result<(SelfPlay, Diagnostics), Diagnostics> {
    if !section.enabled {
        return Ok((SelfPlay::default(), Diagnostics::default()));
    }
    let roles: Vec<_> = section
        .roles
        .iter()
        .map(|r| (r.id.clone(), r.provider.clone(), r.pos))
        .collect();
    SelfPlay::from_parts(source, &section.personas, &roles, config)
}

/// The scenarios of `plan` with self-play turns to attach, planned again with them
/// (`None`: the scenario as planned), and what was found on the way.
pub(crate) fn replan(plan: &SuitePlan) -> (Vec<Option<ScenarioPlan>>, Diagnostics) {
    let untouched = || plan.scenarios.iter().map(|_| None).collect();
    let waiting = |p: &ScenarioPlan| p.scenario.unplayed.iter().any(|u| u.self_play.is_some());
    if !plan.scenarios.iter().any(waiting) || !arena::is_arena(&plan.pack_path) {
        return (untouched(), Diagnostics::default());
    }
    let project = match arena::load(&plan.pack_path, false) {
        Ok(loaded) => loaded.value,
        Err(rejected) => return (untouched(), rejected.0),
    };
    let Some(section) = &project.arena.self_play else {
        return (untouched(), Diagnostics::default());
    };
    // With problems in the personas or roles, the turns stay unplayed, saying so.
    let (self_play, mut found) = match from_arena(&plan.pack_path, section, &plan.config) {
        Ok((ready, found)) => (Some(ready), found),
        Err(problems) => (None, problems),
    };
    let first_error = found
        .iter()
        .find(|d| d.is_error())
        .map(ToString::to_string)
        .unwrap_or_default();
    let bound = |kind: &str| plan.config.evals.contains_key(kind);
    let mut out = Vec::with_capacity(plan.scenarios.len());
    for p in &plan.scenarios {
        if !waiting(p) {
            out.push(None);
            continue;
        }
        let mut scenario = p.scenario.clone();
        let mock_scenario = match &p.model.answers {
            Answers::Mock { scenario, .. } => scenario.clone(),
            _ => scenario.id.clone(),
        };
        match &self_play {
            Some(self_play) => found.extend(self_play.attach(&mut scenario, &mock_scenario)),
            None => {
                for turn in &mut scenario.unplayed {
                    if turn.self_play.is_some() {
                        turn.reason = format!(
                            "not played: the self-play personas or roles of {} have errors, first {first_error}",
                            plan.pack_path.display()
                        );
                    }
                }
            }
        }
        let planned = match plan_assertions(&scenario, &bound) {
            Ok(planned) => planned,
            Err(problems) => {
                found.extend(problems.into_iter().collect());
                out.push(None);
                continue;
            }
        };
        let mut evals: Vec<_> = p
            .evals
            .iter()
            .filter(|e| !p.checks.iter().any(|c| c.id == e.id))
            .cloned()
            .collect();
        evals.extend(planned.evals);
        out.push(Some(ScenarioPlan {
            scenario,
            prompt: p.prompt.clone(),
            system_prompt: p.system_prompt.clone(),
            variables: p.variables.clone(),
            evals,
            checks: planned.checks,
            model: p.model.clone(),
        }));
    }
    // What the planner said already (it attached what it could) is not said twice.
    let found = found
        .iter()
        .filter(|d| !plan.warnings.iter().any(|seen| seen == *d))
        .cloned()
        .collect();
    (out, found)
}
