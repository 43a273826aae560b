//! The structural rules (does the template read, and do its blocks, partials and
//! variables fit) and the hygiene rules.

use std::collections::BTreeSet;

use crate::doc::Pos;

use super::analysis::{Analysis, analyse};
use super::rules::{
    CIRCULAR_PARTIAL, DEAD_CONDITION, INVALID_FRONT_MATTER, LONG_TEMPLATE, MISSING_DESCRIPTION,
    MISSING_OWNER, MISSING_PARTIAL, MISSING_TAGS, TEMPLATE_SYNTAX, UNDECLARED_VARIABLE,
    UNUSED_VARIABLE,
};
use super::{Findings, Partials};

pub(super) fn check(found: &mut Findings<'_>, partials: &Partials) {
    let subject = found.subject;
    for (pos, message) in &subject.problems {
        found.add(&INVALID_FRONT_MATTER, *pos, message.clone());
    }
    let Some(body) = &subject.body else { return };
    let analysis = analyse(&body.text, subject.dotprompt);
    let at = |offset: usize| subject.locate(body.at, offset);
    for (offset, message) in &analysis.errors {
        found.add(&TEMPLATE_SYNTAX, at(*offset), message.clone());
    }
    variables(found, &analysis, &at);
    for (name, offset) in &analysis.partials {
        match partials.includes(name) {
            None => found.add(
                &MISSING_PARTIAL,
                at(*offset),
                format!("partial `{name}` is not a prompt of the library or of the files linted"),
            ),
            Some(_) => {
                if let Some(circle) = circle(partials, &subject.id, name) {
                    found.add(
                        &CIRCULAR_PARTIAL,
                        at(*offset),
                        format!("partials include each other: {}", circle.join(" -> ")),
                    );
                }
            }
        }
    }
    for dead in &analysis.dead {
        found.add(&DEAD_CONDITION, at(dead.at), dead.why.clone());
    }
}

/// Undeclared and unused variables, when the template declares any.
fn variables(found: &mut Findings<'_>, analysis: &Analysis, at: &dyn Fn(usize) -> Pos) {
    let subject = found.subject;
    if subject.slots.is_empty() && subject.schema.is_none() {
        return;
    }
    let mut declared: Vec<(&str, Pos)> = subject
        .slots
        .iter()
        .map(|s| (s.name.as_str(), s.pos))
        .collect();
    for (name, pos) in subject.schema.iter().flatten() {
        if !declared.iter().any(|(d, _)| d == name) {
            declared.push((name, *pos));
        }
    }
    let mut reported = BTreeSet::new();
    for used in &analysis.uses {
        let known = declared.iter().any(|(d, _)| *d == used.name);
        if !known && reported.insert(used.name.as_str()) {
            let hint = crate::doc::suggest(&used.name, declared.iter().map(|(d, _)| *d));
            found.add(
                &UNDECLARED_VARIABLE,
                at(used.at),
                format!("`{}` is used but not declared{hint}", used.name),
            );
        }
    }
    // A template that does not parse has no uses to compare with.
    if !analysis.errors.is_empty() {
        return;
    }
    for (name, pos) in declared {
        if !analysis.uses.iter().any(|u| u.name == name) {
            found.add(
                &UNUSED_VARIABLE,
                pos,
                format!("`{name}` is declared but the template never uses it"),
            );
        }
    }
}

/// The circle `first` leads into, if any, as the names walked (`a -> b -> a`);
/// `from` is the prompt that includes `first`.
fn circle(partials: &Partials, from: &str, first: &str) -> Option<Vec<String>> {
    let mut path = vec![from.to_string()];
    let mut done = BTreeSet::new();
    walk(partials, first, &mut path, &mut done)
}

fn walk(
    partials: &Partials,
    name: &str,
    path: &mut Vec<String>,
    done: &mut BTreeSet<String>,
) -> Option<Vec<String>> {
    if let Some(start) = path.iter().position(|p| p == name) {
        let mut circle = path[start..].to_vec();
        circle.push(name.to_string());
        return Some(circle);
    }
    if !done.insert(name.to_string()) {
        return None;
    }
    path.push(name.to_string());
    for next in partials.includes(name).unwrap_or_default() {
        if let Some(circle) = walk(partials, next, path, done) {
            return Some(circle);
        }
    }
    path.pop();
    None
}

pub(super) fn hygiene(found: &mut Findings<'_>) {
    let subject = found.subject;
    // A file that does not read has nothing sure to say about its fields.
    if !subject.problems.is_empty() {
        return;
    }
    let start = Pos::START;
    if subject.description.trim().is_empty() {
        found.add(&MISSING_DESCRIPTION, start, "the prompt has no description");
    }
    if subject.owner.trim().is_empty() {
        found.add(&MISSING_OWNER, start, "the prompt has no owner");
    }
    if subject.tags.is_empty() {
        found.add(&MISSING_TAGS, start, "the prompt has no tags");
    }
    if let Some(body) = &subject.body
        && found.on(&LONG_TEMPLATE)
    {
        let max = found.config.max_template_chars;
        let count = body.text.chars().count();
        if count > max {
            found.add(
                &LONG_TEMPLATE,
                subject.locate(body.at, 0),
                format!("the template is {count} characters, over the limit of {max}"),
            );
        }
    }
}
