//! Random and hostile schemas against the generator: it never panics, refuses what
//! passes its limits with the place named, and no value it draws, nor the example,
//! passes the size budget.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::budget::{MAX_SIZE, json_size};
use super::error::FuzzError;
use super::*;

/// Draws `cases` cases from `schema` (when it is accepted), shrinks one a few steps,
/// and checks every value against the budget.
fn draws_within_budget(schema: &Value, cases: usize) -> Result<(), FuzzError> {
    let mut fuzzer = Fuzzer::new(schema, 7)?;
    let sized = |value: &Value| {
        let text = value.to_string();
        assert!(
            text.len() as u64 <= MAX_SIZE && json_size(value) <= MAX_SIZE,
            "{} bytes from {schema}",
            text.len()
        );
    };
    sized(&fuzzer.example());
    for _ in 0..cases {
        let case = fuzzer.next_case();
        sized(&case.args);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let shrunk = runtime.block_on(case.shrink(|_| async { true }, 3));
        sized(&shrunk);
    }
    Ok(())
}

/// A schema nested `depth` times by `wrap`.
fn nested(depth: usize, wrap: impl Fn(Value) -> Value) -> Value {
    (0..depth).fold(json!({"type": "string"}), |inner, _| wrap(inner))
}

fn refused_at(schema: &Value, pointer: &str) -> String {
    let err = draws_within_budget(schema, 4).expect_err("past a limit");
    let named = match pointer {
        "" => "at the root".to_owned(),
        _ => format!("at `{pointer}`"),
    };
    assert!(err.to_string().contains(&named), "{err} names {pointer}");
    err.to_string()
}

#[test]
fn products_of_allowed_sizes_are_refused_where_they_multiply() {
    let square = json!({"type": "object", "properties": {"a": {
        "type": "array", "minItems": 4096,
        "items": {"type": "array", "minItems": 4096, "items": {"type": "string"}}
    }}, "required": ["a"]});
    let reason = refused_at(&square, "/properties/a");
    assert!(reason.contains("bytes of JSON"), "{reason}");
    let names: Vec<String> = (0..50_000).map(|n| format!("p{n}")).collect();
    let wide = json!({"type": "object", "required": names});
    let reason = draws_within_budget(&wide, 1)
        .expect_err("too many")
        .to_string();
    assert_eq!(
        reason,
        "the object at the root has 50000 properties, more than check generates (at most 1024)"
    );
    // 1,024 properties of 1 KiB strings: each allowed, together too much.
    let properties: Map<String, Value> = (0..1024)
        .map(|n| {
            (
                format!("p{n}"),
                json!({"type": "string", "minLength": 1000}),
            )
        })
        .collect();
    let names: Vec<&String> = properties.keys().collect();
    let heavy = json!({"type": "object", "properties": properties, "required": names});
    refused_at(&heavy, "");
}

#[test]
fn depth_is_refused_before_the_stack_is_at_risk() {
    let deep_properties = nested(
        200,
        |inner| json!({"type": "object", "properties": {"n": inner}, "required": ["n"]}),
    );
    let reason = draws_within_budget(&deep_properties, 1)
        .expect_err("too deep")
        .to_string();
    assert!(reason.contains("at most 32 levels"), "{reason}");
    assert!(reason.contains(&"/properties/n".repeat(33)), "{reason}");
    let deep_all_of = nested(200, |inner| json!({"allOf": [inner, {"type": "string"}]}));
    refused_at(&deep_all_of, &"/allOf/0".repeat(33));
    let deep_any_of = nested(200, |inner| json!({"anyOf": [inner, {"type": "null"}]}));
    refused_at(&deep_any_of, &"/anyOf/0".repeat(33));
    let deep_items = nested(200, |inner| json!({"type": "array", "items": inner}));
    refused_at(&deep_items, &"/items".repeat(33));
    // Within the limit, deep schemas are generated from.
    let fine = nested(
        20,
        |inner| json!({"type": "object", "properties": {"n": inner}, "required": ["n"]}),
    );
    draws_within_budget(&fine, 20).expect("20 levels are generated");
}

#[test]
fn recursive_references_stop_growing_and_are_not_refused() {
    for schema in [
        json!({"type": "object", "properties": {"next": {"$ref": "#"}}}),
        json!({"$ref": "#"}),
        json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
        json!({"type": "array", "items": {"$ref": "#"}, "minItems": 2}),
        json!({"anyOf": [{"$ref": "#"}, {"$ref": "#"}, {"type": "integer"}]}),
    ] {
        match draws_within_budget(&schema, 20) {
            Ok(()) | Err(FuzzError::Unsatisfiable | FuzzError::Invalid(_)) => {}
            Err(err) => panic!("{schema}: {err}"),
        }
    }
}

