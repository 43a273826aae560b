//! Judge evals run against mock judges: a verdict scores, anything else is an
//! error, and a run without a judge skips them.

use serde_json::json;

use super::judges::JudgeModel;
use super::*;
use crate::config::Provider as ProviderConfig;
use crate::provider::MockScript;

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(future)
}

fn judge_answering(answer: Option<&str>) -> Judges {
    let script = MockScript {
        default_response: answer.map(str::to_string),
        ..MockScript::default()
    };
    Judges::from_providers(&[], Some(JudgeModel::mock("mock-judge", script)))
}

fn llm_judge(params: serde_json::Value) -> JudgeSpec {
    JudgeSpec::prepare("llm_judge", &params)
        .expect("a judge type")
        .expect("valid")
}

fn answer() -> EvalInput {
    EvalInput {
        content: "Hold the power button for 10 seconds.".into(),
        ..EvalInput::default()
    }
}

#[test]
fn a_verdict_is_the_score_with_the_reasoning_and_the_judge() {
    let judges = judge_answering(Some(
        r#"{"passed": true, "score": 0.92, "reasoning": "clear steps"}"#,
    ));
    let judged = block_on(run_judge(
        &llm_judge(json!({"criteria": "helpful"})),
        &judges,
        &answer(),
    ))
    .expect("judged");
    let Judged::Scored(scored) = judged else {
        panic!("expected a score, got {judged:?}");
    };
    assert_eq!(scored.score, 0.92);
    assert_eq!(scored.detail, "clear steps");
    assert_eq!(
        scored.data,
        json!({"score": 0.92, "passed": true, "reasoning": "clear steps", "judge": "mock-judge", "model": null})
    );
    // The default judge answers to its name as well.
    let named = llm_judge(json!({"judge": "mock-judge"}));
    let judged = block_on(run_judge(&named, &judges, &answer())).expect("judged");
    assert!(matches!(judged, Judged::Scored(s) if s.score == 0.92));
}

#[test]
fn a_judge_that_answers_no_verdict_is_an_error() {
    // The script says nothing: the mock's fixed text answers, which is no verdict.
    let err = block_on(run_judge(
        &llm_judge(json!({})),
        &judge_answering(None),
        &answer(),
    ))
    .expect_err("no verdict");
    assert_eq!(
        err.to_string(),
        "`llm_judge`: judge `mock-judge` answered no JSON object: `Mock response`"
    );
}

#[test]
fn a_judge_named_but_not_in_the_run_is_an_error_naming_those_that_are() {
    let pairs = [("rag-judge".to_string(), "mock-judge".to_string())];
    let judges = Judges::from_providers(&[], None).aliases(pairs.iter().map(|(j, p)| (j, p)));
    let err = block_on(run_judge(
        &llm_judge(json!({"judge": "rag-judg"})),
        &judges,
        &answer(),
    ))
    .expect_err("unknown");
    assert_eq!(
        err.to_string(),
        "`llm_judge`: no judge `rag-judg`: the run's judges are `rag-judge`; did you mean `rag-judge`?"
    );
    let err = block_on(run_judge(
        &llm_judge(json!({"judge": "rag-judge"})),
        &judges,
        &answer(),
    ))
    .expect_err("its provider is not declared");
    assert_eq!(
        err.to_string(),
        "`llm_judge`: judge `mock-judge` cannot judge: provider `mock-judge` is not declared"
    );
}

#[test]
fn without_any_judge_the_eval_is_skipped_saying_why() {
    let judged = block_on(run_judge(
        &llm_judge(json!({"judge": "j"})),
        &Judges::none(),
        &answer(),
    ))
    .expect("skipped");
    assert_eq!(
        judged,
        Judged::Skipped(
            "not played: `llm_judge` needs a judge provider and this run has none".into()
        )
    );
}

#[test]
fn an_alias_becomes_the_default_over_the_run_s_own_provider() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("judge.mock.yaml");
    std::fs::write(
        &path,
        "defaultResponse: '{\"score\": 0.4, \"reasoning\": \"thin\"}'\n",
    )
    .expect("written");
    let provider = ProviderConfig {
        id: Some("judge-provider".into()),
        kind: "mock".into(),
        mock_config: Some(path),
        ..ProviderConfig::default()
    };
    let own = JudgeModel::mock("assistant", MockScript::default());
    let judges = Judges::from_providers(&[provider], Some(own)).alias("quality", "judge-provider");
    let judged = block_on(run_judge(&llm_judge(json!({})), &judges, &answer())).expect("judged");
    let Judged::Scored(scored) = judged else {
        panic!("expected a score, got {judged:?}");
    };
    assert_eq!(
        (scored.score, scored.data["judge"].clone()),
        (0.4, json!("judge-provider"))
    );
    // Named by its alias or by the provider's own name, it is the same judge.
    for name in ["quality", "judge-provider"] {
        let named = llm_judge(json!({"judge": name}));
        let judged = block_on(run_judge(&named, &judges, &answer())).expect("judged");
        assert!(
            matches!(judged, Judged::Scored(s) if s.score == 0.4),
            "{name}"
        );
    }
}

#[test]
fn a_judge_whose_script_cannot_be_read_is_unreachable() {
    let provider = ProviderConfig {
        id: Some("judge".into()),
        kind: "mock".into(),
        mock_config: Some("/nonexistent/judge.mock.yaml".into()),
        ..ProviderConfig::default()
    };
    let judges = Judges::from_providers(&[provider], None);
    let err = block_on(run_judge(
        &llm_judge(json!({"judge": "judge"})),
        &judges,
        &answer(),
    ))
    .expect_err("unreachable")
    .to_string();
    assert!(
        err.starts_with(
            "`llm_judge`: judge `judge` is unreachable: cannot read its mock responses:"
        ),
        "{err}"
    );
}
