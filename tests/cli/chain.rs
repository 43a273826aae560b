//! `prompt chain run`: chain files of library prompts played on the mock, recorded and
//! replayed, with their load errors placed in the file.

use std::path::PathBuf;

use serde_json::Value as Json;

use crate::util::{Outcome, promptexec};

/// A library holding the chain fixtures' prompts, in its own temporary directory.
struct Lib {
    dir: tempfile::TempDir,
    path: PathBuf,
}

impl Lib {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("library.db");
        let lib = Self { dir, path };
        lib.run(&["prompt", "add", "chain/prompts"]).expect_code(0);
        lib
    }

    fn file(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    #[track_caller]
    fn run(&self, args: &[&str]) -> Outcome {
        let library = self.path.to_str().expect("a UTF-8 temp path");
        promptexec().args(args).args(["--library", library]).run()
    }

    /// `prompt chain run FILE ARGS`.
    #[track_caller]
    fn chain(&self, file: &str, args: &[&str]) -> Outcome {
        let mut all = vec!["prompt", "chain", "run", file];
        all.extend(args);
        self.run(&all)
    }

    /// The triage chain on the mock scenario `scenario`, as its JSON report.
    #[track_caller]
    fn triage(&self, scenario: &str, ticket: &str, code: i32) -> Json {
        let ticket = format!("ticket={ticket}");
        let out = self.chain(
            "chain/triage.chain.yaml",
            &[
                "--mock",
                "chain/mock.yaml",
                "--scenario",
                scenario,
                "--var",
                &ticket,
                "--format",
                "json",
            ],
        );
        out.expect_code(code);
        out.json()
    }

    fn audit(&self) -> Vec<Json> {
        let out = self.run(&["prompt", "audit", "--format", "json"]);
        out.expect_code(0);
        out.json().as_array().expect("a list").clone()
    }
}

