use std::path::PathBuf;

use super::*;

fn scenario(text: &str) -> Scenario {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("s.scenario.yaml");
    std::fs::write(
        &path,
        format!("apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nmetadata:\n  name: s\nspec:\n  task_type: t\n  description: d\n  turns:\n{text}"),
    )
    .expect("write");
    crate::suite::load_scenario(&path).expect("loads").value
}

fn self_play() -> SelfPlay {
    let persona = Persona {
        id: "learner".into(),
        description: String::new(),
        system_prompt: "Ask.".into(),
        goals: Vec::new(),
        constraints: Vec::new(),
        style: persona::Style::default(),
        temperature: 0.7,
        seed: 42,
    };
    let mut out = SelfPlay {
        source: Some(PathBuf::from("arena.yaml")),
        ..SelfPlay::default()
    };
    out.personas.insert("learner".into(), persona);
    out.roles.insert(
        "sim".into(),
        Role {
            provider: "mock".into(),
            voice: Voice::Mock(Arc::new(RoleScript::default())),
        },
    );
    out
}

#[test]
fn a_known_role_and_persona_become_played_turns_in_place() {
    let mut s = scenario(
        "    - role: user\n      content: Hi\n    - role: sim\n      persona: learner\n      turns: 2\n      assertions:\n        - { type: content_includes, params: { patterns: [a] } }\n    - role: assistant\n      content: x\n    - role: user\n      content: Bye\n    - role: sim\n      persona: nobody\n",
    );
    assert_eq!(s.turns.len(), 2);
    let found = self_play().attach(&mut s, "s");
    let spoken: Vec<bool> = s.turns.iter().map(|t| t.speaker.is_some()).collect();
    assert_eq!(spoken, [false, true, true, false]);
    assert_eq!(s.turns[2].assertions.len(), 1);
    let unplayed: Vec<(u32, u32, &str)> = s
        .unplayed
        .iter()
        .map(|u| (u.index, u.after, u.role.as_str()))
        .collect();
    assert_eq!(unplayed, [(3, 3, "assistant"), (5, 4, "sim")]);
    assert!(
        s.unplayed[1].reason.contains("`nobody` is not a persona"),
        "{}",
        s.unplayed[1].reason
    );
    assert_eq!(found.warning_count(), 1);
    let planned = crate::suite::plan_assertions(&s, &|_| false).expect("planned");
    let ids: Vec<&str> = planned.checks.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["turn-2.1", "turn-3.1"]);
}

#[test]
fn an_unknown_role_stays_unplayed_with_a_suggestion() {
    let mut s =
        scenario("    - role: user\n      content: Hi\n    - role: simm\n      persona: learner\n");
    self_play().attach(&mut s, "s");
    assert_eq!(s.turns.len(), 1);
    assert!(
        s.unplayed[0].reason.contains("did you mean `sim`"),
        "{}",
        s.unplayed[0].reason
    );
}
