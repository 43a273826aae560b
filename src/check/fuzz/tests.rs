use std::cell::Cell;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::error::FuzzError;
use super::*;

/// The schema of the planted bug: a tool that crashes on a negative optional `count`.
fn counter() -> Value {
    json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "count": {"type": "integer"}},
        "required": ["name"]
    })
}

fn negative_count(args: &Value) -> bool {
    args.get("count")
        .and_then(Value::as_i64)
        .is_some_and(|n| n < 0)
}

/// Schemas using every keyword generation knows.
fn schemas() -> Vec<Value> {
    vec![
        counter(),
        json!({
            "type": "object",
            "properties": {
                "mode": {"enum": ["fast", "slow"]},
                "version": {"const": 2},
                "limit": {"type": "integer", "minimum": 1, "maximum": 10},
                "step": {"type": "integer", "multipleOf": 5, "exclusiveMinimum": 0},
                "ratio": {"type": "number", "minimum": 0, "exclusiveMaximum": 1},
                "price": {"type": "number", "multipleOf": 0.25},
                "code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{2}$"},
                "tag": {"type": "string", "minLength": 2, "maxLength": 5},
                "note": {"type": ["string", "null"]},
                "email": {"type": "string", "format": "email"},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
                "point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}]},
                "anything": {},
                "target": {"anyOf": [{"type": "string", "maxLength": 4}, {"type": "integer", "minimum": 0}]},
                "shape": {"oneOf": [
                    {"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"], "additionalProperties": false},
                    {"type": "object", "properties": {"w": {"type": "integer"}}, "required": ["w"], "additionalProperties": false}
                ]},
                "owner": {
                    "type": "object",
                    "properties": {"id": {"type": "integer"}, "name": {"type": "string", "minLength": 1}},
                    "required": ["id"]
                }
            },
            "required": ["mode", "limit", "tag", "owner"],
            "additionalProperties": false
        }),
        json!({
            "$defs": {
                "node": {
                    "type": "object",
                    "properties": {
                        "value": {"type": "integer"},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
                    },
                    "required": ["value"]
                }
            },
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/node"}},
            "required": ["root"]
        }),
        json!({
            "definitions": {"id": {"type": "string", "minLength": 1}},
            "type": "object",
            "properties": {"ids": {"type": "array", "items": {"$ref": "#/definitions/id"}}},
            "allOf": [{"required": ["ids"]}, {"properties": {"dry_run": {"type": "boolean"}}}]
        }),
        json!({"type": "object", "additionalProperties": {"type": "integer", "maximum": -1}}),
        json!({"type": "object"}),
        json!({}),
        json!(true),
    ]
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::validator_for(schema).expect("test schemas compile")
}

#[test]
fn every_case_is_marked_as_the_validator_judges_it() {
    for schema in schemas() {
        let check = validator(&schema);
        for seed in 0..20 {
            let mut fuzzer = Fuzzer::new(&schema, seed).expect("usable schema");
            for _ in 0..50 {
                let case = fuzzer.next_case();
                assert_eq!(
                    check.is_valid(&case.args),
                    case.valid,
                    "schema {schema}, seed {seed}: {case:?}"
                );
                assert_eq!(case.broken.is_some(), !case.valid, "{case:?}");
            }
        }
    }
}

#[test]
fn about_three_valid_cases_for_each_invalid_one() {
    let mut fuzzer = Fuzzer::new(&counter(), 3).expect("usable schema");
    let valid = (0..1000).filter(|_| fuzzer.next_case().valid).count();
    assert!((680..=820).contains(&valid), "{valid} valid in 1000");
}

#[test]
fn a_schema_admitting_everything_gets_only_valid_cases() {
    let mut fuzzer = Fuzzer::new(&json!({}), 1).expect("usable schema");
    assert!((0..100).all(|_| fuzzer.next_case().valid));
}

#[test]
fn the_same_seed_gives_the_same_cases() {
    for schema in schemas() {
        let draw = |seed| {
            let mut fuzzer = Fuzzer::new(&schema, seed).expect("usable schema");
            (0..100)
                .map(|_| {
                    let case = fuzzer.next_case();
                    (case.args, case.valid, case.broken)
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(42), draw(42), "{schema}");
        if schema != json!(true) && schema != json!({}) {
            assert_ne!(draw(42), draw(43), "{schema}");
        }
    }
}

#[test]
fn examples_validate_and_are_plain() {
    for schema in schemas() {
        let fuzzer = Fuzzer::new(&schema, 0).expect("usable schema");
        let example = fuzzer.example();
        assert!(validator(&schema).is_valid(&example), "{schema}: {example}");
        // Not the seed's doing.
        assert_eq!(Fuzzer::new(&schema, 9).expect("usable").example(), example);
    }
    let example = |schema| Fuzzer::new(&schema, 0).expect("usable").example();
    assert_eq!(example(counter()), json!({"name": "example"}));
    assert_eq!(
        example(schemas()[1].clone()),
        json!({"mode": "fast", "limit": 1, "tag": "examp", "owner": {"id": 1}})
    );
    assert_eq!(
        example(
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 5}, "code": {"type": "string", "pattern": "^[A-Z]{3}$"}}, "required": ["n", "code"]})
        ),
        json!({"n": 5, "code": "AAA"})
    );
}

