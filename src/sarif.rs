//! A small SARIF 2.1.0 writer: one run of one tool, its rules, and the results it
//! found, as the JSON document code-scanning services read. Any linter of the
//! project (the tool-surface scan, a prompt linter) fills a [`Log`] and calls
//! [`Log::json`].

use serde_json::{Value as Json, json};

/// The schema a SARIF 2.1.0 log names.
pub(crate) const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

crate::wire_enum! {
    /// How serious a result is, in SARIF's words.
    pub(crate) enum Level {
        /// Advice; no rule of the lock scan gives it, a prompt linter may.
        Note = "note",
        Warning = "warning",
        Error = "error",
    }
}

/// One rule the tool checks.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    pub id: String,
    /// A one-line description.
    pub short: String,
    /// How to fix what the rule finds.
    pub help: String,
    pub level: Level,
}

/// One thing found.
#[derive(Debug, Clone)]
pub(crate) struct Finding {
    pub rule_id: String,
    pub level: Level,
    pub message: String,
    /// The file it is in, as a relative URI (`runtimeconfig.yaml`), when known.
    pub file: Option<String>,
    /// Where inside: a name people know it by (`lookup_order`), and the full path
    /// to it (`lookup_order/input_schema/properties/id`).
    pub logical: Option<(String, String)>,
    /// Anything else worth carrying (`properties` of the result).
    pub properties: Option<Json>,
}

/// A whole log: the tool, its rules and its findings.
#[derive(Debug, Clone)]
pub(crate) struct Log {
    pub tool: String,
    pub version: String,
    pub information_uri: Option<String>,
    pub rules: Vec<Rule>,
    pub findings: Vec<Finding>,
}

impl Log {
    /// The log as a SARIF 2.1.0 document.
    pub(crate) fn json(&self) -> Json {
        let rules: Vec<Json> = self.rules.iter().map(rule_json).collect();
        let results: Vec<Json> = self
            .findings
            .iter()
            .map(|finding| self.result_json(finding))
            .collect();
        let mut driver = json!({
            "name": self.tool,
            "version": self.version,
            "rules": rules,
        });
        if let Some(uri) = &self.information_uri {
            driver["informationUri"] = json!(uri);
        }
        json!({
            "$schema": SCHEMA,
            "version": "2.1.0",
            "runs": [{
                "tool": { "driver": driver },
                "results": results,
            }]
        })
    }

    fn result_json(&self, finding: &Finding) -> Json {
        let mut result = json!({
            "ruleId": finding.rule_id,
            "level": finding.level.as_str(),
            "message": { "text": finding.message },
        });
        if let Some(index) = self.rules.iter().position(|r| r.id == finding.rule_id) {
            result["ruleIndex"] = json!(index);
        }
        let mut location = serde_json::Map::new();
        if let Some(file) = &finding.file {
            location.insert(
                "physicalLocation".into(),
                json!({ "artifactLocation": { "uri": file } }),
            );
        }
        if let Some((name, full)) = &finding.logical {
            location.insert(
                "logicalLocations".into(),
                json!([{ "name": name, "fullyQualifiedName": full, "kind": "member" }]),
            );
        }
        if !location.is_empty() {
            result["locations"] = json!([Json::Object(location)]);
        }
        if let Some(properties) = &finding.properties {
            result["properties"] = properties.clone();
        }
        result
    }
}

fn rule_json(rule: &Rule) -> Json {
    json!({
        "id": rule.id,
        "shortDescription": { "text": rule.short },
        "help": { "text": rule.help },
        "defaultConfiguration": { "level": rule.level.as_str() },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_points_at_its_rule_and_where_it_is() {
        let log = Log {
            tool: "t".into(),
            version: "1".into(),
            information_uri: None,
            rules: vec![Rule {
                id: "r".into(),
                short: "s".into(),
                help: "h".into(),
                level: Level::Error,
            }],
            findings: vec![Finding {
                rule_id: "r".into(),
                level: Level::Error,
                message: "m".into(),
                file: Some("a.yaml".into()),
                logical: Some(("x".into(), "x/description".into())),
                properties: None,
            }],
        };
        let doc = log.json();
        assert_eq!(doc["version"], "2.1.0");
        let result = &doc["runs"][0]["results"][0];
        assert_eq!(result["ruleIndex"], 0);
        assert_eq!(result["level"], "error");
        assert_eq!(
            result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "a.yaml"
        );
        assert_eq!(
            result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"],
            "x/description"
        );
    }
}