#[test]
fn costly_patterns_are_refused_and_the_rest_generated() {
    let with_pattern = |pattern: &str| json!({"type": "object", "properties": {"a": {"type": "string", "pattern": pattern}}, "required": ["a"]});
    for pattern in [
        "^(((a+)+)+)+$",
        "a{1000000}",
        "(a|b|c|d|e){4000}",
        &"(".repeat(300),
    ] {
        let err = draws_within_budget(&with_pattern(pattern), 4);
        match err {
            Err(FuzzError::Pattern { at, .. }) => assert_eq!(at.pointer(), "/properties/a/pattern"),
            // Not a pattern the validator compiles.
            Err(FuzzError::Invalid(_)) => {}
            other => panic!("{pattern}: {other:?}"),
        }
    }
    for pattern in [
        "^(a+)+$",
        "^[a-z]{1,60000}$",
        r"^\p{Greek}{3}\d+$",
        "((ab|cd)*x){3}",
    ] {
        draws_within_budget(&with_pattern(pattern), 10).expect("a pattern within the limits");
    }
}

/// Schemas built from every keyword generation reads, nested and sized at random,
/// sizes up to past their limits.
fn schemas() -> impl Strategy<Value = Value> {
    let size = prop_oneof![0u64..8, 0u64..5000, Just(65_536u64), Just(70_000u64)];
    let pattern = prop::sample::select(vec![
        "^[a-z]+$",
        "(a+)+",
        "((a+)+)+",
        "(((a+)+)+)+",
        "a{70000}",
        "[",
        r"\d{3}",
        "(x|y){9}",
        "",
    ]);
    let leaf = prop_oneof![
        Just(json!(true)),
        Just(json!(false)),
        Just(json!({})),
        (size.clone(), size.clone())
            .prop_map(|(min, max)| json!({"type": "string", "minLength": min, "maxLength": max})),
        pattern.prop_map(|p| json!({"type": "string", "pattern": p})),
        Just(json!({"type": "integer", "minimum": -3, "maximum": 5})),
        Just(json!({"type": "number", "multipleOf": 0.5})),
        Just(json!({"enum": ["a", 1, null, [1, 2]]})),
        Just(json!({"const": {"k": "v"}})),
        Just(json!({"$ref": "#"})),
        Just(json!({"$ref": "#/nowhere"})),
    ];
    leaf.prop_recursive(6, 64, 6, move |inner| {
        prop_oneof![
            (inner.clone(), size.clone(), size.clone()).prop_map(|(items, min, max)| {
                json!({"type": "array", "items": items, "minItems": min, "maxItems": max})
            }),
            (
                prop::collection::vec(inner.clone(), 0..6),
                any::<bool>(),
                size.clone()
            )
                .prop_map(|(props, all_required, min)| {
                    let properties: Map<String, Value> = props
                        .into_iter()
                        .enumerate()
                        .map(|(n, schema)| (format!("p{n}"), schema))
                        .collect();
                    let required: Vec<&String> =
                        properties.keys().filter(|_| all_required).collect();
                    json!({"type": "object", "properties": properties, "required": required,
                           "minProperties": min})
                }),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|parts| json!({"allOf": parts})),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|parts| json!({"anyOf": parts})),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|parts| json!({"oneOf": parts})),
            inner
                .clone()
                .prop_map(|schema| json!({"type": "object", "additionalProperties": schema})),
            prop::collection::vec(inner, 1..4)
                .prop_map(|items| json!({"type": "array", "prefixItems": items})),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn any_schema_is_generated_from_within_budget_or_refused(schema in schemas()) {
        // A refusal is an answer; a panic or an oversized value fails the test.
        let _ = draws_within_budget(&schema, 6);
    }

    #[test]
    fn hostile_sizes_are_generated_from_within_budget_or_refused(
        outer in 0u64..5000,
        inner in 0u64..5000,
        chars in 0u64..70_000,
        depth in 0usize..64,
    ) {
        let leaf = json!({"type": "string", "minLength": chars});
        let array = json!({"type": "array", "minItems": outer,
                           "items": {"type": "array", "minItems": inner, "items": leaf}});
        let _ = draws_within_budget(&array, 2);
        let deep = nested(depth, |inner| json!({"type": "array", "minItems": 2, "items": inner}));
        let _ = draws_within_budget(&deep, 2);
    }
}
