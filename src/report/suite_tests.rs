//! The suite's renderers, each from one record made here: the line per scenario
//! and the closing table (human), the JSON document and the JUnit XML.

use indexmap::IndexMap;
use serde_json::json;

use crate::doc::Pos;
use crate::evals::{EvalResult, EvalStatus};
use crate::session::{EventLog, SessionEvent, TurnEnd};

use super::{
    Check, Outcome, RunRecord, ScenarioRecord, Shard, SuiteJson, SuiteRecord, UnplayedTurn,
    Verdict, suite_junit, suite_summary, totals_line,
};

pub(super) fn eval(id: &str, status: EvalStatus, why: &str) -> EvalResult {
    let mut result = EvalResult::skipped(id, "content_includes", "every_turn", why.into());
    result.status = status;
    result.passed = Some(status == EvalStatus::Passed);
    result.score = Some(if status == EvalStatus::Passed {
        1.0
    } else {
        0.0
    });
    result.turn = Some(1);
    result.duration_ms = 2;
    result
}

/// One trial: a user turn, the model's answer, and the results of its evals.
pub(super) fn trial(scenario: &str, answer: &str, evals: Vec<EvalResult>) -> RunRecord {
    let mut events = vec![
        SessionEvent::SessionStart {
            session_id: format!("{scenario}-1"),
            prompt: "chat".into(),
            system_prompt: "Greet the traveller.".into(),
            variables: json!({}),
        },
        SessionEvent::User {
            turn: 1,
            content: "Greet me.".into(),
        },
        SessionEvent::ModelCall {
            turn: 1,
            round: 1,
            answered_by: format!("mock: scenario {scenario}, turn 1"),
            latency_ms: 0,
            usage: None,
        },
        SessionEvent::Assistant {
            turn: 1,
            content: answer.into(),
            tool_calls: Vec::new(),
        },
    ];
    events.extend(evals.into_iter().map(|e| SessionEvent::Eval(Box::new(e))));
    RunRecord {
        prompt: "chat".into(),
        scenario: scenario.into(),
        variables: json!({}),
        system_prompt: "Greet the traveller.".into(),
        messages: Default::default(),
        events: EventLog::from_events(events),
        turns: vec![TurnEnd::Answered],
        dropped_events: 0,
        duration_ms: 12,
        exit_code: 0,
        warnings: Default::default(),
        library_prompt: None,
    }
}

fn check(id: &str, place: &str, message: Option<&str>) -> Check {
    Check {
        id: id.into(),
        kind: "content_includes".into(),
        message: message.map(str::to_string),
        turn: Some(1),
        pass_threshold: 1.0,
        place: place.into(),
        not_played: None,
        pos: Pos::START,
    }
}

fn verdict(
    check: Check,
    outcome: Outcome,
    passes: u32,
    trials: u32,
    detail: Option<&str>,
) -> Verdict {
    Verdict {
        skipped: outcome == Outcome::Skipped,
        check,
        outcome,
        passes,
        trials,
        detail: detail.map(str::to_string),
    }
}

fn scenario(
    id: &str,
    trials: Vec<RunRecord>,
    verdicts: Vec<Verdict>,
    exit_code: u8,
) -> ScenarioRecord {
    ScenarioRecord {
        id: id.into(),
        file: format!("scenarios/{id}.scenario.yaml").into(),
        description: format!("The {id} scenario"),
        labels: IndexMap::from([("area".to_string(), "greetings".to_string())]),
        trials,
        verdicts,
        unplayed_turns: Vec::new(),
        played_in_part: Vec::new(),
        self_play_turns: Vec::new(),
        partial: false,
        error: None,
        exit_code,
        duration_ms: 40,
    }
}

/// Passes its one assertion.
fn passed() -> ScenarioRecord {
    scenario(
        "greets",
        vec![trial(
            "greets",
            "Hello, traveller.",
            vec![eval("a1", EvalStatus::Passed, "")],
        )],
        vec![verdict(
            check("a1", "turn 1", None),
            Outcome::Passed,
            1,
            1,
            None,
        )],
        0,
    )
}

/// Fails its one assertion in one of its two trials.
fn failed() -> ScenarioRecord {
    scenario(
        "names-the-city",
        vec![
            trial(
                "names-the-city",
                "Hello, Paris.",
                vec![eval("a1", EvalStatus::Passed, "")],
            ),
            trial(
                "names-the-city",
                "Hello.",
                vec![eval("a1", EvalStatus::Failed, "missing `Paris`")],
            ),
        ],
        vec![verdict(
            check("a1", "turn 1", Some("names the city")),
            Outcome::Failed,
            1,
            2,
            Some("missing `Paris`"),
        )],
        1,
    )
}

/// One assertion passed, one skipped; a turn not played, one played in part.
fn partial() -> ScenarioRecord {
    let mut skipped = check("a2", "turn 2 of the file (`assistant`)", None);
    skipped.turn = None;
    skipped.not_played = Some("not played: an `assistant` turn".into());
    let mut partial = scenario(
        "mixed",
        vec![trial(
            "mixed",
            "Hello, traveller.",
            vec![eval("a1", EvalStatus::Passed, "")],
        )],
        vec![
            verdict(check("a1", "turn 1", None), Outcome::Passed, 1, 1, None),
            verdict(
                skipped,
                Outcome::Skipped,
                0,
                1,
                Some("not played: an `assistant` turn"),
            ),
        ],
        0,
    );
    partial.partial = true;
    partial.unplayed_turns = vec![
        UnplayedTurn {
            index: 2,
            role: "assistant".into(),
            reason: "not played: an `assistant` turn".into(),
            asserted: true,
        },
        UnplayedTurn {
            index: 3,
            role: "traveller".into(),
            reason: "self-play needs a real model".into(),
            asserted: false,
        },
    ];
    partial.played_in_part = vec![
        "turn 1: played in part, its `image` part(s) not sent (only its text reaches the model)"
            .into(),
    ];
    partial
}

/// A suite of three scenarios and one never started.
fn record() -> SuiteRecord {
    SuiteRecord {
        identity: String::new(),
        fingerprint: Default::default(),
        pack: "greeter.pack.json".into(),
        shard: Some(Shard { index: 1, count: 2 }),
        jobs: 2,
        scenarios: vec![passed(), failed(), partial()],
        not_started: vec!["late".into()],
        duration_ms: 130,
        exit_code: 1,
        warnings: Default::default(),
        library_prompt: None,
    }
}

#[test]
fn human_report_has_a_line_per_scenario_then_the_table_and_totals() {
    let record = record();
    let mut text: Vec<String> = record.scenarios.iter().map(ScenarioRecord::line).collect();
    text.push(suite_summary(&record));
    insta::assert_snapshot!(text.join("\n"));
}

#[test]
fn totals_line_counts_every_result_and_the_scenarios_not_started() {
    insta::assert_snapshot!(
        totals_line(&record()),
        @"suite: 4 scenario(s) in 130 ms (-j 2, shard 1/2): 1 passed, 1 partial, 1 failed, 1 not started; exit 1"
    );
}

#[test]
fn json_report_has_totals_an_index_and_every_trial() {
    let document = serde_json::to_string_pretty(&SuiteJson(&record())).expect("serializes");
    insta::assert_snapshot!(document);
}

#[test]
fn junit_report_has_a_testsuite_per_scenario() {
    insta::assert_snapshot!(suite_junit(&record()).expect("XML"));
}
