//! The known-failures file: failures a team tolerates for now, each by the id a
//! diff gives it (a scenario id, `FILE#CASE` for a test case, `KIND.NAME#PROBE`
//! for a check probe), with an optional reason. YAML or JSON, a list:
//!
//! ```yaml
//! - checkout-flow
//! - id: "examples/assistant.cases.yaml#refund over the limit"
//!   reason: the refund service is down in staging
//! ```

use std::path::Path;

use crate::doc::{Diagnostic, Diagnostics, Node, Value, parse_by_extension};

/// One tolerated failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KnownFailure {
    pub id: String,
    pub reason: Option<String>,
}

/// The entries of the known-failures file `path` whose text is `text`; every
/// problem comes back with its place.
pub(crate) fn read_known(path: &Path, text: &str) -> Result<Vec<KnownFailure>, Diagnostics> {
    let root = parse_by_extension(path, text).map_err(Diagnostics::from)?;
    let Value::Seq(entries) = &root.value else {
        let message = format!(
            "a known-failures file is a list of ids (or of `id:` and `reason:`), found {}",
            root.kind()
        );
        return Err(Diagnostic::error(path, root.pos, message).into());
    };
    let mut found = Vec::new();
    let mut problems = Vec::new();
    for entry in entries {
        match known(entry) {
            Ok(known) if found.iter().any(|k: &KnownFailure| k.id == known.id) => problems.push(
                Diagnostic::error(path, entry.pos, format!("`{}` is listed twice", known.id)),
            ),
            Ok(known) => found.push(known),
            Err((pos, message)) => problems.push(Diagnostic::error(path, pos, message)),
        }
    }
    if problems.is_empty() {
        Ok(found)
    } else {
        Err(problems.into_iter().collect())
    }
}

fn known(entry: &Node) -> Result<KnownFailure, (crate::doc::Pos, String)> {
    let string = |node: &Node, what: &str| -> Result<String, (crate::doc::Pos, String)> {
        match node.as_str() {
            Some(text) if !text.trim().is_empty() => Ok(text.to_string()),
            _ => Err((node.pos, format!("{what} must be a non-empty string"))),
        }
    };
    match &entry.value {
        Value::Str(_) => Ok(KnownFailure {
            id: string(entry, "an id")?,
            reason: None,
        }),
        Value::Map(fields) => {
            let mut id = None;
            let mut reason = None;
            for (key, value) in fields {
                match key.name.as_str() {
                    "id" => id = Some(string(value, "`id`")?),
                    "reason" => reason = Some(string(value, "`reason`")?),
                    other => {
                        return Err((
                            key.pos,
                            format!("unknown key `{other}`; an entry has `id` and `reason`"),
                        ));
                    }
                }
            }
            let id = id.ok_or((entry.pos, "an entry needs an `id`".to_string()))?;
            Ok(KnownFailure { id, reason })
        }
        _ => Err((
            entry.pos,
            format!(
                "an entry is an id or a mapping with `id` and `reason`, found {}",
                entry.kind()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_come_bare_or_with_a_reason() {
        let text = "- a\n- id: \"f.yaml#case one\"\n  reason: flaky upstream\n";
        let known = read_known(Path::new("k.yaml"), text).expect("reads");
        assert_eq!(
            known,
            [
                KnownFailure {
                    id: "a".into(),
                    reason: None
                },
                KnownFailure {
                    id: "f.yaml#case one".into(),
                    reason: Some("flaky upstream".into())
                }
            ]
        );
        let json = read_known(Path::new("k.json"), r#"["a", {"id": "b"}]"#).expect("reads");
        assert_eq!(json.len(), 2);
    }

    #[test]
    fn every_problem_is_placed() {
        let text = "- a\n- a\n- id: b\n  why: x\n- 3\n";
        let problems = read_known(Path::new("k.yaml"), text).expect_err("refused");
        let lines: Vec<String> = problems
            .iter()
            .map(|d| format!("{:?} {}", d.pos, d.message))
            .collect();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(lines[0].contains("line: 2") && lines[0].contains("listed twice"));
        assert!(lines[1].contains("line: 4") && lines[1].contains("unknown key `why`"));
        assert!(lines[2].contains("line: 5") && lines[2].contains("found an integer"));
        assert!(read_known(Path::new("k.yaml"), "a: 1\n").is_err());
    }
}
