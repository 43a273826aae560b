//! `prompt lint`: templates checked against rules of structure (does it read, do
//! its blocks, partials and variables fit), security (untrusted text set apart, no
//! override phrases, credentials or hidden characters) and hygiene (description,
//! owner, tags, length). Each rule has an id, a name, a level and a fix; a config
//! file turns rules off or changes their level.

mod analysis;
mod config;
mod rules;
mod security;
mod structure;
mod subject;

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::doc::Pos;
use crate::sarif::Level;

pub(crate) use config::Config;
pub(crate) use rules::{RULES, Rule};
pub(crate) use security::hidden;
pub(crate) use subject::{Subject, from_library, from_prompt, read_file};

/// One thing a rule found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Finding {
    pub rule: &'static Rule,
    /// The rule's level after the config.
    pub level: Level,
    /// The file, or `ID@vN` for a library prompt.
    pub file: PathBuf,
    /// `file` names a library prompt, not a file.
    pub in_library: bool,
    pub pos: Pos,
    pub message: String,
}

/// The partials the linted templates can include: each prompt's id and the
/// partials its own body includes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Partials(BTreeMap<String, Vec<String>>);

impl Partials {
    /// Adds a prompt by its id and body.
    pub(crate) fn add(&mut self, id: &str, body: &str, dotprompt: bool) {
        let names = match dotprompt {
            true => analysis::analyse(body, true)
                .partials
                .into_iter()
                .map(|(name, _)| name)
                .collect(),
            false => Vec::new(),
        };
        self.0.insert(id.to_string(), names);
    }

    /// Adds a subject read for the lint.
    pub(crate) fn add_subject(&mut self, subject: &Subject) {
        if let Some(body) = &subject.body {
            self.add(&subject.id, &body.text, subject.dotprompt);
        }
    }

    /// Adds a subject, then each prompt it includes, directly or through other
    /// partials, that `lookup` finds by id (its body, and whether it is dotprompt).
    /// What `lookup` does not find stays missing, for the rules to report.
    pub(crate) fn add_included(
        &mut self,
        subject: &Subject,
        lookup: impl Fn(&str) -> Option<(String, bool)>,
    ) {
        self.add_subject(subject);
        let mut pending: Vec<String> = self.includes(&subject.id).unwrap_or_default().to_vec();
        while let Some(name) = pending.pop() {
            if self.0.contains_key(&name) {
                continue;
            }
            if let Some((body, dotprompt)) = lookup(&name) {
                self.add(&name, &body, dotprompt);
                pending.extend(self.includes(&name).unwrap_or_default().iter().cloned());
            }
        }
    }

    fn includes(&self, name: &str) -> Option<&[String]> {
        self.0.get(name).map(Vec::as_slice)
    }
}

/// Every finding of the rules `config` leaves on, in file order.
pub(crate) fn lint(subject: &Subject, partials: &Partials, config: &Config) -> Vec<Finding> {
    let mut found = Findings {
        subject,
        config,
        out: Vec::new(),
    };
    structure::check(&mut found, partials);
    security::check(&mut found);
    structure::hygiene(&mut found);
    let mut out = found.out;
    out.sort_by(|a, b| (a.pos, a.rule.id).cmp(&(b.pos, b.rule.id)));
    out
}

/// Findings as the rules add them.
struct Findings<'a> {
    subject: &'a Subject,
    config: &'a Config,
    out: Vec<Finding>,
}

impl Findings<'_> {
    fn add(&mut self, rule: &'static Rule, pos: Pos, message: impl Into<String>) {
        if let Some(level) = self.config.level(rule) {
            self.out.push(Finding {
                rule,
                level,
                file: self.subject.label.clone(),
                in_library: self.subject.in_library,
                pos,
                message: message.into(),
            });
        }
    }

    fn on(&self, rule: &Rule) -> bool {
        self.config.level(rule).is_some()
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn draft(body: &str) -> Subject {
        let text = format!("---\nname: draft\n---\n{body}");
        from_prompt(PathBuf::from("draft.prompt"), text)
    }

    fn rules_found(subject: &Subject, partials: &Partials) -> Vec<&'static str> {
        lint(subject, partials, &Config::default())
            .iter()
            .map(|f| f.rule.id)
            .collect()
    }

    #[test]
    fn only_the_partials_a_draft_reaches_are_looked_up_and_a_cycle_through_them_is_found() {
        let stored = |name: &str| match name {
            "a" => Some(("A {{> b}}".to_string(), true)),
            "b" => Some(("B {{> a}}".to_string(), true)),
            "plain" => Some(("{{x}}".to_string(), false)),
            _ => None,
        };
        let looked_up = std::cell::RefCell::new(Vec::new());
        let lookup = |name: &str| {
            looked_up.borrow_mut().push(name.to_string());
            stored(name)
        };
        let subject = draft("{{> a}}");
        let mut partials = Partials::default();
        partials.add_included(&subject, lookup);
        let mut asked = looked_up.borrow().clone();
        asked.sort();
        assert_eq!(asked, ["a", "b"], "each once, `plain` never");
        assert!(rules_found(&subject, &partials).contains(&"PL004"));

        let subject = draft("{{> nowhere}}");
        let mut partials = Partials::default();
        partials.add_included(&subject, stored);
        assert!(rules_found(&subject, &partials).contains(&"PL003"));
    }
}
