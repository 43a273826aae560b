//! Drift and findings as text for people, as JSON, and as SARIF.

use serde_json::{Value as Json, json};

use crate::sarif::{Finding as SarifFinding, Log, Rule};

use super::scan::RULES;
use super::{Change, Finding};

/// Each change on a line of its own, old and new values indented below it.
pub(crate) fn changes_human(changes: &[Change]) -> String {
    let mut out = String::new();
    for change in changes {
        match change {
            Change::Added { kind, name } => out.push_str(&format!("  {kind} `{name}`: added\n")),
            Change::Removed { kind, name } => {
                out.push_str(&format!("  {kind} `{name}`: removed\n"))
            }
            Change::Field {
                kind,
                name,
                field,
                pointers,
                old,
                new,
            } => {
                let places: Vec<&str> = pointers
                    .iter()
                    .filter(|p| !p.is_empty())
                    .map(String::as_str)
                    .collect();
                let at = match places.len() {
                    0 => String::new(),
                    n if n <= 5 => format!(" at {}", places.join(", ")),
                    n => format!(" at {} and {} more", places[..5].join(", "), n - 5),
                };
                out.push_str(&format!("  {kind} `{name}`: {field} changed{at}\n"));
                out.push_str(&format!("    - old: {}\n", shown(old.as_ref())));
                out.push_str(&format!("    + new: {}\n", shown(new.as_ref())));
            }
            Change::Command {
                kind,
                name,
                old,
                new,
            } => {
                out.push_str(&format!("  {kind} `{name}`: command changed\n"));
                out.push_str(&format!("    - old: {}\n", old.join(" ")));
                out.push_str(&format!("    + new: {}\n", new.join(" ")));
            }
            Change::File {
                kind,
                name,
                path,
                old,
                new,
            } => {
                let what = match (old, new) {
                    (Some(_), Some(_)) => "changed",
                    (None, _) => "is run now",
                    (_, None) => "is no longer run",
                };
                out.push_str(&format!(
                    "  {kind} `{name}`: file `{path}` {what} (sha256 {} -> {})\n",
                    short(old.as_deref()),
                    short(new.as_deref())
                ));
            }
        }
    }
    out
}

/// A value on one line, escaped: strings quoted, anything else as compact JSON,
/// cut after 200 characters.
fn shown(value: Option<&Json>) -> String {
    let Some(value) = value else {
        return "(none)".into();
    };
    // Characters the scan calls hidden are shown by code point, so a reviewer sees them.
    let text: String = value
        .to_string()
        .chars()
        .map(|c| match super::scan::hidden(c) {
            true => format!("<U+{:04X}>", c as u32),
            false => c.to_string(),
        })
        .collect();
    let escaped = crate::peer_text::peer(&text, true).into_owned();
    if escaped.chars().count() > 200 {
        let cut: String = escaped.chars().take(200).collect();
        format!("{cut}…")
    } else {
        escaped
    }
}

fn short(hash: Option<&str>) -> String {
    hash.map_or_else(|| "none".into(), |h| h.chars().take(12).collect())
}

/// Findings one per line: level, rule, tool and place, message, and the fix.
pub(crate) fn findings_human(findings: &[Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        let place = if f.pointer.is_empty() {
            f.field.to_string()
        } else {
            format!("{}{}", f.field, f.pointer)
        };
        out.push_str(&format!(
            "{}[{}] tool `{}` {}: {}\n    fix: {}\n",
            f.level.as_str(),
            f.rule,
            crate::peer_text::peer(&f.tool, true),
            crate::peer_text::peer(&place, true),
            f.message,
            f.hint
        ));
    }
    out
}

/// `lock` or `lock --check` as one JSON document.
pub(crate) fn report_json(lock: &str, changes: Option<&[Change]>, findings: &[Finding]) -> Json {
    let mut doc = json!({ "lock": lock, "findings": findings });
    if let Some(changes) = changes {
        doc["drift"] = json!(changes);
        doc["same"] = json!(changes.is_empty());
    }
    doc
}

/// The findings as a SARIF 2.1.0 log; `file` is the config's path as a URI
/// relative to where the command runs.
pub(crate) fn findings_sarif(findings: &[Finding], file: Option<&str>) -> Json {
    let log = Log {
        tool: "promptexec".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        information_uri: None,
        rules: RULES
            .iter()
            .map(|(id, level, short, help)| Rule {
                id: (*id).into(),
                short: (*short).into(),
                help: (*help).into(),
                level: *level,
            })
            .collect(),
        findings: findings
            .iter()
            .map(|f| SarifFinding {
                rule_id: f.rule.into(),
                level: f.level,
                message: format!("tool `{}` {}: {}", f.tool, f.field, f.message),
                file: file.map(str::to_string),
                logical: Some((
                    f.tool.clone(),
                    format!("{}/{}{}", f.tool, f.field, f.pointer),
                )),
                properties: Some(json!({ "tool": f.tool, "field": f.field, "pointer": f.pointer, "fix": f.hint })),
            })
            .collect(),
    };
    log.json()
}

#[cfg(test)]
mod tests {
    use super::shown;
    use serde_json::json;

    #[test]
    fn a_changed_value_shows_hidden_characters_by_code_point() {
        assert_eq!(
            shown(Some(&json!("call\u{200b} refund\u{202e}"))),
            "\"call<U+200B> refund<U+202E>\""
        );
        assert_eq!(shown(None), "(none)");
    }
}
