//! `prompt lint`'s findings for people (`FILE:LINE:COL: level[ID]: message`), as
//! one JSON document, and as SARIF 2.1.0.

use serde_json::{Value as Json, json};

use crate::library::lint::{Finding, RULES};
use crate::sarif::{Finding as SarifFinding, Level, Log, Rule as SarifRule};

/// How many findings there are at each level: errors, warnings, notes.
fn lint_counts(findings: &[Finding]) -> (usize, usize, usize) {
    let count = |level| findings.iter().filter(|f| f.level == level).count();
    (
        count(Level::Error),
        count(Level::Warning),
        count(Level::Note),
    )
}

/// One line per finding with its fix, then the totals.
pub(crate) fn lint_human(findings: &[Finding], templates: usize) -> String {
    let mut out = String::new();
    for f in findings {
        out.push_str(&format!(
            "{}:{}: {}[{}]: {} ({})\n",
            crate::peer_text::peer(&f.file.display().to_string(), true),
            f.pos,
            f.level.as_str(),
            f.rule.id,
            crate::peer_text::peer(&f.message, true),
            f.rule.hint
        ));
    }
    let (errors, warnings, notes) = lint_counts(findings);
    out.push_str(&format!(
        "{templates} template(s) checked: {errors} error(s), {warnings} warning(s), {notes} note(s)\n"
    ));
    out
}

/// The findings and totals as one document.
pub(crate) fn lint_json(findings: &[Finding], templates: usize) -> Json {
    let (errors, warnings, notes) = lint_counts(findings);
    let listed: Vec<Json> = findings
        .iter()
        .map(|f| {
            json!({
                "rule": f.rule.id,
                "name": f.rule.name,
                "group": f.rule.group.as_str(),
                "level": f.level.as_str(),
                "file": f.file.display().to_string(),
                "line": f.pos.line,
                "col": f.pos.col,
                "message": f.message,
                "hint": f.rule.hint,
            })
        })
        .collect();
    json!({
        "templates": templates,
        "errors": errors,
        "warnings": warnings,
        "notes": notes,
        "findings": listed,
    })
}

/// The findings as a SARIF 2.1.0 log: every rule, and each finding with its file
/// and region (a library prompt is a logical location, `ID@vN`).
pub(crate) fn lint_sarif(findings: &[Finding]) -> Json {
    let log = Log {
        tool: "promptexec prompt lint".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        information_uri: None,
        rules: RULES
            .iter()
            .map(|r| SarifRule {
                id: r.id.into(),
                short: format!("{}: {}", r.name, r.short),
                help: r.hint.into(),
                level: r.level,
            })
            .collect(),
        findings: findings
            .iter()
            .map(|f| {
                let label = f.file.display().to_string();
                SarifFinding {
                    rule_id: f.rule.id.into(),
                    level: f.level,
                    message: f.message.clone(),
                    file: (!f.in_library).then(|| uri(&label)),
                    logical: f.in_library.then(|| (label.clone(), label)),
                    properties: Some(json!({ "name": f.rule.name })),
                }
            })
            .collect(),
    };
    let mut doc = log.json();
    // The writer places a file; the region inside it is added here.
    if let Some(results) = doc["runs"][0]["results"].as_array_mut() {
        for (result, finding) in results.iter_mut().zip(findings) {
            if let Some(physical) = result
                .pointer_mut("/locations/0/physicalLocation")
                .and_then(Json::as_object_mut)
            {
                physical.insert(
                    "region".into(),
                    json!({ "startLine": finding.pos.line, "startColumn": finding.pos.col }),
                );
            }
        }
    }
    doc
}

/// A relative path as a URI reference: `/` separators, and what a URI cannot hold
/// percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::new();
    for c in path.replace('\\', "/").chars() {
        match c {
            'A'..='Z' | 'a'..='z' | '0'..='9' | '-' | '.' | '_' | '~' | '/' | '@' | ':' => {
                out.push(c)
            }
            c => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_a_uri_reference() {
        assert_eq!(uri("dir/my prompt.prompt"), "dir/my%20prompt.prompt");
        assert_eq!(uri("a\\b.json"), "a/b.json");
        assert_eq!(uri("é"), "%C3%A9");
    }
}
