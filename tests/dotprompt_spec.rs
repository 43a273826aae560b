//! dotprompt's published conformance cases, rendered by promptexec's engine.
//!
//! The cases live in google/dotprompt's `spec/` folder and are not copied here. To run
//! them, put a copy anywhere and name it:
//!
//! ```sh
//! git clone --depth 1 https://github.com/google/dotprompt /tmp/dotprompt
//! DOTPROMPT_SPEC_DIR=/tmp/dotprompt/spec cargo test --test dotprompt_spec -- --ignored --nocapture
//! ```
//!
//! Every case of the files for the language promptexec supports must pass; the files
//! for what it does not render (media parts, sections, front-matter metadata,
//! Picoschema) are counted and left out.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use promptexec::dotprompt::{Message, Partials, RenderEnv, Template};
use serde_json::{Value as Json, json};

/// The spec files of the supported language.
const SUPPORTED: &[&str] = &[
    "variables.yaml",
    "whitespace.yaml",
    "partials.yaml",
    "unicode.yaml",
    "helpers/ifEquals.yaml",
    "helpers/unlessEquals.yaml",
    "helpers/json.yaml",
    "helpers/role.yaml",
    "helpers/history.yaml",
];

/// Spec files about what promptexec does not render as parts of a message.
const LEFT_OUT: &[&str] = &[
    "helpers/media.yaml",
    "helpers/section.yaml",
    "metadata.yaml",
    "picoschema.yaml",
];

struct Named(HashMap<String, Arc<Template>>);

impl Partials for Named {
    fn partial(&self, name: &str) -> Option<Arc<Template>> {
        self.0.get(name).cloned()
    }
}

#[test]
#[ignore = "needs DOTPROMPT_SPEC_DIR: a copy of google/dotprompt's spec folder"]
fn every_case_of_the_supported_helpers_passes() {
    let dir =
        std::env::var("DOTPROMPT_SPEC_DIR").expect("DOTPROMPT_SPEC_DIR names the spec folder");
    let dir = Path::new(&dir);
    let (mut passed, mut failures) = (0, Vec::new());
    for file in SUPPORTED {
        let text = std::fs::read_to_string(dir.join(file)).expect("spec file reads");
        let suites: Json = serde_saphyr::from_str(&text).expect("spec file is YAML");
        let (ok, failed) = run_file(&suites);
        println!("{file}: {ok} of {} cases pass", ok + failed.len());
        passed += ok;
        failures.extend(failed.into_iter().map(|f| format!("{file}: {f}")));
    }
    let mut left_out = 0;
    for file in LEFT_OUT {
        if let Ok(text) = std::fs::read_to_string(dir.join(file)) {
            let suites: Json = serde_saphyr::from_str(&text).expect("spec file is YAML");
            left_out += count_cases(&suites);
        }
    }
    println!(
        "total: {passed} of {} cases pass; {left_out} cases of unsupported features left out",
        passed + failures.len()
    );
    assert!(
        failures.is_empty(),
        "failing cases:\n{}",
        failures.join("\n")
    );
    assert!(
        passed > 0,
        "no case ran: is DOTPROMPT_SPEC_DIR the spec folder?"
    );
}

fn count_cases(suites: &Json) -> usize {
    list(suites).iter().map(|s| list(&s["tests"]).len()).sum()
}

fn list(value: &Json) -> Vec<Json> {
    value.as_array().cloned().unwrap_or_default()
}

/// Runs every case of one file: the passes, and a line for each failure.
fn run_file(suites: &Json) -> (usize, Vec<String>) {
    let (mut ok, mut failed) = (0, Vec::new());
    for suite in list(suites) {
        let name = suite["name"].as_str().unwrap_or("?");
        let source = suite["template"].as_str().unwrap_or_default();
        let (defaults, body) = split_front_matter(source);
        let template = Template::parse(&body);
        let partials = suite_partials(&suite);
        for case in list(&suite["tests"]) {
            let desc = case["desc"].as_str().unwrap_or("?");
            let data = merged(&suite["data"], &case["data"]);
            let defaults = merged(&defaults, &case["options"]["input"]["default"]);
            let input = merged(&defaults, &data["input"]);
            let history = messages(&data["messages"]);
            let expected = messages(&case["expect"]["messages"]);
            let got = match &template {
                Ok(t) => t
                    .render(
                        &input,
                        &RenderEnv {
                            partials: &partials,
                            history: &history,
                        },
                    )
                    .map(|r| r.messages)
                    .map_err(|e| e.to_string()),
                Err(errors) => Err(errors[0].to_string()),
            };
            match got {
                Ok(got) if got == expected => ok += 1,
                other => failed.push(format!(
                    "{name} / {desc}: expected {expected:?}, got {other:?}"
                )),
            }
        }
    }
    (ok, failed)
}

/// A template's `input.default` from its front matter, and its body.
fn split_front_matter(source: &str) -> (Json, String) {
    let Some(rest) = source.strip_prefix("---\n") else {
        return (json!({}), source.to_string());
    };
    let Some(end) = rest.find("\n---\n") else {
        return (json!({}), source.to_string());
    };
    let front: Json = serde_saphyr::from_str(&rest[..end]).unwrap_or(Json::Null);
    (
        front["input"]["default"].clone(),
        rest[end + 5..].to_string(),
    )
}

fn suite_partials(suite: &Json) -> Named {
    let mut named = HashMap::new();
    for key in ["partials", "resolverPartials"] {
        if let Some(map) = suite[key].as_object() {
            for (name, text) in map {
                let parsed =
                    Template::parse(text.as_str().unwrap_or_default()).expect("partial parses");
                named.insert(name.clone(), Arc::new(parsed));
            }
        }
    }
    Named(named)
}

/// `base` with `over`'s members laid over it (objects only).
fn merged(base: &Json, over: &Json) -> Json {
    let mut out = base.as_object().cloned().unwrap_or_default();
    if let Some(over) = over.as_object() {
        for (k, v) in over {
            out.insert(k.clone(), v.clone());
        }
    }
    Json::Object(out)
}

/// Spec messages as ours: the role and the text of every text part.
fn messages(value: &Json) -> Vec<Message> {
    list(value)
        .iter()
        .map(|m| {
            let parts = list(&m["content"]);
            let text: String = parts
                .iter()
                .map(|p| {
                    p["text"]
                        .as_str()
                        .map_or_else(|| format!("<{p}>"), str::to_string)
                })
                .collect();
            Message::new(m["role"].as_str().unwrap_or("user"), text)
        })
        .collect()
}
