//! The engines called as any caller would, with plans built here (no command line,
//! no terminal): a conversation and a suite of the partial-run fixtures, played by
//! the scripted mock.

use std::path::{Path, PathBuf};

use tokio_util::sync::CancellationToken;

use crate::config::RuntimeConfig;
use crate::evals::Evaluator;
use crate::pack::{self, Pack, Prompt, VarInputs};
use crate::provider::{MockScript, ModelPlan, load_mock, mock_answers};
use crate::report::{Exit, Outcome, ScenarioRecord};
use crate::session::{Approvals, SessionEvent, TurnEnd};

use super::{
    ConversationPlan, PlayError, ScenarioPlan, SuiteEvent, SuitePlan, UserMessages, load_scenario,
    plan_assertions, play, run,
};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/partial")
}

/// The fixture's config, pack, its one prompt and the mock script.
fn loaded() -> (RuntimeConfig, Pack, Prompt, MockScript) {
    let dir = fixtures();
    let config = crate::config::load(&dir.join("partial.yaml"), true)
        .expect("the config loads")
        .value;
    let pack = pack::load(&dir.join("partial.pack.json"))
        .expect("the pack loads")
        .value;
    let prompt = pack.prompts["chat"].clone();
    let script = load_mock(&dir.join("partial.mock.yaml"))
        .expect("the mock script loads")
        .value;
    (config, pack, prompt, script)
}

fn conversation(scenario: &str, messages: &[&str]) -> ConversationPlan {
    let (config, pack, prompt, script) = loaded();
    let cancel = CancellationToken::new();
    let evaluator = Evaluator::new(Vec::new(), &config.evals, cancel.clone()).expect("no evals");
    let system_prompt =
        pack::render_prompt(&pack, &prompt, &VarInputs::default()).expect("renders");
    ConversationPlan {
        model: ModelPlan::new(mock_answers(script, scenario), None, false),
        config,
        pack,
        prompt,
        system_prompt,
        variables: serde_json::json!({}),
        scenario: scenario.into(),
        record: false,
        evaluator,
        cancel,
        stop: CancellationToken::new(),
        warnings: Default::default(),
        messages: UserMessages::of(messages.iter().copied()),
        scripts: Vec::new(),
        chaos_seed: String::new(),
        max_rounds: None,
        approvals: Approvals::default(),
        transcript: None,
    }
}

#[test]
fn a_conversation_plays_each_message_as_a_turn_and_shows_every_event() {
    let mut seen = Vec::new();
    let played = play(
        conversation("plain", &["Greet me.", "And again."]),
        |event| {
            seen.push(event.clone());
        },
    )
    .expect("plays");
    let record = played.record;
    assert_eq!(record.turns, [TurnEnd::Answered, TurnEnd::Answered]);
    assert_eq!(record.exit(), Exit::Success);
    assert_eq!(record.scenario, "plain");
    assert!(played.recorded.is_none(), "nothing recorded unless asked");
    // What the caller was shown is the record's log, in its order.
    let logged: Vec<SessionEvent> = record.events.iter().collect();
    assert_eq!(seen, logged);
    let answers: Vec<&str> = logged
        .iter()
        .filter_map(|event| match event {
            SessionEvent::Assistant { content, .. } => Some(content.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(answers, ["Hello, traveller.", "Hello, traveller."]);
}

#[test]
fn a_conversation_stopped_before_it_starts_plays_nothing() {
    let plan = conversation("plain", &["Greet me."]);
    plan.stop.cancel();
    let mut seen = 0;
    let err = play(plan, |_| seen += 1).err().expect("stopped");
    assert!(matches!(err, PlayError::Interrupted), "{err:?}");
    assert_eq!(err.exit(), Exit::Interrupted);
    assert_eq!(seen, 0);
}

/// A scenario of the fixture's folder, planned as `run` plans it.
fn scenario_plan(file: &str, pack: &Pack, prompt: &Prompt, script: &MockScript) -> ScenarioPlan {
    let scenario = load_scenario(&fixtures().join("scenarios").join(file))
        .expect("the scenario loads")
        .value;
    let planned = plan_assertions(&scenario, &|_| false).expect("its assertions plan");
    ScenarioPlan {
        prompt: prompt.clone(),
        system_prompt: pack::render_prompt(pack, prompt, &VarInputs::default()).expect("renders"),
        variables: serde_json::json!({}),
        evals: planned.evals,
        checks: planned.checks,
        model: ModelPlan::new(mock_answers(script.clone(), &scenario.id), None, false),
        scenario,
    }
}

fn suite(partial_fails: bool) -> SuitePlan {
    let (config, pack, prompt, script) = loaded();
    let scenarios = ["mixed.scenario.yaml", "plain.scenario.yaml"]
        .iter()
        .map(|file| scenario_plan(file, &pack, &prompt, &script))
        .collect();
    SuitePlan {
        config,
        pack,
        pack_path: Path::new("partial.pack.json").into(),
        identity: String::new(),
        warnings: Default::default(),
        scenarios,
        shard: None,
        jobs: 2,
        fail_fast: false,
        partial_fails,
        record_dir: None,
        transcript_dir: None,
        max_rounds: None,
        approve: Vec::new(),
        reject: Vec::new(),
        stop: CancellationToken::new(),
    }
}

fn outcomes(scenario: &ScenarioRecord) -> Vec<Outcome> {
    scenario.verdicts.iter().map(|v| v.outcome).collect()
}

#[test]
fn a_suite_reports_each_scenario_once_in_plan_order_with_its_verdicts() {
    let mut finished = Vec::new();
    let record = run(&suite(false), |event| match event {
        SuiteEvent::Finished(scenario) => finished.push(scenario.id.clone()),
    });
    finished.sort();
    assert_eq!(finished, ["mixed", "plain"]);
    let ids: Vec<&str> = record.scenarios.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["mixed", "plain"]);
    assert!(record.not_started.is_empty());
    assert_eq!((record.jobs, record.exit()), (2, Exit::Success));

    let (mixed, plain) = (&record.scenarios[0], &record.scenarios[1]);
    assert_eq!(outcomes(plain), [Outcome::Passed]);
    assert_eq!((plain.result(), plain.trials.len()), ("passed", 1));
    // One user turn judged; a self-play turn with no persona to play it, an
    // assistant turn and a conversation assertion of a type promptexec does not
    // play are not: partial, which passes unless asked otherwise.
    assert_eq!(
        outcomes(mixed),
        [
            Outcome::Passed,
            Outcome::Skipped,
            Outcome::Skipped,
            Outcome::Skipped
        ]
    );
    assert_eq!((mixed.result(), mixed.exit()), ("partial", Exit::Success));
    let roles: Vec<&str> = mixed
        .unplayed_turns
        .iter()
        .map(|t| t.role.as_str())
        .collect();
    assert_eq!(roles, ["traveller", "assistant"]);
}

#[test]
fn a_partial_scenario_fails_the_suite_when_the_plan_says_so() {
    let record = run(&suite(true), |_| {});
    assert_eq!(record.scenarios[0].exit(), Exit::No);
    assert_eq!(record.scenarios[1].exit(), Exit::Success);
    assert_eq!(record.exit(), Exit::No);
}

#[test]
fn a_stopped_suite_starts_nothing_and_is_interrupted() {
    let plan = suite(false);
    plan.stop.cancel();
    let mut finished = 0;
    let record = run(&plan, |_| finished += 1);
    assert_eq!(finished, 0);
    assert!(record.scenarios.is_empty());
    assert_eq!(record.not_started, ["mixed", "plain"]);
    assert_eq!(record.exit(), Exit::Interrupted);
}
