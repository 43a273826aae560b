use std::path::Path;

use crate::doc::{Checker, parse_yaml};

use super::*;

const PROMPTS: &[&str] = &["intake", "specialist", "closed"];

/// The workflow read from `text`, and every diagnostic as `LINE:COL: message`.
fn read(text: &str) -> (Option<Workflow>, Vec<String>) {
    let path = Path::new("w.yaml");
    let root = parse_yaml(path, text).expect("valid yaml");
    let mut cx = Checker::new(path, text);
    let workflow = parse(&root, "spec.workflow", Some(PROMPTS), &mut cx);
    let lines = cx
        .diagnostics
        .iter()
        .map(|d| d.to_string().trim_start_matches("w.yaml:").to_string())
        .collect();
    (workflow, lines)
}

const SUPPORT: &str = "\
version: 1
entry: intake
states:
  intake:
    prompt_task: intake
    description: first contact
    on_event:
      Escalate: specialist
      Resolve: closed
  specialist:
    prompt_task: specialist
    on_event:
      Resolve: closed
  closed:
    prompt_task: closed
    terminal: true
";

#[test]
fn a_workflow_reads_with_its_states_in_file_order() {
    let (workflow, lines) = read(SUPPORT);
    assert_eq!(lines, Vec::<String>::new());
    let w = workflow.expect("reads");
    assert_eq!(w.entry, "intake");
    let names: Vec<&str> = w.states.keys().map(String::as_str).collect();
    assert_eq!(names, ["intake", "specialist", "closed"]);
    let intake = &w.states["intake"];
    assert_eq!(intake.events(), ["Escalate", "Resolve"]);
    assert!(!intake.is_terminal());
    assert!(w.states["closed"].is_terminal());
    assert_eq!(
        w.start_state("specialist").map(|s| s.name.as_str()),
        Some("specialist")
    );
    assert_eq!(w.start_state("other").map(|s| s.name.as_str()), None);
    assert_eq!(w.prompts(), ["intake", "specialist", "closed"]);
}

#[test]
fn wrong_references_are_errors_at_their_place_with_a_suggestion() {
    let text = SUPPORT
        .replace("entry: intake", "entry: intak")
        .replace("Escalate: specialist", "Escalate: specialst")
        .replace("prompt_task: closed", "prompt_task: close");
    let (workflow, lines) = read(&text);
    assert!(workflow.is_none());
    assert_eq!(
        lines,
        [
            "2:8: spec.workflow/entry: `intak` is not a state of the workflow; did you mean `intake`?",
            "8:17: spec.workflow/states/intake/on_event/Escalate: `specialst` is not a state of the workflow; did you mean `specialist`?",
            "15:18: spec.workflow/states/closed/prompt_task: `close` is not a prompt; did you mean `closed`?",
        ]
    );
}

#[test]
fn missing_keys_and_a_bad_version_are_errors() {
    let (workflow, lines) =
        read("version: 3\nstates:\n  a:\n    prompt_task: intake\n    on_evnt: {}\n");
    assert!(workflow.is_none());
    assert_eq!(
        lines,
        [
            "1:10: spec.workflow/version: must be 1 or 2, found 3",
            "1:1: spec.workflow: missing key `entry`",
            "4:5: spec.workflow/states/a: missing key `on_event` (a state that is not `terminal: true` needs its events)",
            "5:5: unknown key `on_evnt` in spec.workflow/states/a; did you mean `on_event`?",
        ]
    );
}

#[test]
fn what_promptkit_warns_about_is_a_warning() {
    let text = "\
version: 2
entry: intake
states:
  intake:
    prompt_task: intake
    on_event:
      escalate: specialist
      Loop: intake
  specialist:
    prompt_task: specialist
    on_event: {}
  closed:
    prompt_task: closed
    terminal: true
    on_event:
      Again: intake
";
    let (workflow, lines) = read(text);
    assert!(workflow.is_some(), "{lines:?}");
    assert_eq!(
        lines,
        [
            "7:17: warning: spec.workflow/states/intake/on_event: event `escalate` should be PascalCase",
            "10:5: warning: spec.workflow/states/specialist: no event leaves this state; mark it `terminal: true`",
            "13:5: warning: spec.workflow/states/closed: a terminal state's events never fire",
            "13:5: warning: spec.workflow/states/closed: the entry `intake` cannot reach this state",
            "5:5: warning: spec.workflow/states/intake: `intake` → `intake` closes a cycle that no `max_visits` or `engine.budget.max_total_visits` bounds",
        ]
    );
}

#[test]
fn loop_guards_and_the_budget_are_read() {
    let text = "\
version: 2
entry: intake
engine:
  budget: { max_total_visits: 10, max_tool_calls: 0 }
states:
  intake:
    prompt_task: intake
    max_visits: 3
    on_max_visits: closed
    on_event: { More: intake, Done: closed }
  closed:
    prompt_task: closed
    terminal: true
";
    let (workflow, lines) = read(text);
    assert_eq!(lines, Vec::<String>::new());
    let w = workflow.expect("reads");
    assert_eq!(
        w.budget,
        Budget {
            max_total_visits: Some(10),
            max_tool_calls: None,
            max_wall_time_sec: None
        }
    );
    assert_eq!(w.states["intake"].max_visits, Some(3));
    assert_eq!(w.states["intake"].on_max_visits.as_deref(), Some("closed"));
}

#[test]
fn a_redirect_to_no_state_is_an_error() {
    let text = SUPPORT.replace(
        "    on_event:\n      Resolve: closed\n  closed",
        "    max_visits: 2\n    on_max_visits: nowhere\n    on_event:\n      Resolve: closed\n  closed",
    );
    let (workflow, lines) = read(&text);
    assert!(workflow.is_none());
    assert_eq!(
        lines,
        [
            "13:20: spec.workflow/states/specialist/on_max_visits: `nowhere` is not a state of the workflow"
        ]
    );
}