#[test]
fn unusable_schemas_are_refused_with_a_reason() {
    let err = Fuzzer::new(&json!("object"), 0).expect_err("a string is no schema");
    assert_eq!(
        err.to_string(),
        "the input schema is a string, not a JSON Schema (an object or a boolean)"
    );
    let err = Fuzzer::new(&json!({"type": 5}), 0).expect_err("bad type");
    assert!(
        err.to_string().starts_with("the input schema is invalid: "),
        "{err}"
    );
    let err = Fuzzer::new(&json!(false), 0).expect_err("nothing is valid");
    assert_eq!(
        err.to_string(),
        "no arguments satisfying the input schema could be generated"
    );
    let unsatisfiable = json!({"type": "integer", "minimum": 5, "maximum": 4});
    assert!(matches!(
        Fuzzer::new(&unsatisfiable, 0),
        Err(FuzzError::Unsatisfiable)
    ));
}

#[test]
fn invalid_cases_name_what_breaks_them() {
    let mut fuzzer = Fuzzer::new(&schemas()[1], 5).expect("usable schema");
    let seen: Vec<String> = (0..2000)
        .filter_map(|_| fuzzer.next_case().broken)
        .collect();
    for expected in [
        "`limit` is a string, not an integer",
        "`limit` is below its minimum 1",
        "`limit` is above its maximum 10",
        "`tag` is longer than its maxLength 5",
        "`tag` is shorter than its minLength 2",
        "`mode` is not one of its enum values",
        "required `owner` is missing",
        "`unexpected` is not a declared property",
        "the arguments are an array, not an object",
    ] {
        assert!(seen.iter().any(|b| b == expected), "never saw {expected:?}");
    }
}

#[test]
fn valid_values_reach_boundaries_and_awkward_text() {
    let schema = json!({
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": -3, "maximum": 1000},
            "text": {"type": "string"}
        },
        "required": ["n", "text"]
    });
    let mut fuzzer = Fuzzer::new(&schema, 11).expect("usable schema");
    let cases: Vec<Value> = (0..400)
        .map(|_| fuzzer.next_case())
        .filter(|case| case.valid)
        .map(|case| case.args)
        .collect();
    let ns: Vec<i64> = cases.iter().filter_map(|c| c["n"].as_i64()).collect();
    for boundary in [-3, -1, 0, 1000] {
        assert!(ns.contains(&boundary), "{boundary} never drawn");
    }
    let texts: Vec<&str> = cases.iter().filter_map(|c| c["text"].as_str()).collect();
    assert!(texts.iter().any(|t| t.is_empty()));
    assert!(texts.iter().any(|t| t.chars().count() >= 1024));
    assert!(
        texts
            .iter()
            .any(|t| t.chars().any(|c| ('\u{4E00}'..='\u{9FFF}').contains(&c)))
    );
    assert!(
        texts
            .iter()
            .any(|t| t.chars().any(|c| ('\u{1F300}'..='\u{1F64F}').contains(&c)))
    );
    assert!(
        texts
            .iter()
            .any(|t| t.chars().any(|c| ('\u{0300}'..='\u{036F}').contains(&c)))
    );
    let non_ascii = texts.iter().filter(|t| !t.is_ascii()).count();
    assert!(
        non_ascii * 4 >= texts.len(),
        "{non_ascii} of {}",
        texts.len()
    );
    // An unbounded side reaches as far as real calls go, past 0 or the bound given,
    // and the reach itself is drawn.
    let mut open = Fuzzer::new(&json!({"type": "integer"}), 2)
        .expect("usable")
        .valid_only();
    let drawn: Vec<i64> = (0..400)
        .filter_map(|_| open.next_case().args.as_i64())
        .collect();
    assert!(drawn.iter().all(|n| n.abs() <= 10), "{drawn:?}");
    assert!(drawn.contains(&10) && drawn.contains(&-10), "{drawn:?}");
    let mut above = Fuzzer::new(&json!({"type": "number", "minimum": 50}), 2)
        .expect("usable")
        .valid_only();
    let drawn: Vec<f64> = (0..400)
        .filter_map(|_| above.next_case().args.as_f64())
        .collect();
    assert!(drawn.iter().all(|n| (50.0..=60.0).contains(n)), "{drawn:?}");
}

/// The first valid case of `seed` the oracle fails on, within 100 cases.
fn first_failure(schema: &Value, seed: u64, fails: impl Fn(&Value) -> bool) -> Option<Case> {
    let mut fuzzer = Fuzzer::new(schema, seed).expect("usable schema");
    (0..100)
        .map(|_| fuzzer.next_case())
        .find(|case| case.valid && fails(&case.args))
}

