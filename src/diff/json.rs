//! Differences between two JSON values, located by JSON Pointer.

use serde_json::Value as Json;

/// One place where two values differ: what the left side (the expected, recorded or
/// older one) and the right side (the actual, made or newer one) hold there.
/// `None` is nothing at all: a member or item only one side has.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// A JSON Pointer; empty for the whole value.
    pub pointer: String,
    pub left: Option<Json>,
    pub right: Option<Json>,
}

/// Whether two values are equal, numbers compared by value everywhere (`1` equals
/// `1.0`), object members in any order.
pub fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.as_f64() == y.as_f64(),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Every difference, deepest places named: in the left value's order, members only
/// the right side has after every member of the left one; array items by index.
/// Two values of different kinds are one change at their own pointer.
pub fn changes(left: &Json, right: &Json) -> Vec<Change> {
    let mut found = Vec::new();
    walk(&mut String::new(), left, right, &mut |change| {
        found.push(change);
        true
    });
    found
}

/// The first of [`changes`], found without looking further.
pub fn first_change(left: &Json, right: &Json) -> Option<Change> {
    let mut first = None;
    walk(&mut String::new(), left, right, &mut |change| {
        first = Some(change);
        false
    });
    first
}

/// `base` and one more reference token, escaped as RFC 6901 asks (`~` → `~0`,
/// `/` → `~1`).
pub fn child(base: &str, token: &str) -> String {
    format!("{base}/{}", escape(token))
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Walks both values, handing each change to `found`; stops as soon as it says
/// `false`. Returns whether to go on.
fn walk(at: &mut String, left: &Json, right: &Json, found: &mut dyn FnMut(Change) -> bool) -> bool {
    match (left, right) {
        (Json::Object(l), Json::Object(r)) => {
            let only_right = r.iter().filter(|(key, _)| !l.contains_key(*key));
            l.iter()
                .map(|(key, value)| (key, Some(value), r.get(key)))
                .chain(only_right.map(|(key, value)| (key, None, Some(value))))
                .all(|(key, l, r)| descend(at, key, l, r, found))
        }
        (Json::Array(l), Json::Array(r)) => (0..l.len().max(r.len()))
            .all(|index| descend(at, &index.to_string(), l.get(index), r.get(index), found)),
        _ if same(left, right) => true,
        _ => found(Change {
            pointer: at.clone(),
            left: Some(left.clone()),
            right: Some(right.clone()),
        }),
    }
}

/// One member or item further down: walked when both sides hold it, a change when
/// only one does.
fn descend(
    at: &mut String,
    token: &str,
    left: Option<&Json>,
    right: Option<&Json>,
    found: &mut dyn FnMut(Change) -> bool,
) -> bool {
    let len = at.len();
    at.push('/');
    at.push_str(&escape(token));
    let go_on = match (left, right) {
        (Some(l), Some(r)) => walk(at, l, r, found),
        (l, r) => found(Change {
            pointer: at.clone(),
            left: l.cloned(),
            right: r.cloned(),
        }),
    };
    at.truncate(len);
    go_on
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn change(pointer: &str, left: Option<Json>, right: Option<Json>) -> Change {
        Change {
            pointer: pointer.into(),
            left,
            right,
        }
    }

    #[test]
    fn numbers_compare_by_value_everywhere() {
        assert!(same(&json!({"a": [1, 2.0]}), &json!({"a": [1.0, 2]})));
        assert!(!same(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(!same(&json!("1"), &json!(1)));
        assert!(changes(&json!({"a": 1.0}), &json!({"a": 1})).is_empty());
    }

    #[test]
    fn every_change_is_named_by_its_pointer_in_the_left_order() {
        let left = json!({"order": {"status": "delayed", "items": [1, 2]}, "b": 2});
        let right = json!({"order": {"status": "shipped", "items": [1, 3, 4]}, "c/d": true});
        assert_eq!(
            changes(&left, &right),
            [
                change(
                    "/order/status",
                    Some(json!("delayed")),
                    Some(json!("shipped"))
                ),
                change("/order/items/1", Some(json!(2)), Some(json!(3))),
                change("/order/items/2", None, Some(json!(4))),
                change("/b", Some(json!(2)), None),
                change("/c~1d", None, Some(json!(true))),
            ]
        );
        assert_eq!(
            first_change(&left, &right),
            Some(change(
                "/order/status",
                Some(json!("delayed")),
                Some(json!("shipped"))
            ))
        );
    }

    #[test]
    fn values_of_another_kind_are_one_change_where_they_are() {
        assert_eq!(
            changes(&json!([1]), &json!("x")),
            [change("", Some(json!([1])), Some(json!("x")))]
        );
        assert_eq!(
            changes(&json!({"a~b": {}}), &json!({"a~b": []})),
            [change("/a~0b", Some(json!({})), Some(json!([])))]
        );
    }

    #[test]
    fn a_pointer_finds_what_it_names() {
        let left = json!({"a/b": {"~x": [0, {"k": 1}]}});
        let right = json!({"a/b": {"~x": [0, {"k": 2}]}});
        for found in changes(&left, &right) {
            assert_eq!(left.pointer(&found.pointer), found.left.as_ref());
            assert_eq!(right.pointer(&found.pointer), found.right.as_ref());
        }
        assert_eq!(child("/a", "b/c~"), "/a/b~1c~0");
    }

    fn value() -> impl Strategy<Value = Json> {
        let leaf = prop_oneof![
            Just(Json::Null),
            any::<bool>().prop_map(Json::from),
            (-50i64..50).prop_map(Json::from),
            "[a-c/~]{0,3}".prop_map(Json::from),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Json::Array),
                prop::collection::btree_map("[a-c/~]{0,2}", inner, 0..4)
                    .prop_map(|map| Json::Object(map.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn a_value_has_no_changes_from_itself(v in value()) {
            prop_assert!(changes(&v, &v).is_empty());
            prop_assert!(first_change(&v, &v).is_none());
        }

        #[test]
        fn changes_are_empty_exactly_when_the_values_are_the_same(a in value(), b in value()) {
            prop_assert_eq!(changes(&a, &b).is_empty(), same(&a, &b));
            prop_assert_eq!(first_change(&a, &b), changes(&a, &b).into_iter().next());
        }

        #[test]
        fn swapping_the_sides_swaps_every_change(a in value(), b in value()) {
            let mut there: Vec<_> = changes(&a, &b).into_iter().map(|c| (c.pointer, c.left, c.right)).collect();
            let mut back: Vec<_> = changes(&b, &a).into_iter().map(|c| (c.pointer, c.right, c.left)).collect();
            there.sort_by(|x, y| x.0.cmp(&y.0));
            back.sort_by(|x, y| x.0.cmp(&y.0));
            prop_assert_eq!(there, back);
        }

        #[test]
        fn every_pointer_leads_to_what_each_side_holds(a in value(), b in value()) {
            for found in changes(&a, &b) {
                prop_assert_eq!(a.pointer(&found.pointer), found.left.as_ref());
                prop_assert_eq!(b.pointer(&found.pointer), found.right.as_ref());
            }
        }
    }
}
