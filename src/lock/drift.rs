//! What changed between a lock and a fresh reading, field by field.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value as Json;

use super::{ExecEntry, Lock, Pinned, ToolEntry};

/// One difference. `kind` is `tool`, `hook` or `eval`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub(crate) enum Change {
    Added {
        kind: &'static str,
        name: String,
    },
    Removed {
        kind: &'static str,
        name: String,
    },
    /// A pinned field (`description`, `input_schema`, …, or `source`) differs;
    /// `pointers` are the JSON Pointers inside it that differ (`""` for the whole).
    Field {
        kind: &'static str,
        name: String,
        field: &'static str,
        pointers: Vec<String>,
        old: Option<Json>,
        new: Option<Json>,
    },
    Command {
        kind: &'static str,
        name: String,
        old: Vec<String>,
        new: Vec<String>,
    },
    /// A file the extension runs: its hash, or `None` when it is not run (any more).
    File {
        kind: &'static str,
        name: String,
        path: String,
        old: Option<String>,
        new: Option<String>,
    },
}

/// Every difference between `pinned` and `fresh`, in the order of the file.
pub(crate) fn compare(pinned: &Lock, fresh: &Lock) -> Vec<Change> {
    let mut changes = Vec::new();
    entries("tool", &pinned.tools, &fresh.tools, &mut changes, tool);
    entries("hook", &pinned.hooks, &fresh.hooks, &mut changes, exec);
    entries("eval", &pinned.evals, &fresh.evals, &mut changes, exec);
    changes
}

fn entries<T>(
    kind: &'static str,
    old: &BTreeMap<String, T>,
    new: &BTreeMap<String, T>,
    changes: &mut Vec<Change>,
    each: fn(&'static str, &str, &T, &T, &mut Vec<Change>),
) {
    let names: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    for name in names {
        let name_owned = || name.to_string();
        match (old.get(name), new.get(name)) {
            (Some(a), Some(b)) => each(kind, name, a, b, changes),
            (Some(_), None) => changes.push(Change::Removed {
                kind,
                name: name_owned(),
            }),
            (None, Some(_)) => changes.push(Change::Added {
                kind,
                name: name_owned(),
            }),
            (None, None) => {}
        }
    }
}

fn tool(kind: &'static str, name: &str, old: &ToolEntry, new: &ToolEntry, out: &mut Vec<Change>) {
    if old.source != new.source {
        out.push(Change::Field {
            kind,
            name: name.to_string(),
            field: "source",
            pointers: vec![String::new()],
            old: Some(Json::String(old.source.clone())),
            new: Some(Json::String(new.source.clone())),
        });
    }
    let fields: [(&'static str, &Option<Pinned>, &Option<Pinned>); 5] = [
        ("title", &old.title, &new.title),
        ("description", &old.description, &new.description),
        ("input_schema", &old.input_schema, &new.input_schema),
        ("output_schema", &old.output_schema, &new.output_schema),
        ("annotations", &old.annotations, &new.annotations),
    ];
    for (field, a, b) in fields {
        let (a, b) = (a.as_ref(), b.as_ref());
        // The hash is what is pinned; the value is there to show the change.
        if a.map(|p| &p.sha256) == b.map(|p| &p.sha256) {
            continue;
        }
        let (a, b) = (a.map(|p| p.value.clone()), b.map(|p| p.value.clone()));
        let pointers = match (&a, &b) {
            (Some(x), Some(y)) => pointers(x, y),
            _ => vec![String::new()],
        };
        out.push(Change::Field {
            kind,
            name: name.to_string(),
            field,
            pointers,
            old: a,
            new: b,
        });
    }
    match (&old.exec, &new.exec) {
        (Some(a), Some(b)) => exec(kind, name, a, b, out),
        (None, None) => {}
        (a, b) => out.push(Change::Command {
            kind,
            name: name.to_string(),
            old: a.as_ref().map(|e| e.command.clone()).unwrap_or_default(),
            new: b.as_ref().map(|e| e.command.clone()).unwrap_or_default(),
        }),
    }
}

fn exec(kind: &'static str, name: &str, old: &ExecEntry, new: &ExecEntry, out: &mut Vec<Change>) {
    if old.command != new.command {
        out.push(Change::Command {
            kind,
            name: name.to_string(),
            old: old.command.clone(),
            new: new.command.clone(),
        });
    }
    let paths: BTreeSet<&String> = old.files.keys().chain(new.files.keys()).collect();
    for path in paths {
        let (a, b) = (old.files.get(path), new.files.get(path));
        if a != b {
            out.push(Change::File {
                kind,
                name: name.to_string(),
                path: path.to_string(),
                old: a.cloned(),
                new: b.cloned(),
            });
        }
    }
}

/// The JSON Pointers (RFC 6901) of the deepest places where `a` and `b` differ,
/// sorted.
pub(super) fn pointers(a: &Json, b: &Json) -> Vec<String> {
    let mut found: Vec<String> = crate::diff::changes(a, b)
        .into_iter()
        .map(|change| change.pointer)
        .collect();
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn pointers_name_the_deepest_places_that_differ() {
        let a = json!({"properties": {"id": {"type": "string"}, "a/b": 1}, "required": ["id"]});
        let b = json!({"properties": {"id": {"type": "integer"}}, "required": ["id", "x"]});
        assert_eq!(
            pointers(&a, &b),
            ["/properties/a~1b", "/properties/id/type", "/required/1"]
        );
        assert!(pointers(&a, &a).is_empty());
    }
}
