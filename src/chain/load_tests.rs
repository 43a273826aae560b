//! Chain files read: where steps go, and the problems each placed.

use super::load_chain;
use crate::chain::{Chain, Next, Target};
use crate::doc::Rejected;

fn load(text: &str) -> Result<Chain, Vec<String>> {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("c.chain.yaml");
    std::fs::write(&path, text).expect("write");
    match load_chain(&path) {
        Ok(loaded) => Ok(loaded.value),
        Err(Rejected(problems)) => Err(problems
            .iter()
            .map(|d| {
                let pos = d.pos.map(|p| p.to_string()).unwrap_or_default();
                format!("{pos}: {}", d.message)
            })
            .collect()),
    }
}

#[test]
fn steps_go_on_in_file_order_unless_told_and_versions_read() {
    let chain = load(
        "chain: c\nsteps:\n  - id: a\n    prompt: p@v3\n  - id: b\n    prompt: q@2\n    next: end\n  - id: c\n    prompt: r\n    next: a\n",
    );
    // a -> b -> end; `c` is never reached (a warning), and its edge back to `a`
    // makes no cycle.
    let chain = chain.expect("loads");
    assert_eq!(chain.max_steps, 20);
    assert_eq!(chain.steps[0].prompt.version, Some(3));
    assert_eq!(chain.steps[1].prompt.version, Some(2));
    assert_eq!(chain.steps[2].prompt.version, None);
    assert!(matches!(chain.steps[0].next, Next::Following));
    assert_eq!(chain.successors(0)[0].0, Target::Step(1));
    assert!(matches!(chain.steps[1].next, Next::Goto(Target::End, _)));
    assert!(matches!(
        chain.steps[2].next,
        Next::Goto(Target::Step(0), _)
    ));
}

#[test]
fn ids_prompts_and_conditions_are_checked_where_written() {
    let problems = load(
        "chain: c\nmax_steps: 0\nsteps:\n  - id: a\n    prompt: p@latest\n    next:\n      - when: {}\n        goto: b\n      - when: {pointer: nope, min_score: 2}\n        goto: end\n  - id: a\n    prompt: q\n  - id: end\n    prompt: r\n    wiht: {}\n",
    )
    .err()
    .expect("refused");
    let expected = [
        "2:12: max_steps: expected a positive integer",
        "5:13: steps[0].prompt: `p@latest` is not ID or ID@VERSION",
        "7:15: steps[0].next[0].when: give at least one of",
        "9:25: steps[0].next[1].when.pointer: `nope` is not a JSON pointer",
        "9:31: steps[0].next[1].when.min_score: applies to an `eval`",
        "8:15: steps[0].next[0].goto: no step is called `b`",
        "11:9: steps[1].id: step `a` is already defined at line 4",
        "13:9: steps[2].id: `end` names the end of the chain",
        "15:5: unknown key `wiht` in steps[2]; did you mean `with`?",
    ];
    for want in expected {
        assert!(
            problems.iter().any(|p| p.starts_with(want)),
            "no problem starts with {want:?} in {problems:#?}"
        );
    }
}

#[test]
fn an_eval_is_a_built_in_check_with_valid_params() {
    let problems = load(
        "chain: c\nsteps:\n  - id: a\n    prompt: p\n    next:\n      - when: {eval: {type: containz, params: {patterns: [x]}}}\n        goto: end\n      - when: {eval: {type: contains, params: {patern: [x]}}}\n        goto: end\n",
    )
    .err()
    .expect("refused");
    assert!(
        problems
            .iter()
            .any(|p| p.contains("`containz` is not a built-in check; did you mean `contains`?")),
        "{problems:#?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p
                .contains("steps[0].next[1].when.eval.params: `contains` takes no param `patern`")),
        "{problems:#?}"
    );
}
