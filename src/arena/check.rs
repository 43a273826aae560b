//! What an Arena's parts say about each other, checked once everything is read (as
//! PromptArena's validator does): names that must be providers, persona files
//! that must exist, ids that must be unique; and the settings nothing here plays
//! yet, each named in a warning.

use std::path::Path;

use crate::doc::{Diagnostic, Diagnostics, Pos, suggest};

use super::model::*;

pub(super) fn check(arena: &Arena) -> Diagnostics {
    let mut found = Diagnostics::default();
    let mut found_twice: Vec<(String, Pos)> = Vec::new();
    let file = arena.path.as_path();
    let ids: Vec<&str> = arena.providers.iter().map(ArenaProvider::id).collect();
    let mut provider = |name: &str, pos: Pos, what: &str| {
        if !ids.contains(&name) {
            found.push(Diagnostic::error(
                file,
                pos,
                format!(
                    "{what}: `{name}` is not the id of a provider in spec.providers{}",
                    suggest(name, ids.iter().copied())
                ),
            ));
        }
    };
    for (i, judge) in arena.judges.iter().enumerate() {
        provider(&judge.provider, judge.pos, "spec.judges");
        if arena.judges[..i].iter().any(|j| j.name == judge.name) {
            found_twice.push((judge.name.clone(), judge.pos));
        }
    }
    if let Some(self_play) = &arena.self_play {
        for role in &self_play.roles {
            provider(&role.provider, role.pos, "spec.self_play.roles");
        }
    }
    for (name, pos) in found_twice {
        found.push(Diagnostic::error(
            file,
            pos,
            format!("spec.judges: judge `{name}` is declared twice"),
        ));
    }
    for (i, config) in arena.prompt_configs.iter().enumerate() {
        if let Some(first) = arena.prompt_configs[..i].iter().find(|c| c.id == config.id) {
            found.push(Diagnostic::error(
                file,
                config.pos,
                format!(
                    "spec.prompt_configs: id `{}` is also the id of the prompt config at line {}",
                    config.id, first.pos.line
                ),
            ));
        }
    }
    if let Some(self_play) = &arena.self_play {
        for (persona, pos) in &self_play.personas {
            if !persona.is_file() {
                found.push(Diagnostic::error(
                    file,
                    *pos,
                    format!(
                        "spec.self_play.personas: file `{}` does not exist",
                        persona.display()
                    ),
                ));
            }
        }
    }
    unplayed(&mut found, file, arena);
    found
}

/// A warning for each setting read that nothing plays.
fn unplayed(found: &mut Diagnostics, file: &Path, arena: &Arena) {
    let mut warn = |pos: Pos, message: String| found.push(Diagnostic::warning(file, pos, message));
    if let Some(defaults) = &arena.judge_defaults {
        let given: Vec<&str> = [
            defaults.prompt.as_deref().map(|_| "prompt"),
            defaults
                .prompt_registry
                .as_deref()
                .map(|_| "prompt_registry"),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !given.is_empty() {
            warn(
                arena.defaults_pos,
                format!(
                    "spec.judge_defaults: {} not applied; judges use PromptKit's built-in judge prompts",
                    given.join(" and ")
                ),
            );
        }
    }
    for (key, raw) in &arena.extras {
        let count = match &raw.value {
            serde_json::Value::Array(items) => format!(" ({} entries)", items.len()),
            serde_json::Value::Object(entries) => format!(" ({} entries)", entries.len()),
            _ => String::new(),
        };
        found.push(Diagnostic::warning(
            &raw.file,
            raw.pos,
            format!("spec.{key}{count}: a PromptArena setting promptexec does not play yet; it is ignored"),
        ));
    }
}