fn step_ids(report: &Json) -> Vec<&str> {
    report["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| s["id"].as_str().expect("an id"))
        .collect()
}

#[test]
fn the_first_branch_whose_condition_holds_is_taken_each_way() {
    let lib = Lib::new();
    // The classifier answers JSON: its pointer branch goes to billing, and the
    // billing prompt gets the category read out of that JSON.
    let billing = lib.triage("billing-path", "I was charged twice", 0);
    assert_eq!(billing["outcome"], "done");
    assert_eq!(step_ids(&billing), ["classify", "billing", "sign-off"]);
    let first = &billing["steps"][0];
    assert_eq!(first["prompt"]["id"], "classify-ticket");
    assert_eq!(first["prompt"]["version"], 1);
    assert!(
        first["prompt"]["content_hash"]
            .as_str()
            .is_some_and(|h| h.starts_with("sha256:")),
        "{first}"
    );
    assert_eq!(
        first["branch"],
        serde_json::json!({"goto": "billing", "index": 0, "reason": "`/category` equals \"billing\""})
    );
    assert_eq!(
        billing["steps"][1]["rendered"][0]["text"],
        "Write a short reply about the invoice. Ticket: I was charged twice. Category: billing"
    );
    assert_eq!(billing["output"], "Thanks for writing in. The support team");

    // Plain text: the pointer finds no JSON, the regex branch goes to tech, whose
    // output passes the `contains` check on to the sign-off.
    let tech = lib.triage("tech-path", "wifi down", 0);
    assert_eq!(step_ids(&tech), ["classify", "tech", "sign-off"]);
    assert_eq!(tech["steps"][0]["branch"]["goto"], "tech");
    assert_eq!(tech["steps"][0]["branch"]["reason"], "matches `(?i)tech`");
    assert_eq!(
        tech["steps"][1]["branch"]["reason"],
        "`contains` scored 1 (at least 0.5)"
    );
    // The sign-off is a dotprompt prompt: its roles, over its input's default.
    assert_eq!(
        tech["steps"][2]["rendered"],
        serde_json::json!([
            {"role": "system", "text": "You sign replies off as the support team.\n"},
            {"role": "user", "text": "Add a friendly sign-off to: Reply: Category: TECH"}
        ])
    );

    // Neither holds: the branch without `when` ends the chain.
    let unsure = lib.triage("unsure-path", "hm", 0);
    assert_eq!(step_ids(&unsure), ["classify"]);
    assert_eq!(unsure["steps"][0]["branch"]["reason"], "otherwise");
    assert_eq!(unsure["output"], "I cannot tell.");

    // Every step played is in the audit log, sensitive slots redacted.
    let audit = lib.audit();
    assert_eq!(audit.len(), 7, "{audit:?}");
    assert!(
        audit
            .iter()
            .all(|r| r["purpose"] == "chain" && r["success"] == true)
    );
    assert_eq!(audit[1]["prompt_id"], "billing-reply");
    assert_eq!(audit[1]["variables"]["category"], "[redacted]");
    assert_eq!(
        audit[1]["content_hash"],
        billing["steps"][1]["prompt"]["content_hash"]
    );
    lib.run(&["prompt", "audit", "verify"]).expect_code(0);
}

#[test]
fn the_human_report_shows_each_prompt_output_and_branch() {
    let lib = Lib::new();
    let out = lib.chain(
        "chain/triage.chain.yaml",
        &[
            "--mock",
            "chain/mock.yaml",
            "--scenario",
            "tech-path",
            "--var",
            "ticket=wifi down",
        ],
    );
    out.expect_code(0)
        .stdout_has("step 1 `classify`: prompt classify-ticket v1\n  user:\n    Classify this ticket")
        .stdout_has("    Ticket: wifi down\n  output:\n    Category: TECH\n  next: tech (matches `(?i)tech`)\n")
        .stdout_has("step 3 `sign-off`: prompt sign-off v1\n")
        .stdout_has("chain `triage`: done after 3 steps\n");
}

#[test]
fn a_cycle_and_an_unknown_step_are_placed_in_the_file() {
    let lib = Lib::new();
    lib.chain("chain/cycle.chain.yaml", &[])
        .expect_code(2)
        .stderr_has(
            "chain/cycle.chain.yaml:12:15: the steps make a cycle: classify -> tech -> classify",
        );
    lib.chain("chain/unknown-step.chain.yaml", &[])
        .expect_code(2)
        .stderr_has("chain/unknown-step.chain.yaml:9:15: steps[0].next[0].goto: no step is called `biling`; did you mean `billing`?")
        .stderr_has("chain/unknown-step.chain.yaml:6:20: step `classify`, slot `ticket`: {{inputs.tickt}}: the chain has no input `tickt`; did you mean `ticket`?")
        .stderr_has("chain/unknown-step.chain.yaml:8:25: steps[0].next[0].when.matches: `(billing` is not a regex: unclosed group")
        .stderr_has("chain/unknown-step.chain.yaml:13:20: step `billing`, slot `ticket`: {{steps.tech.output}}: no step is called `tech`");
    assert!(lib.audit().is_empty());
}

#[test]
fn prompts_missing_from_the_library_stop_the_chain_before_any_model_call() {
    let lib = Lib::new();
    lib.chain("chain/missing-prompt.chain.yaml", &[])
        .expect_code(2)
        .stderr_has("chain/missing-prompt.chain.yaml:5:13: steps[0].prompt: the library has no prompt `clasify-ticket`; did you mean `classify-ticket`?")
        .stderr_has("chain/missing-prompt.chain.yaml:8:13: steps[1].prompt: prompt `tech-reply` has no version 7")
        .stderr_has("chain/missing-prompt.chain.yaml:12:12: steps[2].with: prompt `sign-off` has no slot `replyy`; did you mean `reply`?");
    assert!(lib.audit().is_empty());
}

#[test]
fn a_step_may_read_only_outputs_of_steps_on_every_path_to_it() {
    let lib = Lib::new();
    lib.chain("chain/maybe.chain.yaml", &[])
        .expect_code(2)
        .stderr_has("chain/maybe.chain.yaml:16:19: step `sign-off`, slot `reply`: {{steps.tech.output}}: step `tech` does not run on every path to `sign-off`, so its output may not be there")
        .stderr_lacks("slot `ticket`");
}

#[test]
fn the_step_limit_stops_the_chain_with_exit_1() {
    let lib = Lib::new();
    let out = lib.chain("chain/limit.chain.yaml", &["--format", "json"]);
    out.expect_code(1)
        .stderr_has("chain `long`: max_steps is 2 and step `sign-off` would be step 3");
    let report = out.json();
    assert_eq!(report["outcome"], "step_limit");
    assert_eq!(step_ids(&report), ["classify", "tech"]);
    assert_eq!(report["output"], Json::Null);
}

#[test]
fn inputs_must_be_declared_and_given() {
    let lib = Lib::new();
    lib.chain("chain/triage.chain.yaml", &["--var", "tickt=x"])
        .expect_code(2)
        .stderr_has("--var tickt: the chain has no input `tickt`; did you mean `ticket`? (it declares `ticket`)");
    lib.chain("chain/triage.chain.yaml", &[])
        .expect_code(2)
        .stderr_has("input `ticket` has no default; give it with --var ticket=VALUE");
}

#[test]
fn a_recorded_chain_replays_and_a_changed_prompt_does_not() {
    let lib = Lib::new();
    let recording = lib.file("triage.recording.json");
    let played = lib.chain(
        "chain/triage.chain.yaml",
        &[
            "--mock",
            "chain/mock.yaml",
            "--scenario",
            "billing-path",
            "--var",
            "ticket=charged twice",
            "--record",
            &recording,
            "--format",
            "json",
        ],
    );
    played.expect_code(0);
    let replay = |ticket: &str| {
        lib.chain(
            "chain/triage.chain.yaml",
            &["--replay", &recording, "--var", ticket, "--format", "json"],
        )
    };
    let again = replay("ticket=charged twice");
    again.expect_code(0);
    let outputs = |report: &Json| -> Vec<Json> {
        report["steps"]
            .as_array()
            .expect("steps")
            .iter()
            .map(|s| s["output"].clone())
            .collect()
    };
    assert_eq!(outputs(&again.json()), outputs(&played.json()));
    assert!(
        again.json()["steps"][0]["answered_by"]
            .as_str()
            .is_some_and(|by| by.contains("triage.recording.json")),
        "{}",
        again.report()
    );
    // Another ticket renders another prompt, which the recording does not hold.
    let other = replay("ticket=lost my password");
    other
        .expect_code(3)
        .stderr_has("step `classify`: replay of");
    assert_eq!(other.json()["outcome"], "provider_failed");
}

#[test]
fn no_branch_holding_or_an_output_without_the_value_read_stops_the_chain_with_exit_1() {
    let lib = Lib::new();
    let strict = |scenario: &str| {
        lib.chain(
            "chain/strict.chain.yaml",
            &[
                "--mock",
                "chain/mock.yaml",
                "--scenario",
                scenario,
                "--format",
                "json",
            ],
        )
    };
    let none = strict("unsure-path");
    none.expect_code(1)
        .stderr_has("chain `strict`: step `classify`: no branch of `next` held");
    assert_eq!(none.json()["outcome"], "no_branch");
    assert_eq!(step_ids(&none.json()), ["classify"]);

    let not_json = strict("billing-text");
    not_json.expect_code(1).stderr_has(
        "step `billing`: slot `category`: {{steps.classify.output/category}}: the output of step `classify` is not JSON",
    );
    assert_eq!(not_json.json()["outcome"], "failed");
    // The step that could not be rendered sent nothing and is not in the audit log.
    assert_eq!(step_ids(&not_json.json()), ["classify"]);
    let audit = lib.audit();
    assert_eq!(audit.len(), 2, "{audit:?}");
    assert_eq!(audit[0]["success"], false, "no branch held after it");
    assert_eq!(audit[1]["success"], true);
}
