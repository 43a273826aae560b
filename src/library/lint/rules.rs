//! Every lint rule: its id, name, default level, what it finds and how to fix it.

use crate::sarif::Level;

/// Which group a rule belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Group {
    Structure,
    Security,
    Hygiene,
}

impl Group {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Group::Structure => "structure",
            Group::Security => "security",
            Group::Hygiene => "hygiene",
        }
    }
}

/// One rule as the linter knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rule {
    /// `PL001`.
    pub id: &'static str,
    /// `invalid-front-matter`.
    pub name: &'static str,
    pub group: Group,
    pub level: Level,
    /// What the rule finds, in one line.
    pub short: &'static str,
    /// How to fix what it finds.
    pub hint: &'static str,
}

const fn rule(
    id: &'static str,
    name: &'static str,
    group: Group,
    level: Level,
    short: &'static str,
    hint: &'static str,
) -> Rule {
    Rule {
        id,
        name,
        group,
        level,
        short,
        hint,
    }
}

pub(crate) const INVALID_FRONT_MATTER: Rule = rule(
    "PL001",
    "invalid-front-matter",
    Group::Structure,
    Level::Error,
    "the front matter or template JSON cannot be read, or a field has the wrong type",
    "fix the field at the place shown; the template is not checked further until it reads",
);
pub(crate) const TEMPLATE_SYNTAX: Rule = rule(
    "PL002",
    "template-syntax",
    Group::Structure,
    Level::Error,
    "a block left open, a closing tag with no opening one, or a tag that does not parse",
    "close each `{{#block}}` with its `{{/block}}`, in order",
);
pub(crate) const MISSING_PARTIAL: Rule = rule(
    "PL003",
    "missing-partial",
    Group::Structure,
    Level::Error,
    "a partial `{{> name}}` that no prompt of the library (or of the files linted) is called",
    "add a prompt with that id, or correct the name",
);
pub(crate) const CIRCULAR_PARTIAL: Rule = rule(
    "PL004",
    "circular-partial",
    Group::Structure,
    Level::Error,
    "partials that include each other in a circle, which can never finish rendering",
    "break the circle: move the shared text into a partial that includes neither",
);
pub(crate) const UNUSED_VARIABLE: Rule = rule(
    "PL005",
    "unused-variable",
    Group::Structure,
    Level::Warning,
    "a slot or input declared but never used by the template",
    "use it in the template, or remove its declaration",
);
pub(crate) const UNDECLARED_VARIABLE: Rule = rule(
    "PL006",
    "undeclared-variable",
    Group::Structure,
    Level::Error,
    "a variable the template uses that its slots or input schema do not declare",
    "declare it in `slots` (or `input.schema`), or correct the name",
);
pub(crate) const DEAD_CONDITION: Rule = rule(
    "PL007",
    "dead-condition",
    Group::Structure,
    Level::Warning,
    "a condition on literals that is never true (`{{#if false}}`, `{{#ifEquals 1 2}}`, `{{#unless true}}`)",
    "test a variable, or remove the block",
);
pub(crate) const UNDELIMITED_UNTRUSTED: Rule = rule(
    "PL101",
    "undelimited-untrusted-slot",
    Group::Security,
    Level::Error,
    "an `untrusted` slot inserted with nothing that sets it apart from the instructions",
    "put it between tags (`<doc>{{x}}</doc>`), in a code fence, or in quotes",
);
pub(crate) const INSTRUCTION_OVERRIDE: Rule = rule(
    "PL102",
    "instruction-override",
    Group::Security,
    Level::Warning,
    "a phrase that tells a model to drop the instructions it was given",
    "say what the model should do without overriding what comes before",
);
pub(crate) const SECRET_LITERAL: Rule = rule(
    "PL103",
    "secret-literal",
    Group::Security,
    Level::Error,
    "text that looks like a credential (API key, access token, private key)",
    "remove it and rotate the credential; pass secrets through the environment",
);
pub(crate) const SENSITIVE_NOT_AUDITABLE: Rule = rule(
    "PL104",
    "sensitive-not-auditable",
    Group::Security,
    Level::Warning,
    "a `sensitive` slot in a prompt that is not `auditable`, so no record says it was used",
    "set `auditable: true`, or drop `sensitive` if the value is not",
);
pub(crate) const HIDDEN_UNICODE: Rule = rule(
    "PL105",
    "hidden-unicode",
    Group::Security,
    Level::Error,
    "invisible or direction-changing characters a reviewer cannot see",
    "remove the character; if the text needs it, write it visibly",
);
pub(crate) const MISSING_DESCRIPTION: Rule = rule(
    "PL201",
    "missing-description",
    Group::Hygiene,
    Level::Warning,
    "no `description`",
    "say in one sentence what the prompt is for",
);
pub(crate) const MISSING_OWNER: Rule = rule(
    "PL202",
    "missing-owner",
    Group::Hygiene,
    Level::Warning,
    "no `owner`",
    "name who answers for the prompt",
);
pub(crate) const MISSING_TAGS: Rule = rule(
    "PL203",
    "missing-tags",
    Group::Hygiene,
    Level::Note,
    "no `tags`",
    "add tags, so the prompt can be found by them",
);
pub(crate) const LONG_TEMPLATE: Rule = rule(
    "PL204",
    "long-template",
    Group::Hygiene,
    Level::Warning,
    "a template longer than the limit (8,000 characters unless configured)",
    "split it into partials, or raise `max_template_chars`",
);

/// Every rule, in id order.
pub(crate) const RULES: &[Rule] = &[
    INVALID_FRONT_MATTER,
    TEMPLATE_SYNTAX,
    MISSING_PARTIAL,
    CIRCULAR_PARTIAL,
    UNUSED_VARIABLE,
    UNDECLARED_VARIABLE,
    DEAD_CONDITION,
    UNDELIMITED_UNTRUSTED,
    INSTRUCTION_OVERRIDE,
    SECRET_LITERAL,
    SENSITIVE_NOT_AUDITABLE,
    HIDDEN_UNICODE,
    MISSING_DESCRIPTION,
    MISSING_OWNER,
    MISSING_TAGS,
    LONG_TEMPLATE,
];

/// The rule with this id (`PL001`) or name (`invalid-front-matter`).
pub(crate) fn find(key: &str) -> Option<&'static Rule> {
    RULES
        .iter()
        .find(|r| r.id.eq_ignore_ascii_case(key) || r.name == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_names_are_unique_and_in_order() {
        for pair in RULES.windows(2) {
            assert!(
                pair[0].id < pair[1].id,
                "{} before {}",
                pair[0].id,
                pair[1].id
            );
        }
        let mut names: Vec<_> = RULES.iter().map(|r| r.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), RULES.len());
        assert_eq!(find("pl105").map(|r| r.name), Some("hidden-unicode"));
        assert_eq!(find("missing-owner").map(|r| r.id), Some("PL202"));
    }
}
