//! When an eval runs: its trigger, at a point of the session.

use crate::pack::{EvalDef, Trigger};

/// Where the session is when evals are considered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Point {
    /// Turn `n` (from 1) has completed with an answer.
    TurnEnd(u32),
    /// The conversation is over.
    SessionEnd,
}

/// Whether `eval` runs at `point` of session `session_id`. Sampling triggers pick
/// the same turns and sessions on every run, as PromptKit does: the FNV-1a hash of
/// the session id followed by the turn number (0 for `sample_sessions`), modulo
/// 10,000, is below the percentage times 100. An eval tied to one turn runs after
/// that turn only.
pub(crate) fn due(eval: &EvalDef, point: Point, session_id: &str) -> bool {
    let sampled = |turn: u32| {
        bucket(&format!("{session_id}{turn}")) < (eval.sample_percentage * 100.0) as u64
    };
    if let Some(only) = eval.turn {
        return point == Point::TurnEnd(only);
    }
    match (eval.trigger, point) {
        (Trigger::EveryTurn, Point::TurnEnd(_)) => true,
        (Trigger::SampleTurns, Point::TurnEnd(turn)) => sampled(turn),
        (Trigger::OnSessionComplete | Trigger::OnConversationComplete, Point::SessionEnd) => true,
        (Trigger::SampleSessions, Point::SessionEnd) => sampled(0),
        _ => false,
    }
}

/// FNV-1a (64 bit) of `key`, modulo 10,000.
fn bucket(key: &str) -> u64 {
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    hash % 10_000
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Pos;
    use serde_json::json;

    fn eval(trigger: Trigger, sample_percentage: f64) -> EvalDef {
        EvalDef {
            id: "e".into(),
            eval_type: "contains".into(),
            trigger,
            params: json!({}),
            metric: None,
            threshold: None,
            sample_percentage,
            enabled: true,
            when: Default::default(),
            description: None,
            pos: Pos::START,
            turn: None,
        }
    }

    #[test]
    fn triggers_pick_their_points() {
        let every = eval(Trigger::EveryTurn, 5.0);
        assert!(due(&every, Point::TurnEnd(1), "s"));
        assert!(!due(&every, Point::SessionEnd, "s"));
        let end = eval(Trigger::OnSessionComplete, 5.0);
        assert!(due(&end, Point::SessionEnd, "s") && !due(&end, Point::TurnEnd(2), "s"));
        assert!(!due(
            &eval(Trigger::OnWorkflowStep, 100.0),
            Point::SessionEnd,
            "s"
        ));
        let second = EvalDef {
            turn: Some(2),
            ..eval(Trigger::EveryTurn, 5.0)
        };
        assert!(due(&second, Point::TurnEnd(2), "s"));
        assert!(!due(&second, Point::TurnEnd(1), "s") && !due(&second, Point::SessionEnd, "s"));
    }

    #[test]
    fn sampling_is_deterministic_and_follows_the_percentage() {
        let all = eval(Trigger::SampleTurns, 100.0);
        let none = eval(Trigger::SampleTurns, 0.0);
        let half = eval(Trigger::SampleTurns, 50.0);
        let picked: Vec<bool> = (1..=200)
            .map(|t| due(&half, Point::TurnEnd(t), "s"))
            .collect();
        let again: Vec<bool> = (1..=200)
            .map(|t| due(&half, Point::TurnEnd(t), "s"))
            .collect();
        assert_eq!(picked, again);
        let count = picked.iter().filter(|p| **p).count();
        assert!((60..=140).contains(&count), "{count} of 200");
        assert!((1..=50).all(|t| due(&all, Point::TurnEnd(t), "s")));
        assert!((1..=50).all(|t| !due(&none, Point::TurnEnd(t), "s")));
    }
}
