//! The lint configuration (`.promptlint.yaml`): rules turned off or re-levelled,
//! and the longest template allowed.
//!
//! ```yaml
//! rules:
//!   PL203: off                # by id …
//!   instruction-override: error   # … or by name; off, note, warning or error
//! max_template_chars: 12000
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use crate::doc::{
    Checker, Diagnostic, Loaded, Rejected, UnknownKeys, Value, finish, parse_by_extension, suggest,
};
use crate::sarif::Level;

use super::rules::{RULES, Rule, find};

/// The longest template (in characters) that is not a `long-template` finding, by default.
pub(crate) const MAX_TEMPLATE_CHARS: usize = 8_000;

/// Which rules run, at which level.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    /// Rule id → level, `None` when the rule is off; rules not here keep their own level.
    changed: BTreeMap<&'static str, Option<Level>>,
    pub max_template_chars: usize,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            changed: BTreeMap::new(),
            max_template_chars: MAX_TEMPLATE_CHARS,
        }
    }
}

impl Config {
    /// The level `rule` reports at, or `None` when it is off.
    pub(crate) fn level(&self, rule: &Rule) -> Option<Level> {
        self.changed
            .get(rule.id)
            .copied()
            .unwrap_or(Some(rule.level))
    }

    /// Reads a config file; every problem is positioned, an unknown rule included.
    pub(crate) fn load(path: &Path) -> Result<Loaded<Config>, Rejected> {
        let text = std::fs::read_to_string(path).map_err(|err| {
            Rejected(Diagnostic::whole_file(path, format!("cannot read file: {err}")).into())
        })?;
        Self::parse(path, &text)
    }

    pub(crate) fn parse(path: &Path, text: &str) -> Result<Loaded<Config>, Rejected> {
        let root = parse_by_extension(path, text).map_err(|d| Rejected(d.into()))?;
        let mut cx = Checker::new(path, text);
        let mut config = Config::default();
        if matches!(root.value, Value::Null) {
            return finish(config, cx.diagnostics);
        }
        let Some(mut f) = cx.map(&root, "the lint config") else {
            return Err(Rejected(cx.diagnostics));
        };
        if let Some(max) = f.get("max_template_chars")
            && let Some(n) = cx.positive_integer(max, "max_template_chars")
        {
            config.max_template_chars = usize::try_from(n).unwrap_or(usize::MAX);
        }
        if let Some(rules) = f.get("rules")
            && let Value::Map(entries) = &rules.value
        {
            for (key, node) in entries {
                let Some(rule) = find(&key.name) else {
                    let names = RULES.iter().flat_map(|r| [r.id, r.name]);
                    let hint = suggest(&key.name, names);
                    cx.error(
                        key.pos,
                        format!("no lint rule is called `{}`{hint}", key.name),
                    );
                    continue;
                };
                let choices = [
                    ("off", None),
                    ("note", Some(Level::Note)),
                    ("warning", Some(Level::Warning)),
                    ("error", Some(Level::Error)),
                ];
                // YAML reads a bare `off` as a string, and `false` as a boolean: both mean off.
                let level = match node.value {
                    Value::Bool(false) => Some(None),
                    _ => cx.choice(node, &format!("rules.{}", key.name), &choices),
                };
                if let Some(level) = level {
                    config.changed.insert(rule.id, level);
                }
            }
        } else if let Some(rules) = f.get("rules") {
            cx.map(rules, "rules");
        }
        cx.unknown_keys(&f, "the lint config", UnknownKeys::Error);
        finish(config, cx.diagnostics)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::lint::rules::{INSTRUCTION_OVERRIDE, MISSING_TAGS, SECRET_LITERAL};

    fn parse(text: &str) -> Result<Config, Vec<String>> {
        Config::parse(Path::new("c.yaml"), text)
            .map(|l| l.value)
            .map_err(|r| r.0.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn rules_are_turned_off_and_relevelled_by_id_or_name() {
        let config =
            parse("rules:\n  PL203: off\n  instruction-override: error\nmax_template_chars: 10\n")
                .expect("reads");
        assert_eq!(config.level(&MISSING_TAGS), None);
        assert_eq!(config.level(&INSTRUCTION_OVERRIDE), Some(Level::Error));
        assert_eq!(config.level(&SECRET_LITERAL), Some(Level::Error));
        assert_eq!(config.max_template_chars, 10);
    }

    #[test]
    fn an_unknown_rule_or_level_is_a_positioned_error() {
        let errors = parse("rules:\n  PL999: off\n  missing-tags: loud\n").expect_err("refused");
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].starts_with("c.yaml:2:3: "), "{errors:?}");
        assert!(
            errors[0].contains("no lint rule is called `PL999`"),
            "{errors:?}"
        );
        assert!(errors[1].contains("`loud` is not one of"), "{errors:?}");
    }
}