#[tokio::test]
async fn a_negative_optional_integer_is_found_and_shrunk_to_the_smallest_call() {
    let schema = counter();
    for seed in 0..20 {
        let case = first_failure(&schema, seed, negative_count)
            .unwrap_or_else(|| panic!("seed {seed}: no negative count in 100 cases"));
        let calls = Cell::new(0);
        let shrunk = case
            .shrink(
                |args| {
                    calls.set(calls.get() + 1);
                    async move { negative_count(&args) }
                },
                200,
            )
            .await;
        assert_eq!(shrunk, json!({"name": "", "count": -1}), "seed {seed}");
        assert!(calls.get() <= 200);
    }
}

#[tokio::test]
async fn shrinking_cuts_long_text_in_few_calls() {
    let schema =
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
    let non_ascii = |args: &Value| args["text"].as_str().is_some_and(|t| !t.is_ascii());
    let case = (0..50)
        .find_map(|seed| {
            first_failure(&schema, seed, |args| {
                non_ascii(args)
                    && args["text"]
                        .as_str()
                        .is_some_and(|t| t.chars().count() > 1000)
            })
        })
        .expect("a long non-ASCII text within 50 seeds");
    let shrunk = case
        .shrink(|args| async move { non_ascii(&args) }, 60)
        .await;
    let text = shrunk["text"].as_str().expect("still a string");
    assert!(!text.is_ascii(), "{shrunk}");
    assert!(text.chars().count() <= 2, "{shrunk}");
}

#[tokio::test]
async fn shrinking_keeps_validity_and_the_budget() {
    let schema = schemas()[1].clone();
    let check = validator(&schema);
    let mut fuzzer = Fuzzer::new(&schema, 8).expect("usable schema");
    for _ in 0..40 {
        let case = fuzzer.next_case();
        let valid = case.valid;
        let calls = Cell::new(0);
        // A tool that fails on everything: shrinking goes as far as validity lets it.
        let shrunk = case
            .shrink(
                |args| {
                    calls.set(calls.get() + 1);
                    assert_eq!(check.is_valid(&args), valid, "{args}");
                    async { true }
                },
                30,
            )
            .await;
        assert_eq!(check.is_valid(&shrunk), valid, "{shrunk}");
        assert!(calls.get() <= 30);
    }
}

#[tokio::test]
async fn a_zero_budget_returns_the_case_as_it_was() {
    let mut fuzzer = Fuzzer::new(&counter(), 0).expect("usable schema");
    let case = fuzzer.next_case();
    let args = case.args.clone();
    let shrunk = case
        .shrink(|_| async { panic!("no call within a zero budget") }, 0)
        .await;
    assert_eq!(shrunk, args);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn any_seed_marks_its_cases_truly(seed in any::<u64>()) {
        let schema = schemas()[1].clone();
        let check = validator(&schema);
        let mut fuzzer = Fuzzer::new(&schema, seed).expect("usable schema");
        for _ in 0..20 {
            let case = fuzzer.next_case();
            prop_assert_eq!(check.is_valid(&case.args), case.valid);
        }
    }
}

#[test]
fn anchored_patterns_are_generated_not_guessed() {
    let schema = json!({
        "type": "object",
        "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{2}$"}},
        "required": ["code"]
    });
    let mut fuzzer = Fuzzer::new(&schema, 4).expect("usable schema");
    let codes: std::collections::BTreeSet<String> = (0..100)
        .map(|_| fuzzer.next_case())
        .filter(|case| case.valid)
        .map(|case| case.args["code"].as_str().expect("a string").to_owned())
        .collect();
    assert!(codes.len() > 30, "{codes:?}");
}

#[test]
fn an_object_declaring_no_properties_gets_entries() {
    let schema = json!({"type": "object", "additionalProperties": {"type": "integer"}});
    let mut fuzzer = Fuzzer::new(&schema, 6).expect("usable schema");
    let sizes: Vec<usize> = (0..200)
        .map(|_| fuzzer.next_case())
        .filter(|case| case.valid)
        .map(|case| case.args.as_object().expect("an object").len())
        .collect();
    let empty = sizes.iter().filter(|n| **n == 0).count();
    assert!(empty * 4 < sizes.len(), "{empty} empty of {}", sizes.len());
    assert!(sizes.iter().any(|n| *n >= 2));
}

#[test]
fn the_values_a_schema_gives_are_the_ordinary_call_and_often_drawn() {
    let schema = json!({
        "type": "object",
        "properties": {"id": {"type": "string", "pattern": "^A-[0-9]{4}$", "examples": ["A-1001", "A-1002"]}},
        "required": ["id"]
    });
    let mut fuzzer = Fuzzer::new(&schema, 5).expect("usable").valid_only();
    assert_eq!(fuzzer.example(), json!({"id": "A-1001"}));
    let given = (0..200)
        .filter(|_| {
            let id = fuzzer.next_case().args["id"].clone();
            id == "A-1001" || id == "A-1002"
        })
        .count();
    assert!(
        (50..=150).contains(&given),
        "{given} of 200 drawn from the examples"
    );
}
